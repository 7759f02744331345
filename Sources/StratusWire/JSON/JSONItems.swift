import Foundation

/// Per-item results as CloudKit Web Services writes them: an array with one element per item,
/// in request order, each the value's own dictionary or an error dictionary (told apart by
/// `serverErrorCode`), with the item's ID keys beside it (`recordName` and `zoneID` for a
/// record, `zoneID` for a zone, `subscriptionID` for a subscription, …). A success without a
/// value (a deletion) is `{"deleted": true}`.
enum JSONItems {
    /// Writes `results` into `container`: `id` writes an item's ID keys, `value` its value.
    static func encode<ID, Value>(
        _ results: [WireItemResult<ID, Value>],
        into container: inout any UnkeyedEncodingContainer,
        id: (ID, any Encoder) throws -> Void,
        value: (Value, any Encoder) throws -> Void
    ) throws {
        for item in results {
            let encoder = container.superEncoder()
            switch item.result {
            case .success(let success): try value(success, encoder)
            case .failure(let error): try error.encode(to: encoder)
            }
            try id(item.id, encoder)
        }
    }

    /// Reads what ``encode(_:into:id:value:)`` wrote.
    static func decode<ID, Value>(
        from container: inout any UnkeyedDecodingContainer,
        id: (any Decoder) throws -> ID,
        value: (any Decoder) throws -> Value
    ) throws -> [WireItemResult<ID, Value>] {
        var results: [WireItemResult<ID, Value>] = []
        while !container.isAtEnd {
            let decoder = try container.superDecoder()
            let itemID = try id(decoder)
            let isError = try decoder.container(keyedBy: JSONKey.self).contains(JSONKey("serverErrorCode"))
            results.append(WireItemResult(id: itemID, result: isError ? .failure(try WireError(from: decoder)) : .success(try value(decoder))))
        }
        return results
    }

    // MARK: - Results whose values carry their own ID

    /// Records: `recordName` and `zoneID` beside (the record ID's own dictionary), `stratusRecordID` when the record's differs.
    static var records: JSONOwnIDResults<WireRecordID, WireRecord> {
        JSONOwnIDResults(ownIDKey: JSONKey("stratusRecordID"), ownID: \.recordID, encodeID: JSONItems.encodeValue, decodeID: JSONItems.decodeValue)
    }

    /// A zone's ID: `zoneID`.
    static let zoneID = WireJSONCoder<WireZoneID>.keyed("zoneID")

    /// Zones: `zoneID` beside, `stratusZoneID` when the zone's differs.
    static var zones: JSONOwnIDResults<WireZoneID, WireZone> {
        JSONOwnIDResults(ownIDKey: JSONKey("stratusZoneID"), ownID: \.zoneID, encodeID: zoneID.encode, decodeID: zoneID.decode)
    }

    // MARK: - Values

    /// A success without a value: `{"deleted": true}`.
    static func encodeDeleted(_: Void, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(true, forKey: JSONKey("deleted"))
    }

    /// A `Codable` value's own dictionary.
    static func encodeValue<Value: Encodable>(_ value: Value, to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }

    /// Reads ``encodeValue(_:to:)``.
    static func decodeValue<Value: Decodable>(from decoder: any Decoder) throws -> Value {
        try Value(from: decoder)
    }
}

/// A modify request's operations as CKWS shapes them: `{"operations": [{"operationType":
/// "create", KEY: {…}}, …, {"operationType": "delete", KEY: {…}}]}`, the saves first, then
/// the deletes, each in order.
enum JSONOperations {
    /// A modify request whose saves are `Codable` items under `itemKey` and whose deletes
    /// `delete` writes there: ``encode(saves:deletes:under:to:writingDelete:)`` and
    /// ``decode(under:saveTypes:savesFirst:what:from:readingDelete:)``, the context read beside.
    static func coder<Endpoint: WireItemEndpoint>(
        under itemKey: String, saveTypes: Set<String>, savesFirst: Bool, what: String, delete: WireJSONCoder<Endpoint.ID>
    ) -> WireJSONCoder<WireModifyRequest<Endpoint>> where Endpoint.Value: Codable {
        WireJSONCoder { request, encoder in
            try encode(saves: request.saves, deletes: request.deletes, under: itemKey, to: encoder, writingDelete: delete.encode)
        } decode: { decoder in
            let (saves, deletes): ([Endpoint.Value], [Endpoint.ID]) = try decode(
                under: itemKey, saveTypes: saveTypes, savesFirst: savesFirst, what: what, from: decoder, readingDelete: delete.decode
            )
            return WireModifyRequest(context: try decoder.requestContext(), saves: saves, deletes: deletes)
        }
    }

    /// Writes the saves as `create` operations, then the deletes as `delete` ones.
    static func encode<Save: Encodable, Delete>(
        saves: [Save], deletes: [Delete], under itemKey: String, to encoder: any Encoder,
        writingDelete writeDelete: (Delete, any Encoder) throws -> Void
    ) throws {
        var list = JSONKey.list(under: "operations", of: encoder)
        for save in saves {
            var operation = list.nestedContainer(keyedBy: JSONKey.self)
            try operation.encode("create", forKey: JSONKey("operationType"))
            try operation.encode(save, forKey: JSONKey(itemKey))
        }
        for delete in deletes {
            var operation = list.nestedContainer(keyedBy: JSONKey.self)
            try operation.encode("delete", forKey: JSONKey("operationType"))
            try writeDelete(delete, operation.superEncoder(forKey: JSONKey(itemKey)))
        }
    }

    /// Reads the operations: those of `saveTypes` as saves, `delete` as deletes. Any other
    /// type is `invalidArguments` naming `operations[i].operationType` (`what` says what the
    /// types are); so is a save after a delete when `savesFirst`.
    static func decode<Save: Decodable, Delete>(
        under itemKey: String, saveTypes: Set<String>, savesFirst: Bool, what: String, from decoder: any Decoder,
        readingDelete readDelete: (any Decoder) throws -> Delete
    ) throws -> (saves: [Save], deletes: [Delete]) {
        var list = try JSONKey.list(under: "operations", of: decoder)
        var saves: [Save] = []
        var deletes: [Delete] = []
        let typeKey = JSONKey("operationType")
        while !list.isAtEnd {
            let operation = try list.nestedContainer(keyedBy: JSONKey.self)
            let type = try operation.decode(String.self, forKey: typeKey)
            if saveTypes.contains(type) {
                guard !savesFirst || deletes.isEmpty else {
                    throw DecodingError.invalid(typeKey, in: operation, "a save cannot follow a delete: a modify lists its saves, then its deletes")
                }
                saves.append(try operation.decode(Save.self, forKey: JSONKey(itemKey)))
            } else if type == "delete" {
                deletes.append(try readDelete(try operation.superDecoder(forKey: JSONKey(itemKey))))
            } else {
                throw DecodingError.invalid(typeKey, in: operation, "'\(type)' is not a \(what)")
            }
        }
        return (saves, deletes)
    }
}

/// Per-item results whose successes carry an ID of their own (records, zones): the value's
/// own ID, when it is not the item's byte for byte (a server may name the owner as it knows
/// it), goes beside the value's dictionary under a Stratus extension key (`stratusRecordID`,
/// `stratusZoneID`).
struct JSONOwnIDResults<ID: Codable & Hashable & Sendable, Value: Codable & Sendable>: Sendable {
    let ownIDKey: JSONKey
    let ownID: WritableKeyPath<Value, ID> & Sendable
    let encodeID: @Sendable (ID, any Encoder) throws -> Void
    let decodeID: @Sendable (any Decoder) throws -> ID

    /// Writes `results` into `container`.
    func encode(_ results: [WireItemResult<ID, Value>], into container: inout any UnkeyedEncodingContainer) throws {
        let paired = results.map { item in WireItemResult(id: item.id, result: item.result.map { (item.id, $0) }) }
        try JSONItems.encode(paired, into: &container, id: encodeID) { pair, encoder in
            let (itemID, value) = pair
            try value.encode(to: encoder)
            if value[keyPath: ownID] != itemID {
                var keyed = encoder.container(keyedBy: JSONKey.self)
                try keyed.encode(value[keyPath: ownID], forKey: ownIDKey)
            }
        }
    }

    /// Reads a value that ``encode(_:into:)`` wrote.
    func decodeValue(from decoder: any Decoder) throws -> Value {
        var value = try Value(from: decoder)
        if let own = try decoder.container(keyedBy: JSONKey.self).decodeIfPresent(ID.self, forKey: ownIDKey) {
            value[keyPath: ownID] = own
        }
        return value
    }
}

