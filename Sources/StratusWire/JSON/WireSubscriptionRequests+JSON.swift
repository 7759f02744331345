import Foundation

/// The answer to `subscriptions/list` as CloudKit Web Services writes it:
/// `{"subscriptions": [subscription…]}`.
extension WireSubscriptionsListResponse: Codable {
    public func encode(to encoder: any Encoder) throws {
        try JSONKey.encode(subscriptions, under: "subscriptions", to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self.init(subscriptions: try JSONKey.decode([WireSubscription].self, under: "subscriptions", from: decoder))
    }
}

/// `subscriptions/lookup` as CKWS's body: `{"subscriptions": [{"subscriptionID": …}…]}`. The
/// request's context is not in the body (``WireJSON/decode(_:from:context:)``).
extension WireSubscriptionsLookupRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case subscriptions
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .subscriptions)
        for subscriptionID in subscriptionIDs {
            try JSONItems.encodeString("subscriptionID")(subscriptionID, list.superEncoder())
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .subscriptions)
        var subscriptionIDs: [String] = []
        while !list.isAtEnd {
            subscriptionIDs.append(try JSONItems.decodeString("subscriptionID")(try list.superDecoder()))
        }
        self.init(context: try decoder.requestContext(), subscriptionIDs: subscriptionIDs)
    }
}

/// The answer to `subscriptions/lookup` as CKWS writes it: `{"subscriptions": […]}`, one
/// element per requested ID, in request order: the subscription, or an error dictionary with
/// the `subscriptionID` beside it.
extension WireSubscriptionsLookupResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case subscriptions
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list: any UnkeyedEncodingContainer = container.nestedUnkeyedContainer(forKey: .subscriptions)
        try JSONItems.encode(results, into: &list, id: JSONItems.encodeString("subscriptionID"), value: JSONItems.encodeValue)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list: any UnkeyedDecodingContainer = try container.nestedUnkeyedContainer(forKey: .subscriptions)
        self.init(results: try JSONItems.decode(from: &list, id: JSONItems.decodeString("subscriptionID"), value: JSONItems.decodeValue))
    }
}

/// `subscriptions/modify` as CKWS's body: `{"operations": [{"operationType": …,
/// "subscription": {…}}…]}`, the saves first, then the deletes, each in request order.
///
/// A native save creates the subscription or replaces the one with its ID; CKWS has no such
/// operation type, so Stratus writes a save as `create` (what a transport to Apple sends first,
/// retrying as `update` on `EXISTS`) and reads both `create` and `update` as a save. A delete is
/// `{"operationType": "delete", "subscription": {"subscriptionID": …}}`. The request's context
/// is not in the body.
extension WireSubscriptionsModifyRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case operations
    }

    private enum OperationKeys: String, CodingKey {
        case operationType, subscription
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .operations)
        for subscription in saves {
            var operation = list.nestedContainer(keyedBy: OperationKeys.self)
            try operation.encode("create", forKey: .operationType)
            try operation.encode(subscription, forKey: .subscription)
        }
        for subscriptionID in deletes {
            var operation = list.nestedContainer(keyedBy: OperationKeys.self)
            try operation.encode("delete", forKey: .operationType)
            try JSONItems.encodeString("subscriptionID")(subscriptionID, operation.superEncoder(forKey: .subscription))
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list = try container.nestedUnkeyedContainer(forKey: .operations)
        var saves: [WireSubscription] = []
        var deletes: [String] = []
        while !list.isAtEnd {
            let operation = try list.nestedContainer(keyedBy: OperationKeys.self)
            switch try operation.decode(String.self, forKey: .operationType) {
            case "create", "update":
                saves.append(try operation.decode(WireSubscription.self, forKey: .subscription))
            case "delete":
                deletes.append(try JSONItems.decodeString("subscriptionID")(try operation.superDecoder(forKey: .subscription)))
            case let other:
                throw DecodingError.invalid(OperationKeys.operationType, in: operation, "'\(other)' is not a subscription operation (create, update, delete)")
            }
        }
        self.init(context: try decoder.requestContext(), saves: saves, deletes: deletes)
    }
}

/// The answer to `subscriptions/modify` as CKWS writes it: `{"subscriptions": […]}`, one
/// element per operation, saves first, then deletes, each in request order: the saved
/// subscription, `{"subscriptionID": …, "deleted": true}` for a deletion, or an error
/// dictionary with the `subscriptionID` beside it.
///
/// CKWS's elements do not say which operation they answer; Stratus adds the operation under
/// `operationType` (`create` for a save, `delete`), so that a failed delete is told from a
/// failed save. Without it (Apple's answer), `"deleted": true` marks a deletion and anything
/// else is read as a save.
extension WireSubscriptionsModifyResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case subscriptions
    }

    private enum ItemKeys: String, CodingKey {
        case subscriptionID, operationType, deleted
    }

    /// Which operation an element answers, and for which subscription.
    private struct Item: Hashable, Sendable {
        var subscriptionID: String
        var isDelete: Bool
    }

    /// A successful element.
    private enum Outcome: Sendable {
        case saved(WireSubscription)
        case deleted
    }

    private static func encodeID(_ operationType: String) -> (String, any Encoder) throws -> Void {
        { subscriptionID, encoder in
            var container = encoder.container(keyedBy: ItemKeys.self)
            try container.encode(subscriptionID, forKey: .subscriptionID)
            try container.encode(operationType, forKey: .operationType)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list: any UnkeyedEncodingContainer = container.nestedUnkeyedContainer(forKey: .subscriptions)
        try JSONItems.encode(saveResults, into: &list, id: Self.encodeID("create"), value: JSONItems.encodeValue)
        try JSONItems.encode(deleteResults, into: &list, id: Self.encodeID("delete"), value: JSONItems.encodeDeleted)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var list: any UnkeyedDecodingContainer = try container.nestedUnkeyedContainer(forKey: .subscriptions)
        let items = try JSONItems.decode(
            from: &list,
            id: { decoder in Item(subscriptionID: try JSONItems.decodeString("subscriptionID")(decoder), isDelete: try Self.isDelete(decoder)) },
            value: { decoder -> Outcome in try Self.isDelete(decoder) ? .deleted : .saved(try WireSubscription(from: decoder)) }
        )
        var saveResults: [WireItemResult<String, WireSubscription>] = []
        var deleteResults: [WireItemResult<String, Void>] = []
        for item in items {
            switch item.result {
            case .success(.saved(let subscription)):
                saveResults.append(WireItemResult(id: item.id.subscriptionID, result: .success(subscription)))
            case .success(.deleted):
                deleteResults.append(WireItemResult(id: item.id.subscriptionID, result: .success(())))
            case .failure(let error) where item.id.isDelete:
                deleteResults.append(WireItemResult(id: item.id.subscriptionID, result: .failure(error)))
            case .failure(let error):
                saveResults.append(WireItemResult(id: item.id.subscriptionID, result: .failure(error)))
            }
        }
        self.init(saveResults: saveResults, deleteResults: deleteResults)
    }

    /// Whether an element answers a delete: its `operationType`, else `"deleted": true`.
    private static func isDelete(_ decoder: any Decoder) throws -> Bool {
        let container = try decoder.container(keyedBy: ItemKeys.self)
        if let operationType = try container.decodeIfPresent(String.self, forKey: .operationType) {
            switch operationType {
            case "create", "update": return false
            case "delete": return true
            default: throw DecodingError.invalid(ItemKeys.operationType, in: container, "'\(operationType)' is not a subscription operation (create, update, delete)")
            }
        }
        return try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
    }
}
