import StratusWire

/// What a record remembers about local edits to one set of fields (the plain values, or the
/// `encryptedValues`) since it was fetched, decoded or created.
struct FieldChanges: Hashable, Sendable {
    /// Keys set since the last fetch or decode, including keys set to nil.
    var changed: Set<String> = []
    /// The field values as they were before the first edit: the ancestor of a save.
    /// nil until something is edited.
    var ancestor: [String: WireFieldValue]?
    /// Keys whose last set value is not a CloudKit field value, with the reason. The next save
    /// fails the record with `invalidArguments` carrying the reason.
    var rejections: [String: String] = [:]

    /// Records that `key` was set, applying the new value (nil removes the field) to `values`.
    mutating func apply(
        _ newValue: Result<WireFieldValue, FieldValueConversion.Rejection>?,
        forKey key: String,
        to values: inout [String: WireFieldValue]
    ) {
        if ancestor == nil { ancestor = values }
        changed.insert(key)
        if !rejections.isEmpty { rejections[key] = nil }
        switch newValue {
        case nil:
            values[key] = nil
        case .success(let value)?:
            values[key] = value
        case .failure(let reason)?:
            values[key] = nil
            rejections[key] = reason.reason
        }
    }
}
