import Foundation

/// A query field as CloudKit Web Services names it in a filter or a sort descriptor:
/// `{"fieldName": …}` for a field the app defined, `{"systemFieldName": …}` for a system field,
/// with CKWS's system field names: `recordName` (the record ID), `share`, `parent`,
/// `createdUserRecordName`, `createdTimestamp`, `modifiedTimestamp` and
/// `modifiedUserRecordName`. Decoding also takes the index names (`___recordId`, `___share`,
/// `___parent`, `___createdBy`, `___createTime`, `___modTime`, `___modifiedBy`); exactly one of
/// the two keys must be there. A filter or sort descriptor writes these keys beside its own.
extension WireQueryField: Codable {
    private enum CodingKeys: String, CodingKey {
        case fieldName, systemFieldName
    }

    /// CKWS's `systemFieldName` for the field; nil for a field the app defined.
    var systemFieldName: String? {
        switch self {
        case .field: nil
        case .recordID: "recordName"
        case .share: "share"
        case .parent: "parent"
        case .creatorUserRecordID: "createdUserRecordName"
        case .creationDate: "createdTimestamp"
        case .modificationDate: "modifiedTimestamp"
        case .lastModifiedUserRecordID: "modifiedUserRecordName"
        }
    }

    /// The system field a CKWS `systemFieldName` (or its index name) names.
    static func systemField(named name: String) -> WireQueryField? {
        switch name {
        case "recordName", "___recordId", "___recordID": .recordID
        case "share", "___share": .share
        case "parent", "___parent": .parent
        case "createdUserRecordName", "___createdBy": .creatorUserRecordID
        case "createdTimestamp", "___createTime": .creationDate
        case "modifiedTimestamp", "___modTime": .modificationDate
        case "modifiedUserRecordName", "___modifiedBy": .lastModifiedUserRecordID
        default: nil
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .field(let name): try container.encode(name, forKey: .fieldName)
        default: try container.encodeIfPresent(systemFieldName, forKey: .systemFieldName)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decodeIfPresent(String.self, forKey: .fieldName)
        let systemName = try container.decodeIfPresent(String.self, forKey: .systemFieldName)
        switch (name, systemName) {
        case (let name?, nil):
            self = .field(name)
        case (nil, let systemName?):
            guard let field = Self.systemField(named: systemName) else {
                throw DecodingError.invalid(CodingKeys.systemFieldName, in: container, "'\(systemName)' is not a system field (recordName, share, parent, createdUserRecordName, createdTimestamp, modifiedTimestamp, modifiedUserRecordName)")
            }
            self = field
        case (nil, nil):
            throw DecodingError.keyNotFound(CodingKeys.fieldName, DecodingError.Context(codingPath: container.codingPath, debugDescription: "a filter or sort descriptor names fieldName or systemFieldName"))
        case (_?, _?):
            throw DecodingError.invalid(CodingKeys.systemFieldName, in: container, "a filter or sort descriptor names fieldName or systemFieldName, not both")
        }
    }
}

/// A comparison as CKWS names its comparator: `EQUALS`, `NOT_EQUALS`, `LESS_THAN`,
/// `LESS_THAN_OR_EQUALS`, `GREATER_THAN`, `GREATER_THAN_OR_EQUALS`.
extension WireComparison: Codable {
    private static let names: [(Self, String)] = [
        (.equal, "EQUALS"), (.notEqual, "NOT_EQUALS"), (.less, "LESS_THAN"), (.lessOrEqual, "LESS_THAN_OR_EQUALS"),
        (.greater, "GREATER_THAN"), (.greaterOrEqual, "GREATER_THAN_OR_EQUALS"),
    ]

    /// The CKWS comparator.
    var comparatorName: String {
        switch self {
        case .equal: "EQUALS"
        case .notEqual: "NOT_EQUALS"
        case .less: "LESS_THAN"
        case .lessOrEqual: "LESS_THAN_OR_EQUALS"
        case .greater: "GREATER_THAN"
        case .greaterOrEqual: "GREATER_THAN_OR_EQUALS"
        }
    }

    /// The comparison a CKWS comparator names; nil for the other comparators.
    static func named(_ name: String) -> WireComparison? {
        names.first { $0.1 == name }?.0
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(comparatorName)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "a comparison")
    }
}

/// How a token search combines its tokens, as CKWS names the comparator:
/// `CONTAINS_ANY_TOKENS` or `CONTAINS_ALL_TOKENS`.
extension WireTokenMatch: Codable {
    private static let names: [(Self, String)] = [(.any, "CONTAINS_ANY_TOKENS"), (.all, "CONTAINS_ALL_TOKENS")]

    /// The CKWS comparator.
    var comparatorName: String {
        switch self {
        case .any: "CONTAINS_ANY_TOKENS"
        case .all: "CONTAINS_ALL_TOKENS"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(comparatorName)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "a token search")
    }
}

/// The right-hand side of a comparison: a value is CKWS's field-value dictionary
/// (`{"value": …, "type": …}`); `now()` is the Stratus extension `{"function": "NOW"}`, which
/// CKWS has no form for.
extension WireQueryOperand: Codable {
    private enum CodingKeys: String, CodingKey {
        case function
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .value(let value):
            try JSONPredicate.checkEncodable(value, at: encoder.codingPath)
            try value.encode(to: encoder)
        case .now:
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("NOW", forKey: .function)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let function = try container.decodeIfPresent(String.self, forKey: .function) else {
            self = .value(try WireFieldValue(from: decoder))
            return
        }
        guard function == "NOW" else {
            throw DecodingError.invalid(CodingKeys.function, in: container, "'\(function)' is not a query function (NOW)")
        }
        self = .now
    }
}

/// A predicate as JSON: one filter dictionary, the Stratus predicate tree that a query carries
/// under `stratusPredicate` when CKWS's `filterBy` cannot say it exactly (see ``WireQuery``).
///
/// A leaf is CKWS's filter dictionary, `{comparator, fieldName | systemFieldName, fieldValue,
/// distance}`, with CKWS's comparators:
///
/// | predicate | comparator | value keys |
/// |---|---|---|
/// | `compare` | `EQUALS`, `NOT_EQUALS`, `LESS_THAN`, `LESS_THAN_OR_EQUALS`, `GREATER_THAN`, `GREATER_THAN_OR_EQUALS` | `fieldValue` |
/// | `isIn`, `NOT isIn` | `IN`, `NOT_IN` | `fieldValue`, a list (`{"value": […], "type": "STRING_LIST"}`) |
/// | `listContains`, `NOT …` | `LIST_CONTAINS`, `NOT_LIST_CONTAINS` | `fieldValue` |
/// | `listContainsAny`, `NOT …` | `LIST_CONTAINS_ANY`, `NOT_LIST_CONTAINS_ANY` (CloudKit JS's) | `fieldValue`, a list |
/// | `beginsWith`, `NOT …` | `BEGINS_WITH`, `NOT_BEGINS_WITH` | `fieldValue`, a `STRING` |
/// | `listMemberBeginsWith`, `NOT …` | `LIST_MEMBER_BEGINS_WITH`, `NOT_LIST_MEMBER_BEGINS_WITH` | `fieldValue`, a `STRING` |
/// | `tokens` | `CONTAINS_ANY_TOKENS`, `CONTAINS_ALL_TOKENS` | `fieldName: "allTokens"`, `fieldValue`: the tokens as one `STRING`, separated by spaces |
/// | `near` | `NEAR` | `fieldValue`, a `LOCATION`; `distance` in metres |
///
/// What CKWS cannot say, as Stratus extensions in the same shape:
/// - the comparators `TRUE` and `FALSE` (no other keys), `AND` (`filters`: the parts) and
///   `NOT` (`filter`: the negated predicate, when no `NOT_…` comparator says it);
/// - `BETWEEN`, with `lowerBound` and `upperBound` (both ends included);
/// - `now()` as a value: `{"function": "NOW"}` (``WireQueryOperand``);
/// - an `IN` aggregate mixing kinds (`likes IN {1, 2.5}`): `fieldValues`, one field value each;
/// - tokens that spaces would not give back exactly: `fieldValue` a `STRING_LIST` of them;
/// - `NEAR`: `kilometres`, the exact radius, when `distance / 1000` is not exactly it, and
///   `"inclusive": true` for `<=` (CKWS's `NEAR` is the `<` of `distanceToLocation:`).
///
/// Decoding also takes CKWS's `LIST_CONTAINS_ALL` (an `AND` of `LIST_CONTAINS`) and
/// `NOT_LIST_CONTAINS_ALL` (its `NOT`), and a token search's `STRING` as any text, tokenized as
/// CloudKit tokenizes it. A predicate nesting deeper than ``WirePredicate/maximumDepth`` is
/// `invalidArguments` both ways; decoding stops descending one level past the limit, so JSON
/// nested thousands of levels deep cannot exhaust the stack. A value no field-value JSON can
/// carry (a list holding a list, or mixing kinds, outside an `IN` aggregate) cannot be encoded.
extension WirePredicate: Codable {
    public func encode(to encoder: any Encoder) throws {
        guard isWithinMaximumDepth else {
            throw EncodingError.invalidValue(self, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "the predicate nests more than \(Self.maximumDepth) levels deep"))
        }
        try JSONPredicate.encode(self, to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let predicate = try JSONPredicate.decode(from: decoder, depth: 0)
        // The descent stops deep NOTs and ANDs; this also counts the list levels.
        guard predicate.isWithinMaximumDepth else { throw JSONPredicate.tooDeep(at: decoder.codingPath) }
        self = predicate
    }

    /// Whether the predicate travels as CloudKit Web Services' `filterBy` list, which gives it
    /// back exactly; otherwise a query carries it under the extension key `stratusPredicate`,
    /// which Apple's service does not read, so a transport to Apple must refuse such a query
    /// (with `invalidArguments`) before sending it.
    public var isExpressibleAsCloudKitWebServicesFilters: Bool {
        JSONPredicate.cloudKitWebServicesFilters(self) != nil
    }
}

/// The keys of a query dictionary (§3 of the CKWS reference) and of a subscription's `query`.
enum JSONQueryKeys: String, CodingKey {
    case recordType, filterBy, stratusPredicate, sortBy
}

/// The JSON of predicates: filter dictionaries and the tree of them.
enum JSONPredicate {
    /// The keys of a filter dictionary.
    enum Keys: String, CodingKey {
        case comparator, fieldName, fieldValue, fieldValues, distance, kilometres, inclusive, lowerBound, upperBound, filters, filter
    }

    /// The field name CKWS's token search names.
    static let allTokens = "allTokens"

    /// Every comparator a filter may name, for error messages.
    private static let comparators = [
        "EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUALS", "GREATER_THAN", "GREATER_THAN_OR_EQUALS", "NEAR",
        "CONTAINS_ALL_TOKENS", "CONTAINS_ANY_TOKENS", "IN", "NOT_IN", "LIST_CONTAINS", "NOT_LIST_CONTAINS", "LIST_CONTAINS_ANY",
        "NOT_LIST_CONTAINS_ANY", "LIST_CONTAINS_ALL", "NOT_LIST_CONTAINS_ALL", "BEGINS_WITH", "NOT_BEGINS_WITH",
        "LIST_MEMBER_BEGINS_WITH", "NOT_LIST_MEMBER_BEGINS_WITH", "TRUE", "FALSE", "AND", "NOT", "BETWEEN",
    ]

    static func tooDeep(at codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "the predicate nests more than \(WirePredicate.maximumDepth) levels deep (each NOT, AND and list of values is a level)"))
    }

    // MARK: - The filterBy list

    /// The filters of CKWS's `filterBy` that give `predicate` back exactly, or nil when there
    /// are none: `TRUEPREDICATE` is no filter, a CKWS filter is one, an `AND` of two or more
    /// CKWS filters is its parts.
    static func cloudKitWebServicesFilters(_ predicate: WirePredicate) -> [WirePredicate]? {
        switch predicate {
        case .constant(true):
            return []
        case .and(let parts) where parts.count >= 2:
            return parts.allSatisfy(isCloudKitWebServicesFilter) ? parts : nil
        default:
            return isCloudKitWebServicesFilter(predicate) ? [predicate] : nil
        }
    }

    /// Whether `predicate` is one CKWS filter that decodes back to exactly it.
    private static func isCloudKitWebServicesFilter(_ predicate: WirePredicate) -> Bool {
        switch predicate {
        case .constant, .and, .between, .compare(_, _, .now):
            return false
        case .not(let inner):
            return negatedComparator(of: inner) != nil && isCloudKitWebServicesFilter(inner)
        case .compare(_, _, .value(let value)), .listContains(_, let value):
            return isEncodable(value)
        case .isIn(_, let values), .listContainsAny(_, let values):
            return isHomogeneous(values)
        case .beginsWith, .listMemberBeginsWith:
            return true
        case .tokens(_, let tokens):
            return TextSearch.tokens(of: tokens.joined(separator: " ")) == tokens
        case .near(_, _, let kilometres, let inclusive):
            return !inclusive && kilometres * 1000 / 1000 == kilometres
        }
    }

    /// Writes `predicate` as CKWS's `filterBy` when that gives it back exactly, and under
    /// `stratusPredicate` otherwise.
    static func encodeFilters(_ predicate: WirePredicate, into container: inout KeyedEncodingContainer<JSONQueryKeys>) throws {
        guard let filters = cloudKitWebServicesFilters(predicate) else {
            try container.encode(predicate, forKey: .stratusPredicate)
            return
        }
        var list = container.nestedUnkeyedContainer(forKey: .filterBy)
        for filter in filters { try encode(filter, to: list.superEncoder()) }
    }

    /// The predicate of a query dictionary: `stratusPredicate` when present, else `filterBy`
    /// (no filter is `TRUEPREDICATE`, several are their `AND`); nil when neither is there.
    static func decodeFilters(from container: KeyedDecodingContainer<JSONQueryKeys>) throws -> WirePredicate? {
        if let predicate = try container.decodeIfPresent(WirePredicate.self, forKey: .stratusPredicate) {
            return predicate
        }
        guard container.contains(.filterBy), try !container.decodeNil(forKey: .filterBy) else { return nil }
        var list = try container.nestedUnkeyedContainer(forKey: .filterBy)
        var parts: [WirePredicate] = []
        while !list.isAtEnd {
            parts.append(try decode(from: try list.superDecoder(), depth: 1))
        }
        let predicate: WirePredicate = switch parts.count {
        case 0: .constant(true)
        case 1: parts[0]
        default: .and(parts)
        }
        guard predicate.isWithinMaximumDepth else { throw tooDeep(at: container.codingPath + [JSONQueryKeys.filterBy]) }
        return predicate
    }

    // MARK: - Values

    /// Whether the field-value JSON gives `value` back: any value but a list holding a list
    /// or mixing kinds.
    static func isEncodable(_ value: WireFieldValue) -> Bool {
        guard case .list(let elements) = value else { return true }
        return isHomogeneous(elements)
    }

    /// Whether `values` can be one list field value: none is a list, and all are of one kind.
    private static func isHomogeneous(_ values: [WireFieldValue]) -> Bool {
        guard let first = values.first else { return true }
        return values.allSatisfy { value in
            if case .list = value { return false }
            return value.kind == first.kind
        }
    }

    /// Throws unless ``isEncodable(_:)``.
    static func checkEncodable(_ value: WireFieldValue, at codingPath: [any CodingKey]) throws {
        guard isEncodable(value) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: codingPath, debugDescription: "a list holding a list or mixing kinds has no field-value JSON"))
        }
    }

    // MARK: - Encoding

    /// The `NOT_…` comparator that says `NOT inner`, if CKWS has one.
    private static func negatedComparator(of inner: WirePredicate) -> String? {
        switch inner {
        case .isIn: "NOT_IN"
        case .listContains: "NOT_LIST_CONTAINS"
        case .listContainsAny: "NOT_LIST_CONTAINS_ANY"
        case .beginsWith: "NOT_BEGINS_WITH"
        case .listMemberBeginsWith: "NOT_LIST_MEMBER_BEGINS_WITH"
        default: nil
        }
    }

    /// Writes one filter dictionary; its parts recursively (the caller checked the depth).
    static func encode(_ predicate: WirePredicate, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch predicate {
        case .constant(let value):
            try container.encode(value ? "TRUE" : "FALSE", forKey: .comparator)
        case .and(let parts):
            try container.encode("AND", forKey: .comparator)
            var list = container.nestedUnkeyedContainer(forKey: .filters)
            for part in parts { try encode(part, to: list.superEncoder()) }
        case .not(let inner):
            if let comparator = negatedComparator(of: inner) {
                try encodeLeaf(inner, comparator: comparator, into: &container, encoder: encoder)
            } else {
                try container.encode("NOT", forKey: .comparator)
                try encode(inner, to: container.superEncoder(forKey: .filter))
            }
        case .compare(_, let comparison, _):
            try encodeLeaf(predicate, comparator: comparison.comparatorName, into: &container, encoder: encoder)
        case .between:
            try encodeLeaf(predicate, comparator: "BETWEEN", into: &container, encoder: encoder)
        case .isIn:
            try encodeLeaf(predicate, comparator: "IN", into: &container, encoder: encoder)
        case .listContains:
            try encodeLeaf(predicate, comparator: "LIST_CONTAINS", into: &container, encoder: encoder)
        case .listContainsAny:
            try encodeLeaf(predicate, comparator: "LIST_CONTAINS_ANY", into: &container, encoder: encoder)
        case .beginsWith:
            try encodeLeaf(predicate, comparator: "BEGINS_WITH", into: &container, encoder: encoder)
        case .listMemberBeginsWith:
            try encodeLeaf(predicate, comparator: "LIST_MEMBER_BEGINS_WITH", into: &container, encoder: encoder)
        case .tokens(let match, _):
            try encodeLeaf(predicate, comparator: match.comparatorName, into: &container, encoder: encoder)
        case .near:
            try encodeLeaf(predicate, comparator: "NEAR", into: &container, encoder: encoder)
        }
    }

    /// Writes the comparator, field and value keys of a leaf.
    private static func encodeLeaf(_ predicate: WirePredicate, comparator: String, into container: inout KeyedEncodingContainer<Keys>, encoder: any Encoder) throws {
        try container.encode(comparator, forKey: .comparator)
        switch predicate {
        case .compare(let field, _, let operand):
            try field.encode(to: encoder)
            try container.encode(operand, forKey: .fieldValue)
        case .between(let field, let low, let high):
            try field.encode(to: encoder)
            try container.encode(low, forKey: .lowerBound)
            try container.encode(high, forKey: .upperBound)
        case .isIn(let field, let values), .listContainsAny(let field, let values):
            try field.encode(to: encoder)
            if isHomogeneous(values) {
                try container.encode(WireFieldValue.list(values), forKey: .fieldValue)
            } else {
                var list = container.nestedUnkeyedContainer(forKey: .fieldValues)
                for value in values {
                    try checkEncodable(value, at: container.codingPath + [Keys.fieldValues])
                    try list.encode(value)
                }
            }
        case .listContains(let field, let value):
            try field.encode(to: encoder)
            try checkEncodable(value, at: container.codingPath + [Keys.fieldValue])
            try container.encode(value, forKey: .fieldValue)
        case .beginsWith(let field, let prefix), .listMemberBeginsWith(let field, let prefix):
            try field.encode(to: encoder)
            try container.encode(WireFieldValue.string(prefix), forKey: .fieldValue)
        case .tokens(_, let tokens):
            try container.encode(allTokens, forKey: .fieldName)
            let text = tokens.joined(separator: " ")
            let value: WireFieldValue = TextSearch.tokens(of: text) == tokens ? .string(text) : .list(tokens.map(WireFieldValue.string))
            try container.encode(value, forKey: .fieldValue)
        case .near(let field, let center, let kilometres, let inclusive):
            try field.encode(to: encoder)
            try container.encode(WireFieldValue.location(center), forKey: .fieldValue)
            let metres = kilometres * 1000
            try container.encode(metres, forKey: .distance)
            if metres / 1000 != kilometres { try container.encode(kilometres, forKey: .kilometres) }
            if inclusive { try container.encode(true, forKey: .inclusive) }
        case .constant, .and, .not:
            break
        }
    }

    // MARK: - Decoding

    /// Reads one filter dictionary below `depth` enclosing NOTs and ANDs, which already count
    /// toward the depth, so the recursion stops one level past the limit.
    static func decode(from decoder: any Decoder, depth: Int) throws -> WirePredicate {
        guard depth <= WirePredicate.maximumDepth else { throw tooDeep(at: decoder.codingPath) }
        let container = try decoder.container(keyedBy: Keys.self)
        let comparator = try container.decode(String.self, forKey: .comparator)
        if let comparison = WireComparison.named(comparator) {
            return .compare(try WireQueryField(from: decoder), comparison, try container.decode(WireQueryOperand.self, forKey: .fieldValue))
        }
        switch comparator {
        case "TRUE":
            return .constant(true)
        case "FALSE":
            return .constant(false)
        case "AND":
            var list = try container.nestedUnkeyedContainer(forKey: .filters)
            var parts: [WirePredicate] = []
            while !list.isAtEnd {
                parts.append(try decode(from: try list.superDecoder(), depth: depth + 1))
            }
            return .and(parts)
        case "NOT":
            guard container.contains(.filter) else {
                throw DecodingError.keyNotFound(Keys.filter, DecodingError.Context(codingPath: container.codingPath, debugDescription: "NOT needs the filter it negates"))
            }
            return .not(try decode(from: try container.superDecoder(forKey: .filter), depth: depth + 1))
        case "BETWEEN":
            return .between(
                try WireQueryField(from: decoder),
                try container.decode(WireQueryOperand.self, forKey: .lowerBound),
                try container.decode(WireQueryOperand.self, forKey: .upperBound)
            )
        case "IN":
            return .isIn(try WireQueryField(from: decoder), try aggregate(in: container))
        case "NOT_IN":
            return .not(.isIn(try WireQueryField(from: decoder), try aggregate(in: container)))
        case "LIST_CONTAINS":
            return .listContains(try WireQueryField(from: decoder), try container.decode(WireFieldValue.self, forKey: .fieldValue))
        case "NOT_LIST_CONTAINS":
            return .not(.listContains(try WireQueryField(from: decoder), try container.decode(WireFieldValue.self, forKey: .fieldValue)))
        case "LIST_CONTAINS_ANY":
            return .listContainsAny(try WireQueryField(from: decoder), try aggregate(in: container))
        case "NOT_LIST_CONTAINS_ANY":
            return .not(.listContainsAny(try WireQueryField(from: decoder), try aggregate(in: container)))
        case "LIST_CONTAINS_ALL", "NOT_LIST_CONTAINS_ALL":
            let field = try WireQueryField(from: decoder)
            let all = WirePredicate.and(try aggregate(in: container).map { .listContains(field, $0) })
            return comparator == "LIST_CONTAINS_ALL" ? all : .not(all)
        case "BEGINS_WITH":
            return .beginsWith(try WireQueryField(from: decoder), try string(in: container))
        case "NOT_BEGINS_WITH":
            return .not(.beginsWith(try WireQueryField(from: decoder), try string(in: container)))
        case "LIST_MEMBER_BEGINS_WITH":
            return .listMemberBeginsWith(try WireQueryField(from: decoder), try string(in: container))
        case "NOT_LIST_MEMBER_BEGINS_WITH":
            return .not(.listMemberBeginsWith(try WireQueryField(from: decoder), try string(in: container)))
        case "CONTAINS_ALL_TOKENS":
            return .tokens(.all, try tokens(in: container))
        case "CONTAINS_ANY_TOKENS":
            return .tokens(.any, try tokens(in: container))
        case "NEAR":
            return try near(decoder, container)
        default:
            throw DecodingError.invalid(Keys.comparator, in: container, "'\(comparator)' is not a comparator (\(comparators.joined(separator: ", ")))")
        }
    }

    /// The values of `IN` and its kin: `fieldValue` holding a list, or `fieldValues`.
    private static func aggregate(in container: KeyedDecodingContainer<Keys>) throws -> [WireFieldValue] {
        if let values = try container.decodeIfPresent([WireFieldValue].self, forKey: .fieldValues) {
            return values
        }
        guard case .list(let values) = try container.decode(WireFieldValue.self, forKey: .fieldValue) else {
            throw DecodingError.invalid(Keys.fieldValue, in: container, "the comparator compares with a list of values; send a list type such as STRING_LIST")
        }
        return values
    }

    /// The `STRING` of a prefix comparator.
    private static func string(in container: KeyedDecodingContainer<Keys>) throws -> String {
        guard case .string(let text) = try container.decode(WireFieldValue.self, forKey: .fieldValue) else {
            throw DecodingError.invalid(Keys.fieldValue, in: container, "a prefix comparator compares with a STRING")
        }
        return text
    }

    /// The tokens of a token search: a `STRING`, tokenized as CloudKit tokenizes text, or
    /// (Stratus) a `STRING_LIST` of them exactly. The field is `allTokens`, or none.
    private static func tokens(in container: KeyedDecodingContainer<Keys>) throws -> [String] {
        if let name = try container.decodeIfPresent(String.self, forKey: .fieldName), name != allTokens {
            throw DecodingError.invalid(Keys.fieldName, in: container, "a token search searches every string field: its fieldName is '\(allTokens)', not '\(name)'")
        }
        switch try container.decode(WireFieldValue.self, forKey: .fieldValue) {
        case .string(let text):
            return TextSearch.tokens(of: text)
        case .list(let elements):
            var tokens: [String] = []
            for element in elements {
                guard case .string(let token) = element else {
                    throw DecodingError.invalid(Keys.fieldValue, in: container, "the tokens of a token search are strings")
                }
                tokens.append(token)
            }
            return tokens
        default:
            throw DecodingError.invalid(Keys.fieldValue, in: container, "a token search searches for a STRING")
        }
    }

    /// `NEAR`: a `LOCATION` and a `distance` in metres (or the exact `kilometres`).
    private static func near(_ decoder: any Decoder, _ container: KeyedDecodingContainer<Keys>) throws -> WirePredicate {
        let field = try WireQueryField(from: decoder)
        guard case .location(let center) = try container.decode(WireFieldValue.self, forKey: .fieldValue) else {
            throw DecodingError.invalid(Keys.fieldValue, in: container, "NEAR measures the distance from a LOCATION")
        }
        let metres = try container.decode(Double.self, forKey: .distance)
        let kilometres = try container.decodeIfPresent(Double.self, forKey: .kilometres) ?? metres / 1000
        let inclusive = try container.decodeIfPresent(Bool.self, forKey: .inclusive) ?? false
        return .near(field, center: center, kilometres: kilometres, inclusive: inclusive)
    }
}
