import Foundation

/// A query predicate as it crosses the client/server boundary: the CloudKit subset of
/// `NSPredicate`, parsed and checked, as a plain value.
///
/// The cases follow CloudKit Web Services' filter comparators. Only what CloudKit accepts can
/// be expressed: conjunctions (no `OR`), negations of simple comparisons, comparisons,
/// ranges, membership, prefixes, full-text token search and distance from a location.
public indirect enum WirePredicate: Hashable, Sendable {
    /// `TRUEPREDICATE` or `FALSEPREDICATE`.
    case constant(Bool)
    /// All of the predicates hold (`AND`, `&&`).
    case and([WirePredicate])
    /// The predicate does not hold (`NOT`, `!`) — never around `AND`, `BETWEEN` or token search.
    case not(WirePredicate)
    /// `field op value`: `==`, `!=`, `<`, `<=`, `>`, `>=`.
    case compare(WireQueryField, WireComparison, WireQueryOperand)
    /// `field BETWEEN {low, high}`, both ends included.
    case between(WireQueryField, WireQueryOperand, WireQueryOperand)
    /// `field IN {a, b}`: the field equals one of the values.
    case isIn(WireQueryField, [WireFieldValue])
    /// `'v' IN listField`, `listField CONTAINS 'v'`, `ANY listField == 'v'`.
    case listContains(WireQueryField, WireFieldValue)
    /// `ANY listField IN {a, b}`: some element equals one of the values.
    case listContainsAny(WireQueryField, [WireFieldValue])
    /// `field BEGINSWITH 'prefix'`: case- and diacritic-sensitive.
    case beginsWith(WireQueryField, String)
    /// `ANY listField BEGINSWITH 'prefix'`.
    case listMemberBeginsWith(WireQueryField, String)
    /// Full-text search of the record's string fields: `self CONTAINS 'a b'` (any token) or
    /// `ALL tokenize(%@, 'Cdl') IN allTokens` (every token). Tokens are already normalized.
    case tokens(WireTokenMatch, [String])
    /// `distanceToLocation:fromLocation:(field, center) < radius` (or `<=` when `inclusive`):
    /// the field holds a location within `kilometres` of `center`, measured as
    /// ``EarthDistance/geodesic(_:_:)`` measures. CloudKit searches only inside a circle, never
    /// outside one.
    case near(WireQueryField, center: WireLocation, kilometres: Double, inclusive: Bool)
}

/// What a predicate compares: a field of the record, or one of its system fields.
public enum WireQueryField: Hashable, Sendable, CustomStringConvertible {
    /// A field the app defined.
    case field(String)
    /// `recordID` (`___recordID`): compared as a reference to the record.
    case recordID
    /// `creationDate` (`___createTime`).
    case creationDate
    /// `modificationDate` (`___modTime`).
    case modificationDate
    /// `creatorUserRecordID` (`___createdBy`).
    case creatorUserRecordID
    /// `lastModifiedUserRecordID` (`___modifiedBy`).
    case lastModifiedUserRecordID
    /// `parent` (`___parent`).
    case parent
    /// `share` (`___share`).
    case share

    /// The field named `key`, recognising the system fields by both their Swift and their
    /// CloudKit key names.
    public init(key: String) {
        switch key {
        case "recordID", "___recordID": self = .recordID
        case "creationDate", "___createTime": self = .creationDate
        case "modificationDate", "___modTime": self = .modificationDate
        case "creatorUserRecordID", "___createdBy": self = .creatorUserRecordID
        case "lastModifiedUserRecordID", "___modifiedBy": self = .lastModifiedUserRecordID
        case "parent", "___parent": self = .parent
        case "share", "___share": self = .share
        default: self = .field(key)
        }
    }

    /// The key as a predicate names it.
    public var description: String {
        switch self {
        case .field(let key): key
        case .recordID: "recordID"
        case .creationDate: "creationDate"
        case .modificationDate: "modificationDate"
        case .creatorUserRecordID: "creatorUserRecordID"
        case .lastModifiedUserRecordID: "lastModifiedUserRecordID"
        case .parent: "parent"
        case .share: "share"
        }
    }
}

/// An ordering or equality comparison.
public enum WireComparison: String, Hashable, Sendable {
    /// `==`, `=`.
    case equal = "=="
    /// `!=`, `<>`.
    case notEqual = "!="
    /// `<`.
    case less = "<"
    /// `<=`, `=<`.
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=`, `=>`.
    case greaterOrEqual = ">="
}

/// The right-hand side of a comparison: a value, or `now`, the server's time when the query runs.
public enum WireQueryOperand: Hashable, Sendable {
    /// A value given in the predicate.
    case value(WireFieldValue)
    /// The function `now()`.
    case now
}

/// How token search combines its tokens.
public enum WireTokenMatch: Hashable, Sendable {
    /// A record matches when it holds any of the tokens.
    case any
    /// A record matches when it holds every token.
    case all
}
