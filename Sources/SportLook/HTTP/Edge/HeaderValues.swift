import HTTPTypes

extension HTTPFields {
    /// The values of the fields named `name`, joined as `self[name]` joins them (`; `
    /// for cookies, `, ` otherwise); nil when there is none.
    ///
    /// `self[name]` joins them through generic code that is not specialised for
    /// us: 4,400 instructions for the one `Authorization` field of every
    /// authenticated request. This walks the few fields a request has.
    func joinedValues(_ name: HTTPField.Name) -> String? {
        var first: String?
        var more: [String] = []
        for field in self where field.name == name {
            if first == nil { first = field.value } else { more.append(field.value) }
        }
        guard let first else { return nil }
        return more.isEmpty ? first : ([first] + more).joined(separator: name == .cookie ? "; " : ", ")
    }
}
