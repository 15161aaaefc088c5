import HTTPTypes

extension HTTPFields {
    /// The values of the fields named `name`, joined as `self[name]` joins them (`; `
    /// for cookies, `, ` otherwise); nil when there is none.
    ///
    /// `self[name]` joins them through generic code that is not specialised for
    /// us: 4,400 instructions for the one `Authorization` field of every
    /// authenticated request. This walks the few fields a request has.
    func joinedValues(_ name: HTTPField.Name) -> String? {
        var value: String?
        for field in self where field.name == name {
            if let first = value {
                value = first + (name == .cookie ? "; " : ", ") + field.value
            } else {
                value = field.value
            }
        }
        return value
    }
}
