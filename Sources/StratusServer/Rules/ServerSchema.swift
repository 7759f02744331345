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

    /// Which schema rules a container follows.
    public enum Environment: Hashable, Sendable {
        /// Saves create record types and fields; every field is indexed automatically.
        case development
        /// Only deployed record types and fields may be saved, and queries and sorts need
        /// deployed or marked indexes.
        case production
    }

    /// The indexes of one field.
    public struct Indexes: OptionSet, Hashable, Sendable {
        /// The raw bit mask.
        public let rawValue: UInt8
        /// Creates indexes from their bit mask.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The field may appear in a query's predicate.
        public static let queryable = Indexes(rawValue: 1 << 0)
        /// The field may order a query's results.
        public static let sortable = Indexes(rawValue: 1 << 1)
        /// The field's words may be found by full-text search.
        public static let searchable = Indexes(rawValue: 1 << 2)
    }

    /// The record types and indexes of one environment.
    public struct Definitions: Hashable, Sendable {
        /// The fields of each record type, by record type name and field key.
        public var recordTypes: [String: [String: FieldType]] = [:]
        /// The indexes marked on fields, by record type name and field key; system fields go
        /// by their Swift names (`recordID`, `creationDate`, …).
        public var indexes: [String: [String: Indexes]] = [:]
    }

    /// The rules the container follows now.
    public var environment = Environment.development
    /// The development schema.
    public var development = Definitions()
    /// The production schema: what was last deployed, plus indexes marked since.
    public var production = Definitions()

    /// The record types of the development schema.
    public var recordTypes: [String: [String: FieldType]] {
        get { development.recordTypes }
        set { development.recordTypes = newValue }
    }

    /// Creates an empty development schema.
    public init() {}

    /// Copies the development schema, types, fields and marked indexes, to production.
    /// Records are not copied.
    mutating func deploy() {
        production = development
    }

    /// Marks `indexes` on a field of a type in both environments.
    mutating func mark(_ indexes: Indexes, field: String, recordType: String) {
        development.indexes[recordType, default: [:]][field, default: []].formUnion(indexes)
        production.indexes[recordType, default: [:]][field, default: []].formUnion(indexes)
    }

    /// Checks a record to save: in development it may add types and fields; in production
    /// every type and field must have been deployed. The share type and its system fields
    /// (``WireShareRules``) exist in every schema, as CloudKit defines them.
    mutating func accept(_ record: WireRecord) -> WireError? {
        guard environment == .production else { return admit(record) }
        let isShare = WireShareRules.isShareType(record.recordType)
        guard let fields = production.recordTypes[record.recordType] ?? (isShare ? [:] : nil) else {
            return WireError(.invalidArguments, "record type '\(record.recordType)' is not in the production schema; deploy the development schema first")
        }
        let values = record.fields.map { ($0.key, FieldType(kind: $0.value.kind, isEncrypted: false)) }
            + record.encryptedFields.map { ($0.key, FieldType(kind: $0.value.kind, isEncrypted: true)) }
        for (key, type) in values.sorted(by: { $0.0 < $1.0 }) {
            if isShare, !type.isEncrypted, WireShareRules.systemFieldKeys.contains(key), fields[key] == nil { continue }
            guard let existing = fields[key] else {
                return WireError(.invalidArguments, "field '\(key)' of record type '\(record.recordType)' is not in the production schema")
            }
            guard existing.accepts(type) else {
                return WireError(.invalidArguments, "field '\(key)' of record type '\(record.recordType)' has type \(existing); record '\(record.recordID.recordName)' gives it a \(type)")
            }
        }
        return nil
    }

    /// Whether the record type exists in the environment in force; in production the share type
    /// always does.
    func hasRecordType(_ recordType: String) -> Bool {
        WireShareRules.isShareType(recordType) && environment == .production
            || (environment == .production ? production : development).recordTypes[recordType] != nil
    }

    /// In production, every field a query filters on must be queryable, every field it sorts
    /// on sortable, and full-text search needs a searchable field; development indexes every
    /// field automatically.
    func checkIndexes(for query: WireQuery) -> WireError? {
        guard environment == .production else { return nil }
        let marked = production.indexes[query.recordType] ?? [:]
        for field in query.predicate.filteredFields where !(marked[field.description] ?? []).contains(.queryable) {
            return WireError(.invalidArguments, "field '\(field)' of record type '\(query.recordType)' is not marked queryable in the production schema")
        }
        for descriptor in query.sortDescriptors where !(marked[descriptor.field.description] ?? []).contains(.sortable) {
            return WireError(.invalidArguments, "field '\(descriptor.field)' of record type '\(query.recordType)' is not marked sortable in the production schema")
        }
        if query.predicate.searchesText, !marked.values.contains(where: { $0.contains(.searchable) }) {
            return WireError(.invalidArguments, "record type '\(query.recordType)' has no field marked searchable in the production schema")
        }
        return nil
    }

    /// Location operations apply to Location fields, and a Location field sorts only by
    /// distance: a `distanceToLocation:fromLocation:` or a `CKLocationSortDescriptor` on a
    /// system field or on a field of another type, or a plain sort on a Location field, is
    /// `invalidArguments`. A field no record has set yet has no type to go by; it matches
    /// nothing.
    func checkLocations(for query: WireQuery) -> WireError? {
        let fields = (environment == .production ? production : development).recordTypes[query.recordType] ?? [:]
        func misuse(_ field: WireQueryField, _ operation: String) -> WireError? {
            guard case .field(let key) = field else {
                return WireError(.invalidArguments, "\(operation) needs a Location field; '\(field)' is a system field")
            }
            guard let type = fields[key], type.kind != .location else { return nil }
            return WireError(.invalidArguments, "\(operation) needs a Location field; field '\(key)' of record type '\(query.recordType)' has type \(type)")
        }
        var pending = [query.predicate]
        while let predicate = pending.popLast() {
            switch predicate {
            case .and(let parts): pending.append(contentsOf: parts)
            case .near(let field, _, _, _): if let error = misuse(field, "distanceToLocation:fromLocation:") { return error }
            default: break
            }
        }
        for descriptor in query.sortDescriptors {
            if descriptor.relativeLocation != nil {
                if let error = misuse(descriptor.field, "a location sort (CKLocationSortDescriptor)") { return error }
            } else if case .field(let key) = descriptor.field, fields[key]?.kind == .location {
                return WireError(.invalidArguments, "field '\(key)' of record type '\(query.recordType)' holds locations, which sort only by distance: use CKLocationSortDescriptor")
            }
        }
        return nil
    }

    /// Checks `record`'s fields against the schema and adds the types and fields it introduces.
    ///
    /// - Returns: An `invalidArguments` error naming the field when a value's type differs
    ///   from the type the field was created with; the schema is then unchanged.
    private mutating func admit(_ record: WireRecord) -> WireError? {
        if let known = development.recordTypes[record.recordType], Self.holds(record, as: known) { return nil }
        var fields = development.recordTypes[record.recordType] ?? [:]
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
        development.recordTypes[record.recordType] = fields
        return nil
    }

    /// Whether every field of `record` is already in `fields` with a type that takes its
    /// value and needs no refining (a list of unknown element type): the usual save, which
    /// then changes nothing in the schema.
    private static func holds(_ record: WireRecord, as fields: [String: FieldType]) -> Bool {
        func settled(_ key: String, _ value: WireFieldValue, encrypted: Bool) -> Bool {
            guard let existing = fields[key] else { return false }
            if case .list(nil) = existing.kind { return false }
            return existing.accepts(FieldType(kind: value.kind, isEncrypted: encrypted))
        }
        return record.fields.allSatisfy { settled($0.key, $0.value, encrypted: false) }
            && record.encryptedFields.allSatisfy { settled($0.key, $0.value, encrypted: true) }
    }
}

extension WirePredicate {
    /// The fields the predicate filters on.
    var filteredFields: [WireQueryField] {
        switch self {
        case .constant, .tokens: []
        case .and(let parts): parts.flatMap(\.filteredFields)
        case .not(let inner): inner.filteredFields
        case .compare(let field, _, _), .near(let field, _, _, _), .between(let field, _, _), .isIn(let field, _), .listContains(let field, _),
             .listContainsAny(let field, _), .beginsWith(let field, _), .listMemberBeginsWith(let field, _):
            [field]
        }
    }

    /// Whether the predicate uses full-text search.
    var searchesText: Bool {
        switch self {
        case .tokens: true
        case .and(let parts): parts.contains(where: \.searchesText)
        case .not(let inner): inner.searchesText
        default: false
        }
    }
}
