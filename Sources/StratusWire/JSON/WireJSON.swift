import Foundation

/// The one JSON encoding of what crosses a `CloudService`: CloudKit Web Services' shapes where
/// CKWS has the endpoint (the record dictionary, field values typed as CKWS types them, zone IDs
/// with `ownerRecordName`, the `serverErrorCode`/`reason`/`retryAfter` error envelope), and
/// documented Stratus extensions in the same style where it has none.
///
/// Every wire value and every request and response of ``CloudService`` is `Codable` in this
/// shape; encode and decode them through ``encode(_:)`` and ``decode(_:from:)``, which fix the
/// coder settings and turn any decoding failure into ``CKErrorCode/invalidArguments`` naming the
/// key. Keys a decoder does not know are ignored, as CKWS clients ignore them.
///
/// Where CKWS's shape loses something, a Stratus peer adds extension keys beside CKWS's own
/// (Apple's service never sends them, and its clients ignore them); each type's doc comment names
/// its keys. The main ones: `stratusDate` beside a millisecond timestamp that does not give the
/// date back exactly; `ckErrorCode` and `serverRecord` in an error; `zoneID` inside a record,
/// reference or lookup item (a Stratus request may span zones); `stratusPredicate` for a
/// predicate CKWS's `filterBy` cannot say; `savePolicy`, `clientChangeTokenData` and
/// `parentChanged` in `records/modify`; `shareURL` beside a share's short GUID.
public enum WireJSON {
    /// `value` as JSON, keys sorted.
    ///
    /// - Throws: ``CKErrorCode/internalError`` when a value cannot be encoded (no wire value
    ///   holds one that cannot).
    public static func encode<Value: Encodable>(_ value: Value) throws(WireError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do {
            return try encoder.encode(value)
        } catch {
            throw WireError(.internalError, "could not encode \(Value.self) as JSON: \(error)")
        }
    }

    /// The `userInfo` key under which a decoder carries the ``WireRequestContext`` of the request
    /// it decodes: a request's JSON is CloudKit Web Services' body, and its context travels
    /// apart (in the URL and the credentials over HTTP, on its own in ``decode(_:from:context:)``).
    public static let contextKey = CodingUserInfoKey(rawValue: "stratus.requestContext")

    /// A request from JSON: its body, under `context`.
    ///
    /// - Throws: ``CKErrorCode/invalidArguments`` as ``decode(_:from:)`` does.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, context: WireRequestContext) throws(WireError) -> Value {
        try decode(type, from: data, userInfo: contextKey.map { [$0: context] } ?? [:])
    }

    /// A `Value` from JSON.
    ///
    /// - Throws: ``CKErrorCode/invalidArguments`` naming the key and what was wrong, for
    ///   anything that is not this value's JSON: malformed text, a missing key, a value of the
    ///   wrong type, a number out of range, an unknown enumeration string, nesting too deep.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws(WireError) -> Value {
        try decode(type, from: data, userInfo: [:])
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, userInfo: [CodingUserInfoKey: any Sendable]) throws(WireError) -> Value {
        let decoder = JSONDecoder()
        decoder.userInfo = userInfo
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do {
            return try decoder.decode(type, from: data)
        } catch let error as WireError {
            throw error
        } catch let error as DecodingError {
            throw WireError(.invalidArguments, describe(error))
        } catch {
            throw WireError(.invalidArguments, "the body is not valid JSON: \(error)")
        }
    }

    /// What a decoding failure says: where (`records[2].fields.title.value`) and what.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "key '\(path(context.codingPath + [key]))' is missing"
        case .typeMismatch(let type, let context):
            return "key '\(path(context.codingPath))' is not \(article(for: type)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "key '\(path(context.codingPath))' is null where \(article(for: type)) is needed"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "the body is not valid JSON: \(context.debugDescription)"
                : "key '\(path(context.codingPath))': \(context.debugDescription)"
        @unknown default:
            return "the body is not valid: \(error)"
        }
    }

    /// A coding path as a reader writes it: `records[2].fields.title`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "(top level)" : text
    }

    private static func article(for type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is UInt64.Type: "an integer"
        case is Double.Type: "a number"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default: "a \(type)"
        }
    }
}

/// A coding key made from any string or index: the keys of a record's `fields`.
struct JSONKey: CodingKey, Hashable {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init?(stringValue: String) {
        self.init(stringValue)
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension JSONKey {
    /// Writes `value` as the one key of a dictionary: CKWS's bodies that hold one thing
    /// (`{"zones": […]}`).
    static func encode<Value: Encodable>(_ value: Value, under key: String, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(value, forKey: JSONKey(key))
    }

    /// Reads what ``encode(_:under:to:)`` wrote.
    static func decode<Value: Decodable>(_ type: Value.Type, under key: String, from decoder: any Decoder) throws -> Value {
        try decoder.container(keyedBy: JSONKey.self).decode(type, forKey: JSONKey(key))
    }

    /// The list under `key`, the one key of a dictionary, to write per-item results into.
    static func list(under key: String, of encoder: any Encoder) -> any UnkeyedEncodingContainer {
        var container = encoder.container(keyedBy: JSONKey.self)
        return container.nestedUnkeyedContainer(forKey: JSONKey(key))
    }

    /// The list under `key`, to read per-item results from.
    static func list(under key: String, of decoder: any Decoder) throws -> any UnkeyedDecodingContainer {
        try decoder.container(keyedBy: JSONKey.self).nestedUnkeyedContainer(forKey: JSONKey(key))
    }
}

extension Decoder {
    /// The context of the request being decoded (``WireJSON/decode(_:from:context:)``).
    ///
    /// - Throws: A decoding error when the decoder was given none.
    func requestContext() throws -> WireRequestContext {
        guard let key = WireJSON.contextKey, let context = userInfo[key] as? WireRequestContext else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "a request decodes only with its context"))
        }
        return context
    }
}

extension DecodingError {
    /// A value of the right type that the wire does not allow (an unknown enumeration string,
    /// a list of lists), at `key` of `container`.
    static func invalid<Key: CodingKey>(_ key: Key, in container: KeyedDecodingContainer<Key>, _ message: String) -> DecodingError {
        .dataCorruptedError(forKey: key, in: container, debugDescription: message)
    }
}
