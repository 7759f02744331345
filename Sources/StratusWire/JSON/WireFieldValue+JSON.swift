import Foundation

/// A field value as CloudKit Web Services writes it: `{"value": …, "type": "INT64"}`, with the
/// type names of live CKWS responses (`STRING`, `INT64`, `DOUBLE`, `TIMESTAMP`, `BYTES`,
/// `REFERENCE`, `ASSETID`, `LOCATION`, and `…_LIST` for lists; `UNKNOWN_LIST` for an empty
/// one). Dates are milliseconds since 1970 (with `stratusDate`, or `stratusDates` for a list,
/// when that is not exact), bytes base64. Decoding also takes `ASSET`, an INT64 written as a
/// string (CKWS's `numbersAsStrings`), and no `type` at all, inferring it from the value as
/// CKWS does (an integer is `INT64`, any other number `DOUBLE`); an unknown type name is
/// `invalidArguments` naming the key.
extension WireFieldValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case value, type, stratusDate, stratusDates
    }

    /// The CKWS name of a value's type.
    static func typeName(of kind: Kind) -> String {
        switch kind {
        case .string: "STRING"
        case .int64: "INT64"
        case .double: "DOUBLE"
        case .date: "TIMESTAMP"
        case .bytes: "BYTES"
        case .reference: "REFERENCE"
        case .asset: "ASSETID"
        case .location: "LOCATION"
        case .list(let element?): typeName(of: element) + "_LIST"
        case .list(nil): "UNKNOWN_LIST"
        }
    }

    /// The kind a CKWS type name names; nil for a name CKWS does not have.
    static func kind(named name: String) -> Kind? {
        if name.hasSuffix("_LIST") {
            let element = String(name.dropLast("_LIST".count))
            if element == "UNKNOWN" { return .list(nil) }
            guard let kind = self.kind(named: element), kind.isScalar else { return nil }
            return .list(kind)
        }
        return switch name {
        case "STRING": .string
        case "INT64": .int64
        case "DOUBLE": .double
        case "TIMESTAMP": .date
        case "BYTES": .bytes
        case "REFERENCE": .reference
        case "ASSETID", "ASSET": .asset
        case "LOCATION": .location
        default: nil
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.typeName(of: kind), forKey: .type)
        switch self {
        case .list(let elements):
            var values = container.nestedUnkeyedContainer(forKey: .value)
            for element in elements { try element.encodeBareValue(into: &values) }
            let exact = elements.map { element -> Double? in
                if case .date(let date) = element { return JSONTimestamp.exactSeconds(date) }
                return nil
            }
            if exact.contains(where: { $0 != nil }) {
                try container.encode(elements.map { element -> Double? in
                    if case .date(let date) = element { return date.timeIntervalSinceReferenceDate }
                    return nil
                }, forKey: .stratusDates)
            }
        case .date(let date):
            try container.encode(JSONTimestamp.milliseconds(date), forKey: .value)
            try container.encodeIfPresent(JSONTimestamp.exactSeconds(date), forKey: .stratusDate)
        default:
            try encodeScalar(into: &container)
        }
    }

    private func encodeScalar(into container: inout KeyedEncodingContainer<CodingKeys>) throws {
        switch self {
        case .string(let value): try container.encode(value, forKey: .value)
        case .int64(let value): try container.encode(value, forKey: .value)
        case .double(let value): try container.encode(value, forKey: .value)
        case .date(let value): try container.encode(JSONTimestamp.milliseconds(value), forKey: .value)
        case .bytes(let value): try container.encode(value.base64EncodedString(), forKey: .value)
        case .reference(let value): try container.encode(value, forKey: .value)
        case .asset(let value): try container.encode(value, forKey: .value)
        case .location(let value): try container.encode(value, forKey: .value)
        case .list: break
        }
    }

    /// The value alone, as a list element.
    private func encodeBareValue(into container: inout any UnkeyedEncodingContainer) throws {
        switch self {
        case .string(let value): try container.encode(value)
        case .int64(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .date(let value): try container.encode(JSONTimestamp.milliseconds(value))
        case .bytes(let value): try container.encode(value.base64EncodedString())
        case .reference(let value): try container.encode(value)
        case .asset(let value): try container.encode(value)
        case .location(let value): try container.encode(value)
        case .list: break
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind: Kind
        if let name = try container.decodeIfPresent(String.self, forKey: .type) {
            guard let named = Self.kind(named: name) else {
                throw DecodingError.invalid(CodingKeys.type, in: container, "'\(name)' is not a CloudKit field type")
            }
            kind = named
        } else {
            kind = try Self.inferredKind(in: container)
        }
        switch kind {
        case .list(let element):
            var values = try container.nestedUnkeyedContainer(forKey: .value)
            let exact = try container.decodeIfPresent([Double?].self, forKey: .stratusDates)
            var elements: [WireFieldValue] = []
            while !values.isAtEnd {
                guard let element else {
                    throw DecodingError.invalid(CodingKeys.value, in: container, "a list typed UNKNOWN_LIST must be empty")
                }
                let index = values.currentIndex
                elements.append(try Self.decodeBare(element, from: &values, exact: exact.flatMap { index < $0.count ? $0[index] : nil }))
            }
            self = .list(elements)
        case .date:
            let milliseconds = try container.decode(Double.self, forKey: .value)
            let exact = try container.decodeIfPresent(Double.self, forKey: .stratusDate)
            guard let date = JSONTimestamp.date(milliseconds: milliseconds, exact: exact) else {
                throw DecodingError.invalid(CodingKeys.value, in: container, "\(milliseconds) is not a timestamp")
            }
            self = .date(date)
        case .string: self = .string(try container.decode(String.self, forKey: .value))
        case .int64: self = .int64(try Self.decodeInt64(container, .value))
        case .double: self = .double(try container.decode(Double.self, forKey: .value))
        case .bytes:
            let text = try container.decode(String.self, forKey: .value)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.invalid(CodingKeys.value, in: container, "BYTES must be base64")
            }
            self = .bytes(data)
        case .reference: self = .reference(try container.decode(WireReference.self, forKey: .value))
        case .asset: self = .asset(try container.decode(WireAsset.self, forKey: .value))
        case .location: self = .location(try container.decode(WireLocation.self, forKey: .value))
        }
    }

    /// An INT64, as a number or (CKWS's `numbersAsStrings`) as a string.
    private static func decodeInt64(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int64 {
        if let text = try? container.decode(String.self, forKey: key) {
            guard let value = Int64(text) else { throw DecodingError.invalid(key, in: container, "'\(text)' is not a 64-bit integer") }
            return value
        }
        return try container.decode(Int64.self, forKey: key)
    }

    private static func decodeBare(_ kind: Kind, from container: inout any UnkeyedDecodingContainer, exact: Double?) throws -> WireFieldValue {
        switch kind {
        case .string: return .string(try container.decode(String.self))
        case .int64:
            if let text = try? container.decode(String.self) {
                guard let value = Int64(text) else {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a 64-bit integer")
                }
                return .int64(value)
            }
            return .int64(try container.decode(Int64.self))
        case .double: return .double(try container.decode(Double.self))
        case .date:
            let milliseconds = try container.decode(Double.self)
            guard let date = JSONTimestamp.date(milliseconds: milliseconds, exact: exact) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(milliseconds) is not a timestamp")
            }
            return .date(date)
        case .bytes:
            let text = try container.decode(String.self)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "BYTES must be base64")
            }
            return .bytes(data)
        case .reference: return .reference(try container.decode(WireReference.self))
        case .asset: return .asset(try container.decode(WireAsset.self))
        case .location: return .location(try container.decode(WireLocation.self))
        case .list: throw DecodingError.dataCorruptedError(in: container, debugDescription: "a list cannot hold a list")
        }
    }

    /// The type of a value sent without one, as CKWS infers it.
    private static func inferredKind(in container: KeyedDecodingContainer<CodingKeys>) throws -> Kind {
        if (try? container.decode(String.self, forKey: .value)) != nil { return .string }
        if (try? container.decode(Int64.self, forKey: .value)) != nil { return .int64 }
        if (try? container.decode(Double.self, forKey: .value)) != nil { return .double }
        if let list = try? container.decode([JSONShape].self, forKey: .value) {
            guard let first = list.first else { return .list(nil) }
            return .list(first.kind)
        }
        if let object = try? container.decode(JSONShape.self, forKey: .value), let kind = object.kind, kind.isScalar {
            return kind
        }
        throw DecodingError.invalid(CodingKeys.value, in: container, "the field value's type cannot be told from the value; send 'type'")
    }
}

extension WireFieldValue.Kind {
    /// Whether a list may hold values of this kind.
    var isScalar: Bool {
        if case .list = self { return false }
        return true
    }
}

/// The kind a JSON value looks like, for a field value sent without a type.
private struct JSONShape: Decodable {
    let kind: WireFieldValue.Kind?

    private enum Keys: String, CodingKey {
        case recordName, latitude, downloadURL, fileChecksum, receipt
    }

    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if (try? single.decode(String.self)) != nil { kind = .string; return }
            if (try? single.decode(Int64.self)) != nil { kind = .int64; return }
            if (try? single.decode(Double.self)) != nil { kind = .double; return }
        }
        let object = try decoder.container(keyedBy: Keys.self)
        if object.contains(.recordName) {
            kind = .reference
        } else if object.contains(.latitude) {
            kind = .location
        } else if object.contains(.downloadURL) || object.contains(.fileChecksum) || object.contains(.receipt) {
            kind = .asset
        } else {
            kind = nil
        }
    }
}
