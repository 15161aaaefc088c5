import SportLookAPI

/// The staff routes' answers as the tests read them: the contract's own types.
extension API {
    typealias StaffPerson = Components.Schemas.StaffPerson
    typealias ModeratedAccount = Components.Schemas.ModeratedAccount
    typealias ReportGroup = Components.Schemas.ReportGroup
    typealias AuditRow = Components.Schemas.AuditEntry
    typealias ReportDecision = Components.Schemas.ReportDecision
    typealias StaffMember = Components.Schemas.StaffMember
}
