import Foundation

/// A save policy as a Stratus extension names it (CloudKit Web Services has none: each of its
/// operations carries its own `operationType`): `IF_SERVER_RECORD_UNCHANGED`, `CHANGED_KEYS`,
/// `ALL_KEYS`.
extension WireSavePolicy: Codable {
    private static let names: [(Self, String)] = [
        (.ifServerRecordUnchanged, "IF_SERVER_RECORD_UNCHANGED"), (.changedKeys, "CHANGED_KEYS"), (.allKeys, "ALL_KEYS"),
    ]

    /// The policy's name.
    var jsonName: String {
        Self.names.first { $0.0 == self }?.1 ?? "IF_SERVER_RECORD_UNCHANGED"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(jsonName)
    }

    public init(from decoder: any Decoder) throws {
        self = try JSONEnumeration.decode(from: decoder, Self.names, what: "a save policy")
    }

    /// The CKWS `operationType` of a save under this policy, as the reference's §4.2 maps
    /// `CKModifyRecordsOperation`: a record the server never saved (no change tag) is `create`
    /// under `ifServerRecordUnchanged`, a fetched one `update`; `changedKeys` and `allKeys` save
    /// without comparing tags, `forceUpdate`. (`allKeys` sends every key the record has, but
    /// leaves keys it does not have as the server has them, as `forceUpdate` does; CKWS's
    /// `forceReplace` would clear those.)
    func operationType(hasChangeTag: Bool) -> String {
        switch self {
        case .ifServerRecordUnchanged: hasChangeTag ? "update" : "create"
        case .changedKeys, .allKeys: "forceUpdate"
        }
    }
}

/// `records/lookup` as CloudKit Web Services shapes it: `{"records": [{recordName, zoneID}],
/// "zoneID": {…}, "desiredKeys": […]}`. Each item carries its zone (a Stratus request may span
/// zones); the top-level `zoneID` is written when every record is in one zone, as a CKWS
/// server reads it, and an item without `zoneID` is in it (the default zone when it is absent
/// too). `desiredKeys` absent returns every field, `[]` only system fields. A per-item
/// `desiredKeys` is read only when it leaves every item with the same keys (Stratus asks for
/// one set per request); `numbersAsStrings` is not read.
extension WireRecordsLookupRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case records, zoneID, desiredKeys
    }

    private enum ItemKeys: String, CodingKey {
        case recordName, zoneID, desiredKeys
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(recordIDs, forKey: .records)
        try container.encodeIfPresent(JSONRequestZone.common(recordIDs.map(\.zoneID)), forKey: .zoneID)
        try container.encodeIfPresent(desiredKeys, forKey: .desiredKeys)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let zoneID = try container.decodeIfPresent(WireZoneID.self, forKey: .zoneID) ?? .defaultZone
        let requestKeys = try container.decodeIfPresent([String].self, forKey: .desiredKeys)
        var items = try container.nestedUnkeyedContainer(forKey: .records)
        var recordIDs: [WireRecordID] = []
        var itemKeys: [String]? = requestKeys
        while !items.isAtEnd {
            let item = try items.nestedContainer(keyedBy: ItemKeys.self)
            let keys = try item.decodeIfPresent([String].self, forKey: .desiredKeys) ?? requestKeys
            if recordIDs.isEmpty {
                itemKeys = keys
            } else if keys != itemKeys {
                throw DecodingError.invalid(ItemKeys.desiredKeys, in: item, "every record of a lookup must ask for the same desiredKeys")
            }
            recordIDs.append(WireRecordID(
                recordName: try item.decode(String.self, forKey: .recordName),
                zoneID: try item.decodeIfPresent(WireZoneID.self, forKey: .zoneID) ?? zoneID
            ))
        }
        self.init(context: try decoder.requestContext(), recordIDs: recordIDs, desiredKeys: itemKeys)
    }
}

/// The `records/*` answers as CKWS writes them.
extension WireRecordsEndpoint: WireJSONItemsResponseEndpoint, WireJSONModifyResponseEndpoint {
    /// The answer to `records/lookup`: `{"records": […]}`, one element per requested record in
    /// order, the record dictionary or an error dictionary, with the requested `recordName` and
    /// `zoneID` beside (``JSONItems``). When the record's own ID differs from the requested one
    /// byte for byte (a server may name the owner as it knows it), the record's goes under the
    /// Stratus extension `stratusRecordID`.
    public static let itemsResponseJSON = JSONDictionary(WireRecordsLookupResponse.init, .results("records", \.results, ownID: JSONItems.records)).coder

    /// The answer to `records/modify`: `{"records": […]}`, one element per operation in request
    /// order, so the saves' results, then the deletes': a saved record as in
    /// ``WireRecordsLookupResponse``, a deletion as CKWS's stub `{"recordName": …, "deleted":
    /// true}` (with `zoneID`), a failure as the error dictionary with `recordName` and `zoneID`
    /// beside. Every result of a delete also carries the Stratus extension `"operationType":
    /// "forceDelete"`, so that a failed delete is told from a failed save (``JSONSavesThenDeletes``).
    public static let modifyResponseJSON: WireJSONCoder<WireRecordsModifyResponse> = JSONSavesThenDeletes.coder(
        under: "records", saves: JSONItems.records, deleteType: "forceDelete",
        saveTypes: WireRecordsModifyRequest.saveTypes, deleteTypes: WireRecordsModifyRequest.deleteTypes
    )
}

/// One save of `records/modify`, as the operation dictionary CKWS sends for it, less its
/// `operationType` (which the request adds from its save policy): `{"record": {…}}`, the record
/// dictionary with each removed key as CKWS clears a field, `{}` in `fields` (`{"isEncrypted":
/// true}` for an encrypted one), and these Stratus extensions:
/// - `parentChanged: true` when the save sets the record's parent (to `parent`, or to none
///   when the record has no `parent`); absent, the server keeps the parent it has;
/// - `removedKeys` and `removedEncryptedKeys`: the removed keys exactly, written only when the
///   cleared fields do not give them back (keys out of order or repeated, or a key that also
///   has a value); they win over the cleared fields.
extension WireRecordSave: Codable {
    private enum CodingKeys: String, CodingKey {
        case record, parentChanged, removedKeys, removedEncryptedKeys
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let recordEncoder = container.superEncoder(forKey: .record)
        try record.encode(to: recordEncoder)
        var recordContainer = recordEncoder.container(keyedBy: JSONKey.self)
        var fields = recordContainer.nestedContainer(keyedBy: JSONKey.self, forKey: JSONKey("fields"))
        var written = Set(record.fields.keys).union(record.encryptedFields.keys)
        var cleared: [String] = []
        for key in Set(removedKeys).sorted() where !written.contains(key) {
            _ = fields.nestedContainer(keyedBy: JSONKey.self, forKey: JSONKey(key))
            written.insert(key)
            cleared.append(key)
        }
        var clearedEncrypted: [String] = []
        for key in Set(removedEncryptedKeys).sorted() where !written.contains(key) {
            var field = fields.nestedContainer(keyedBy: JSONKey.self, forKey: JSONKey(key))
            try field.encode(true, forKey: JSONKey("isEncrypted"))
            written.insert(key)
            clearedEncrypted.append(key)
        }
        if !Self.sameBytes(cleared, removedKeys) { try container.encode(removedKeys, forKey: .removedKeys) }
        if !Self.sameBytes(clearedEncrypted, removedEncryptedKeys) { try container.encode(removedEncryptedKeys, forKey: .removedEncryptedKeys) }
        if parentChanged { try container.encode(true, forKey: .parentChanged) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let body = try container.decode(JSONRecordBody.self, forKey: .record)
        self.init(
            record: body.record,
            removedKeys: try container.decodeIfPresent([String].self, forKey: .removedKeys) ?? body.removedKeys,
            removedEncryptedKeys: try container.decodeIfPresent([String].self, forKey: .removedEncryptedKeys) ?? body.removedEncryptedKeys,
            parentChanged: try container.decodeIfPresent(Bool.self, forKey: .parentChanged) ?? false
        )
    }

    /// Whether the two lists hold the same keys, byte for byte, in the same order.
    private static func sameBytes(_ lhs: [String], _ rhs: [String]) -> Bool {
        lhs.elementsEqual(rhs) { $0.utf8.elementsEqual($1.utf8) }
    }
}

/// `records/modify` as CloudKit Web Services shapes it: `{"operations": [{operationType,
/// record}], "atomic": …, "zoneID": {…}}`, the saves first, then the deletes, each in order.
/// A save's `operationType` follows the reference's §4.2 (``WireSavePolicy``): `create` or
/// `update` under `ifServerRecordUnchanged` (by whether the record has a change tag),
/// `forceUpdate` under `changedKeys` and `allKeys`; a save's operation is ``WireRecordSave``'s
/// dictionary. A delete is `forceDelete` of `{recordName, zoneID}` (Stratus deletes do not
/// compare change tags). The top-level `zoneID` is written when every item is in one zone; an
/// item without `zoneID` is in it. Stratus extensions: `savePolicy` (always written, so that
/// `changedKeys` and `allKeys` stay apart) and `clientChangeTokenData` (standard base64).
///
/// Decoding a request without `savePolicy` takes it from the first save's `operationType`
/// (`create` and `update`: `IF_SERVER_RECORD_UNCHANGED`; `forceUpdate`: `CHANGED_KEYS`). Every
/// save's `operationType` must be the one its policy and change tag give; `replace`,
/// `forceReplace` and `delete`, which Stratus does not have, a save after a delete, and an
/// unknown type are `invalidArguments` naming `operations[i].operationType`. `atomic` defaults to
/// true, as in CKWS.
extension WireRecordsModifyRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case operations, zoneID, atomic, savePolicy, clientChangeTokenData
    }

    private enum OperationKeys: String, CodingKey {
        case operationType, record
    }

    static let saveTypes = ["create", "update", "forceUpdate", "replace", "forceReplace"]
    static let deleteTypes = ["forceDelete", "delete"]

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var operations = container.nestedUnkeyedContainer(forKey: .operations)
        for save in saves {
            let operation = operations.superEncoder()
            try save.encode(to: operation)
            var keyed = operation.container(keyedBy: OperationKeys.self)
            try keyed.encode(savePolicy.operationType(hasChangeTag: save.record.changeTag != nil), forKey: .operationType)
        }
        for recordID in deletes {
            var operation = operations.nestedContainer(keyedBy: OperationKeys.self)
            try operation.encode("forceDelete", forKey: .operationType)
            try operation.encode(recordID, forKey: .record)
        }
        let zones = saves.map(\.record.recordID.zoneID) + deletes.map(\.zoneID)
        try container.encodeIfPresent(JSONRequestZone.common(zones), forKey: .zoneID)
        try container.encode(isAtomic, forKey: .atomic)
        try container.encode(savePolicy, forKey: .savePolicy)
        try container.encodeIfPresent(clientChangeTokenData?.base64EncodedString(), forKey: .clientChangeTokenData)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let zoneID = try container.decodeIfPresent(WireZoneID.self, forKey: .zoneID)
        var policy = try container.decodeIfPresent(WireSavePolicy.self, forKey: .savePolicy)
        var operations = try container.nestedUnkeyedContainer(forKey: .operations)
        var saves: [WireRecordSave] = []
        var deletes: [WireRecordID] = []
        while !operations.isAtEnd {
            let operationDecoder = try operations.superDecoder()
            let operation = try operationDecoder.container(keyedBy: OperationKeys.self)
            let type = try operation.decode(String.self, forKey: .operationType)
            // The request's zone, for an item whose record names none.
            let zone = { () throws -> WireZoneID? in
                try operation.nestedContainer(keyedBy: JSONKey.self, forKey: .record).contains(JSONKey("zoneID")) ? nil : zoneID
            }
            switch type {
            case "create", "update", "forceUpdate":
                guard deletes.isEmpty else {
                    throw DecodingError.invalid(OperationKeys.operationType, in: operation, "a save cannot follow a delete: a modify lists its saves, then its deletes")
                }
                var save = try WireRecordSave(from: operationDecoder)
                if let zone = try zone() { save.record.recordID.zoneID = zone }
                let savePolicy = policy ?? (type == "forceUpdate" ? .changedKeys : .ifServerRecordUnchanged)
                let expected = savePolicy.operationType(hasChangeTag: save.record.changeTag != nil)
                guard type == expected else {
                    let tag = save.record.changeTag == nil ? "without a change tag" : "with a change tag"
                    throw DecodingError.invalid(
                        OperationKeys.operationType, in: operation,
                        "'\(type)' does not fit the request: a record \(tag) saved under \(savePolicy.jsonName) is '\(expected)'"
                    )
                }
                policy = savePolicy
                saves.append(save)
            case "forceDelete":
                var recordID = try operation.decode(WireRecordID.self, forKey: .record)
                if let zone = try zone() { recordID.zoneID = zone }
                deletes.append(recordID)
            case "replace", "forceReplace":
                throw DecodingError.invalid(
                    OperationKeys.operationType, in: operation,
                    "'\(type)' is not supported: a Stratus save leaves the keys it does not send as they are (use update or forceUpdate)"
                )
            case "delete":
                throw DecodingError.invalid(
                    OperationKeys.operationType, in: operation, "'delete' is not supported: a Stratus delete does not compare change tags (use forceDelete)"
                )
            default:
                let known = (Self.saveTypes + Self.deleteTypes).joined(separator: ", ")
                throw DecodingError.invalid(OperationKeys.operationType, in: operation, "'\(type)' is not an operation type (\(known))")
            }
        }
        var token: Data?
        if let text = try container.decodeIfPresent(String.self, forKey: .clientChangeTokenData) {
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.invalid(CodingKeys.clientChangeTokenData, in: container, "clientChangeTokenData must be standard base64")
            }
            token = data
        }
        self.init(
            context: try decoder.requestContext(),
            saves: saves,
            deletes: deletes,
            savePolicy: policy ?? .ifServerRecordUnchanged,
            isAtomic: try container.decodeIfPresent(Bool.self, forKey: .atomic) ?? true,
            clientChangeTokenData: token
        )
    }
}

/// The results of a modify request (`records/modify`, `zones/modify`) as CKWS writes them: one
/// array, one element per operation in order, which for a Stratus request, listing its saves
/// before its deletes, is the saves' results, then the deletes'. A deletion is CKWS's stub (the
/// item's ID keys and `"deleted": true`); every result of a delete, failed or not, carries the
/// request's `operationType` as a Stratus extension. Reading a CKWS response without it, a
/// failure after a deletion is a delete's, one before any a save's.
enum JSONSavesThenDeletes {
    /// A modify's answer listed under `key`: the saves' results as `saves` writes them, then
    /// the deletes', each marked with `deleteType`; read back with `saveTypes` and
    /// `deleteTypes` as ``decode(from:saveTypes:deleteTypes:id:value:)`` reads them.
    static func coder<Endpoint: WireItemEndpoint>(
        under key: String, saves: JSONOwnIDResults<Endpoint.ID, Endpoint.Value>, deleteType: String, saveTypes: [String], deleteTypes: [String]
    ) -> WireJSONCoder<WireModifyResponse<Endpoint>> {
        WireJSONCoder { response, encoder in
            var items = JSONKey.list(under: key, of: encoder)
            try saves.encode(response.saveResults, into: &items)
            try encodeDeletes(response.deleteResults, operationType: deleteType, into: &items, id: saves.encodeID)
        } decode: { decoder in
            var items = try JSONKey.list(under: key, of: decoder)
            let (saveResults, deleteResults) = try decode(
                from: &items, saveTypes: saveTypes, deleteTypes: deleteTypes, id: saves.decodeID, value: saves.decodeValue
            )
            return WireModifyResponse(saveResults: saveResults, deleteResults: deleteResults)
        }
    }

    /// Writes the deletes' results after the saves'.
    static func encodeDeletes<ID>(
        _ results: [WireItemResult<ID, Void>],
        operationType: String,
        into container: inout any UnkeyedEncodingContainer,
        id: (ID, any Encoder) throws -> Void
    ) throws {
        try JSONItems.encode(results, into: &container, id: { itemID, encoder in
            try id(itemID, encoder)
            var keyed = encoder.container(keyedBy: JSONKey.self)
            try keyed.encode(operationType, forKey: JSONKey("operationType"))
        }, value: JSONItems.encodeDeleted)
    }

    /// Reads what ``encodeDeletes(_:operationType:into:id:)`` and the saves' results wrote.
    ///
    /// - Throws: A decoding error for an `operationType` neither list has, or a save's result
    ///   after a delete's.
    static func decode<ID, Value>(
        from container: inout any UnkeyedDecodingContainer,
        saveTypes: [String],
        deleteTypes: [String],
        id: (any Decoder) throws -> ID,
        value: (any Decoder) throws -> Value
    ) throws -> (saves: [WireItemResult<ID, Value>], deletes: [WireItemResult<ID, Void>]) {
        var saves: [WireItemResult<ID, Value>] = []
        var deletes: [WireItemResult<ID, Void>] = []
        while !container.isAtEnd {
            let decoder = try container.superDecoder()
            let keyed = try decoder.container(keyedBy: JSONKey.self)
            let isError = keyed.contains(JSONKey("serverErrorCode"))
            var isDelete = !deletes.isEmpty
            if !isError { isDelete = try keyed.decodeIfPresent(Bool.self, forKey: JSONKey("deleted")) ?? false }
            if let type = try keyed.decodeIfPresent(String.self, forKey: JSONKey("operationType")) {
                if deleteTypes.contains(type) {
                    isDelete = true
                } else if saveTypes.contains(type) {
                    isDelete = false
                } else {
                    throw DecodingError.invalid(JSONKey("operationType"), in: keyed, "'\(type)' is not an operation type (\((saveTypes + deleteTypes).joined(separator: ", ")))")
                }
            }
            let itemID = try id(decoder)
            if isDelete {
                deletes.append(WireItemResult(id: itemID, result: isError ? .failure(try WireError(from: decoder)) : .success(())))
            } else {
                guard deletes.isEmpty else {
                    throw DecodingError.dataCorrupted(DecodingError.Context(
                        codingPath: decoder.codingPath,
                        debugDescription: "a save's result cannot follow a delete's: a modify answers its saves, then its deletes"
                    ))
                }
                saves.append(WireItemResult(id: itemID, result: isError ? .failure(try WireError(from: decoder)) : .success(try value(decoder))))
            }
        }
        return (saves, deletes)
    }
}

/// The top-level `zoneID` of a CKWS request that addresses one zone.
enum JSONRequestZone {
    /// The zone every item is in; nil when there are none or they are in several.
    static func common(_ zones: [WireZoneID]) -> WireZoneID? {
        guard let first = zones.first, zones.allSatisfy({ $0 == first }) else { return nil }
        return first
    }
}
