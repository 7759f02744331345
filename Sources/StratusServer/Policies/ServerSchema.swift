import StratusWire

/// A container's schema in the development environment: record types and their fields' types,
/// created by the first save that uses them.
///
/// A save's new types and fields are created when the save is checked, before its request
/// finishes: a request that then fails as a whole (`quotaExceeded`) or an atomic batch that is
/// rolled back still leaves them defined, as creating schema is never undone.
public struct ServerSchema: Hashable, Sendable {
    /// The type of one field: its schema type and whether it is stored encrypted.
    public struct FieldType: Hashable, Sendable, CustomStringConvertible {
        /// The schema type, such as `String` or `List<Int(64)>`.
        public var kind: WireFieldValue.Kind
        /// Whether the field is an encrypted field (`CKRecord.encryptedValues`).
        public var isEncrypted: Bool

        /// Creates a field type.
        public init(kind: WireFieldValue.Kind, isEncrypted: Bool) {
            self.kind = kind
            self.isEncrypted = isEncrypted
        }

        /// The dashboard's spelling, such as `Encrypted String`.
        public var description: String { isEncrypted ? "Encrypted \(kind)" : "\(kind)" }

        /// Whether a value of `other` fits a field of this type (an empty list fits any list).
        func accepts(_ other: FieldType) -> Bool {
            guard isEncrypted == other.isEncrypted else { return false }
            switch (kind, other.kind) {
            case (.list(nil), .list), (.list, .list(nil)): return true
            default: return kind == other.kind
            }
        }
    }

    /// The fields of each record type, by record type name and field key.
    public var recordTypes: [String: [String: FieldType]] = [:]

    /// Creates an empty schema.
    public init() {}

    /// Checks `record`'s fields against the schema and adds the types and fields it introduces.
    ///
    /// - Returns: An `invalidArguments` error naming the field when a value's type differs
    ///   from the type the field was created with; the schema is then unchanged.
    mutating func admit(_ record: WireRecord) -> WireError? {
        var fields = recordTypes[record.recordType] ?? [:]
        let values = record.fields.map { ($0.key, FieldType(kind: $0.value.kind, isEncrypted: false)) }
            + record.encryptedFields.map { ($0.key, FieldType(kind: $0.value.kind, isEncrypted: true)) }
        for (key, type) in values.sorted(by: { $0.0 < $1.0 }) {
            if let existing = fields[key] {
                guard existing.accepts(type) else {
                    return WireError(.invalidArguments, "field '\(key)' of record type '\(record.recordType)' has type \(existing); record '\(record.recordID.recordName)' gives it a \(type)")
                }
                if case .list(nil) = existing.kind { fields[key] = type }
            } else {
                fields[key] = type
            }
        }
        recordTypes[record.recordType] = fields
        return nil
    }
}
