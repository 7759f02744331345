import Foundation

/// The answer to `subscriptions/list` as CloudKit Web Services writes it:
/// `{"subscriptions": [subscription…]}`.
extension WireSubscriptionsListResponse: Codable {
    private static let json = JSONDictionary(Self.init, .required("subscriptions", \.subscriptions))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// The `subscriptions/*` endpoints as CKWS shapes them.
extension WireSubscriptionsEndpoint: WireJSONItemsRequestEndpoint, WireJSONItemsResponseEndpoint, WireJSONModifyRequestEndpoint, WireJSONModifyResponseEndpoint {
    /// `subscriptions/lookup`: `{"subscriptions": [{"subscriptionID": …}…]}`. The request's
    /// context is not in the body (``WireJSON/decode(_:from:context:)``).
    public static let itemsRequestJSON = JSONDictionary(
        WireSubscriptionsLookupRequest.init, .context(\.context), .ids("subscriptions", as: "subscriptionID", \.ids)
    ).coder

    /// The answer to `subscriptions/lookup`: `{"subscriptions": […]}`, one element per
    /// requested ID, in request order: the subscription, or an error dictionary with the
    /// `subscriptionID` beside it.
    public static let itemsResponseJSON = JSONDictionary(
        WireSubscriptionsLookupResponse.init, .results("subscriptions", \.results, id: .keyed("subscriptionID"), value: .value)
    ).coder

    /// `subscriptions/modify`: `{"operations": [{"operationType": …, "subscription": {…}}…]}`,
    /// the saves first, then the deletes, each in request order.
    ///
    /// A native save creates the subscription or replaces the one with its ID; CKWS has no such
    /// operation type, so Stratus writes a save as `create` (what a transport to Apple sends
    /// first, retrying as `update` on `EXISTS`) and reads both `create` and `update` as a save. A
    /// delete is `{"operationType": "delete", "subscription": {"subscriptionID": …}}`. The
    /// request's context is not in the body.
    public static let modifyRequestJSON: WireJSONCoder<WireSubscriptionsModifyRequest> = JSONOperations.coder(
        under: "subscription", saveTypes: ["create", "update"], savesFirst: false, what: "subscription operation (create, update, delete)",
        delete: .keyed("subscriptionID")
    )

    /// The answer to `subscriptions/modify`: `{"subscriptions": […]}`, one
    /// element per operation, saves first, then deletes, each in request order: the saved
    /// subscription, `{"subscriptionID": …, "deleted": true}` for a deletion, or an error
    /// dictionary with the `subscriptionID` beside it.
    ///
    /// CKWS's elements do not say which operation they answer; Stratus adds the operation under
    /// `operationType` (`create` for a save, `delete`), so that a failed delete is told from a
    /// failed save. Without it (Apple's answer), `"deleted": true` marks a deletion and anything
    /// else is read as a save.
    public static let modifyResponseJSON = WireJSONCoder<WireSubscriptionsModifyResponse>(encode: encodeModifyResponse, decode: decodeModifyResponse)

    private enum ModifyKeys: String, CodingKey {
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

    private static func encodeModifyResponse(_ response: WireSubscriptionsModifyResponse, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ModifyKeys.self)
        var list: any UnkeyedEncodingContainer = container.nestedUnkeyedContainer(forKey: .subscriptions)
        try JSONItems.encode(response.saveResults, into: &list, id: Self.encodeID("create"), value: JSONItems.encodeValue)
        try JSONItems.encode(response.deleteResults, into: &list, id: Self.encodeID("delete"), value: JSONItems.encodeDeleted)
    }

    private static func decodeModifyResponse(from decoder: any Decoder) throws -> WireSubscriptionsModifyResponse {
        let container = try decoder.container(keyedBy: ModifyKeys.self)
        var list: any UnkeyedDecodingContainer = try container.nestedUnkeyedContainer(forKey: .subscriptions)
        let items = try JSONItems.decode(
            from: &list,
            id: { decoder in Item(subscriptionID: try JSONKey.decode(String.self, under: "subscriptionID", from: decoder), isDelete: try Self.isDelete(decoder)) },
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
        return WireSubscriptionsModifyResponse(saveResults: saveResults, deleteResults: deleteResults)
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
