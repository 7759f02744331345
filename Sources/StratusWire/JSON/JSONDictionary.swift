import Foundation

/// One key of a flat JSON dictionary: the property of `Root` it carries, and how its value is
/// written and read.
struct JSONField<Root, Value>: Sendable {
    let key: JSONKey
    let write: @Sendable (Root, inout KeyedEncodingContainer<JSONKey>, JSONKey) throws -> Void
    let read: @Sendable (KeyedDecodingContainer<JSONKey>, JSONKey, any Decoder) throws -> Value

    /// A key that must be there.
    static func required(_ key: String, _ property: KeyPath<Root, Value> & Sendable) -> Self where Value: Codable & Sendable {
        JSONField(key: JSONKey(key)) { root, container, key in
            try container.encode(root[keyPath: property], forKey: key)
        } read: { container, key, _ in
            try container.decode(Value.self, forKey: key)
        }
    }

    /// A key that may be missing (or `null`): nil then, and not written for nil.
    static func optional<Wrapped: Codable & Sendable>(_ key: String, _ property: KeyPath<Root, Wrapped?> & Sendable) -> Self where Value == Wrapped? {
        JSONField(key: JSONKey(key)) { root, container, key in
            try container.encodeIfPresent(root[keyPath: property], forKey: key)
        } read: { container, key, _ in
            try container.decodeIfPresent(Wrapped.self, forKey: key)
        }
    }

    /// A key that may be missing, read as `absent` then.
    static func optional(_ key: String, _ property: KeyPath<Root, Value> & Sendable, absent: Value) -> Self where Value: Codable & Sendable {
        JSONField(key: JSONKey(key)) { root, container, key in
            try container.encode(root[keyPath: property], forKey: key)
        } read: { container, key, _ in
            try container.decodeIfPresent(Value.self, forKey: key) ?? absent
        }
    }

    /// An integer that must be there (``JSONInteger``: a number out of range names its key).
    static func integer(_ key: String, _ property: KeyPath<Root, Int> & Sendable) -> Self where Value == Int {
        JSONField(key: JSONKey(key)) { root, container, key in
            try container.encode(root[keyPath: property], forKey: key)
        } read: { container, key, _ in
            try JSONInteger.decode(forKey: key, in: container)
        }
    }

    /// An integer that may be missing (or `null`): nil then, and not written for nil.
    static func integer(_ key: String, _ property: KeyPath<Root, Int?> & Sendable) -> Self where Value == Int? {
        JSONField(key: JSONKey(key)) { root, container, key in
            try container.encodeIfPresent(root[keyPath: property], forKey: key)
        } read: { container, key, _ in
            try JSONInteger.decodeIfPresent(forKey: key, in: container)
        }
    }

    /// Bytes as a standard base64 string that must be there (an asset's contents).
    static func data(_ key: String, _ property: KeyPath<Root, Data> & Sendable) -> Self where Value == Data {
        JSONField(key: JSONKey(key)) { root, container, key in
            try container.encode(root[keyPath: property].base64EncodedString(), forKey: key)
        } read: { container, key, _ in
            let text = try container.decode(String.self, forKey: key)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.invalid(key, in: container, "'\(text.prefix(40))' is not a base64 string")
            }
            return data
        }
    }

    /// A results limit: left out when it is 0 (the server chooses), and 0 when missing.
    static func limit(_ key: String, _ property: KeyPath<Root, Int> & Sendable) -> Self where Value == Int {
        JSONField(key: JSONKey(key)) { root, container, key in
            let limit = root[keyPath: property]
            if limit != 0 { try container.encode(limit, forKey: key) }
        } read: { container, key, _ in
            try JSONInteger.decodeIfPresent(forKey: key, in: container) ?? 0
        }
    }

    /// Opaque bytes (a token or a cursor) as a base64 string (``JSONOpaqueBytes``), which may
    /// be missing.
    static func bytes(_ key: String, _ property: KeyPath<Root, [UInt8]?> & Sendable) -> Self where Value == [UInt8]? {
        JSONField(key: JSONKey(key)) { root, container, key in
            try JSONOpaqueBytes.encode(root[keyPath: property], forKey: key, in: &container)
        } read: { container, key, _ in
            try JSONOpaqueBytes.decode(forKey: key, in: container)
        }
    }

    /// Opaque bytes as a base64 string that must be there: a change fetch's next token.
    static func bytes(_ key: String, _ property: KeyPath<Root, [UInt8]> & Sendable) -> Self where Value == [UInt8] {
        JSONField(key: JSONKey(key)) { root, container, key in
            try JSONOpaqueBytes.encode(root[keyPath: property], forKey: key, in: &container)
        } read: { container, key, _ in
            guard let bytes = try JSONOpaqueBytes.decode(forKey: key, in: container) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: container.codingPath, debugDescription: "the answer carries the token to fetch from next time"))
            }
            return bytes
        }
    }

    /// A list under `key`, written and read element by element by `write` and `read`.
    private static func list(
        _ key: String, _ property: KeyPath<Root, Value> & Sendable,
        write: @escaping @Sendable (Value, inout any UnkeyedEncodingContainer) throws -> Void,
        read: @escaping @Sendable (inout any UnkeyedDecodingContainer) throws -> Value
    ) -> Self {
        JSONField(key: JSONKey(key)) { root, container, key in
            var list: any UnkeyedEncodingContainer = container.nestedUnkeyedContainer(forKey: key)
            try write(root[keyPath: property], &list)
        } read: { container, key, _ in
            var list: any UnkeyedDecodingContainer = try container.nestedUnkeyedContainer(forKey: key)
            return try read(&list)
        }
    }

    /// Per-item results as CKWS lists them under `key` (``JSONItems``): each item's value or
    /// error, with its ID beside.
    static func results<ID, Item>(
        _ key: String, _ property: KeyPath<Root, [WireItemResult<ID, Item>]> & Sendable, id: WireJSONCoder<ID>, value: WireJSONCoder<Item>
    ) -> Self where Value == [WireItemResult<ID, Item>] {
        list(key, property) { results, list in
            try JSONItems.encode(results, into: &list, id: id.encode, value: value.encode)
        } read: { list in
            try JSONItems.decode(from: &list, id: id.decode, value: value.decode)
        }
    }

    /// Per-item results whose values carry their own ID (``JSONOwnIDResults``: records,
    /// zones) as CKWS lists them under `key`.
    static func results<ID, Item>(
        _ key: String, _ property: KeyPath<Root, [WireItemResult<ID, Item>]> & Sendable, ownID coding: JSONOwnIDResults<ID, Item>
    ) -> Self where Value == [WireItemResult<ID, Item>] {
        list(key, property) { results, list in
            try coding.encode(results, into: &list)
        } read: { list in
            try JSONItems.decode(from: &list, id: coding.decodeID, value: coding.decodeValue)
        }
    }

    /// String IDs as CKWS lists them in a lookup: `{key: [{idKey: …}, …]}`.
    static func ids(_ key: String, as idKey: String, _ property: KeyPath<Root, [String]> & Sendable) -> Self where Value == [String] {
        list(key, property) { ids, list in
            for id in ids { try JSONKey.encode(id, under: idKey, to: list.superEncoder()) }
        } read: { list in
            var ids: [String] = []
            while !list.isAtEnd { ids.append(try JSONKey.decode(String.self, under: idKey, from: try list.superDecoder())) }
            return ids
        }
    }

    /// A request's ``WireRequestContext``: not written (it travels beside the body), read
    /// from the decoder (``WireJSON/decode(_:from:context:)``).
    static func context(_ property: KeyPath<Root, WireRequestContext> & Sendable) -> Self where Value == WireRequestContext {
        JSONField(key: JSONKey("")) { _, _, _ in
        } read: { _, _, decoder in
            try decoder.requestContext()
        }
    }
}

/// A value that crosses as a flat JSON dictionary, one ``JSONField`` per key: written key by
/// key in order, and read by handing each field's value, in the same order, to `make` (the
/// type's memberwise initializer). Every flat dictionary is declared this way; a type whose
/// keys depend on each other (one key or another, a list mixing two kinds of element, a value
/// spread over several keys) writes its `Codable` conformance by hand.
///
/// ```swift
/// extension WireSession: Codable {
///     private static var json: JSONDictionary<Self, String, String?> {
///         JSONDictionary(Self.init, .required("deviceID", \.deviceID), .optional("ckWebAuthToken", \.sessionToken))
///     }
///     public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
///     public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
/// }
/// ```
struct JSONDictionary<Root, each Value>: Sendable {
    let make: @Sendable (repeat each Value) -> Root
    let fields: (repeat JSONField<Root, each Value>)

    init(_ make: @escaping @Sendable (repeat each Value) -> Root, _ fields: repeat JSONField<Root, each Value>) {
        self.make = make
        self.fields = (repeat each fields)
    }

    /// Writes `root`'s fields.
    func encode(_ root: Root, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        for field in repeat each fields {
            try field.write(root, &container, field.key)
        }
    }

    /// Reads the fields and makes the value.
    func decode(from decoder: any Decoder) throws -> Root {
        let container = try decoder.container(keyedBy: JSONKey.self)
        return make(repeat try (each fields).read(container, (each fields).key, decoder))
    }
}

extension JSONDictionary {
    /// The dictionary as a ``WireJSONCoder``.
    var coder: WireJSONCoder<Root> {
        WireJSONCoder(encode: { root, encoder in try encode(root, to: encoder) }, decode: { decoder in try decode(from: decoder) })
    }
}

/// How a value is written into an encoder and read back: one part of a per-item result (its
/// ID, or its value) in the item's dictionary (``JSONItems``), or a whole request or response of
/// a batch endpoint family (``WireJSONItemsRequestEndpoint`` and its siblings). Only StratusWire
/// makes them.
public struct WireJSONCoder<Value>: Sendable {
    let encode: @Sendable (Value, any Encoder) throws -> Void
    let decode: @Sendable (any Decoder) throws -> Value
}

extension WireJSONCoder where Value: Codable & Sendable {
    /// A `Codable` value's own dictionary.
    static var value: Self { WireJSONCoder(encode: JSONItems.encodeValue, decode: JSONItems.decodeValue) }

    /// The value under `key` of the item's dictionary, such as a `subscriptionID` string or a
    /// share participant's `lookupInfo`.
    static func keyed(_ key: String) -> Self {
        WireJSONCoder { value, encoder in try JSONKey.encode(value, under: key, to: encoder) } decode: { decoder in try JSONKey.decode(Value.self, under: key, from: decoder) }
    }
}

