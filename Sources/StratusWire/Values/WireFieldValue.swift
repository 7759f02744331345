import Foundation

/// One field value of a record, in CloudKit's schema types.
///
/// Integers of every width and booleans are stored as ``int64(_:)``, floating-point numbers as
/// ``double(_:)``, as CloudKit's schema does. A list holds values of one kind only and never
/// another list.
public indirect enum WireFieldValue: Hashable, Sendable {
    /// A `String` field.
    case string(String)
    /// An `Int(64)` field (also integers of other widths and booleans).
    case int64(Int64)
    /// A `Double` field (also `Float`).
    case double(Double)
    /// A `Date/Time` field.
    case date(Date)
    /// A `Bytes` field.
    case bytes(Data)
    /// A `Reference` field.
    case reference(WireReference)
    /// An `Asset` field.
    case asset(WireAsset)
    /// A `Location` field.
    case location(WireLocation)
    /// A `List` field: homogeneous, never nested.
    case list([WireFieldValue])

    /// The schema type of this value, as CloudKit's dashboard names it.
    public var kind: Kind {
        switch self {
        case .string: .string
        case .int64: .int64
        case .double: .double
        case .date: .date
        case .bytes: .bytes
        case .reference: .reference
        case .asset: .asset
        case .location: .location
        case .list(let elements): .list(elements.first?.kind)
        }
    }

    /// The schema type of a field value.
    public indirect enum Kind: Hashable, Sendable, CustomStringConvertible {
        /// `String`.
        case string
        /// `Int(64)`.
        case int64
        /// `Double`.
        case double
        /// `Date/Time`.
        case date
        /// `Bytes`.
        case bytes
        /// `Reference`.
        case reference
        /// `Asset`.
        case asset
        /// `Location`.
        case location
        /// `List` of the given element type; nil for an empty list, whose type is not known.
        case list(Kind?)

        /// The dashboard's name for the type, such as `Int(64)` or `List<String>`.
        public var description: String {
            switch self {
            case .string: "String"
            case .int64: "Int(64)"
            case .double: "Double"
            case .date: "Date/Time"
            case .bytes: "Bytes"
            case .reference: "Reference"
            case .asset: "Asset"
            case .location: "Location"
            case .list(let element?): "List<\(element)>"
            case .list(nil): "List"
            }
        }
    }
}

extension WireFieldValue {
    /// Whether the value is an asset or a list holding one.
    public var holdsAsset: Bool {
        switch self {
        case .asset: true
        case .list(let values): values.contains(where: \.holdsAsset)
        default: false
        }
    }
}

extension WireFieldValue: CustomStringConvertible {
    /// The value as a developer reads it: `"text"`, `12`, `2.5`, a date, `<3 bytes>`, a
    /// reference's record name, an asset's local file or checksum, or a bracketed list. A date that is not a
    /// number (which no record holds) reads `date(nan)`: Foundation's description of such a
    /// date traps on Linux.
    public var description: String {
        switch self {
        case .string(let value): "\"\(value)\""
        case .int64(let value): "\(value)"
        case .double(let value): "\(value)"
        case .date(let value) where value.timeIntervalSinceReferenceDate.isNaN: "date(nan)"
        case .date(let value): "\(value)"
        case .bytes(let value): "<\(value.count) bytes>"
        case .reference(let value): "->\(value.recordID.recordName)\(value.action == .deleteSelf ? " (deleteSelf)" : "")"
        case .asset(let value): "asset(\(value.localFileURL?.path ?? value.fileChecksum ?? "no file"))"
        case .location(let value): "\(value)"
        case .list(let values): "[\(values.map(\.description).joined(separator: ", "))]"
        }
    }
}
