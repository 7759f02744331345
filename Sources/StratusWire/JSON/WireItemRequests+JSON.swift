import Foundation

// The batch requests and responses (``WireItemEndpoint``) cross as JSON in their family's
// shape: each family says how through the protocols below, and the requests and responses are
// `Codable` for every family that does.

/// A family whose batch requests (``WireItemsRequest``) cross as JSON.
public protocol WireJSONItemsRequestEndpoint: WireItemEndpoint {
    /// How a request of this family crosses: CloudKit Web Services' body, without the
    /// request's context (``WireJSON/decode(_:from:context:)``).
    static var itemsRequestJSON: WireJSONCoder<WireItemsRequest<Self>> { get }
}

/// A family whose per-item answers (``WireItemsResponse``) cross as JSON.
public protocol WireJSONItemsResponseEndpoint: WireItemEndpoint {
    /// How an answer of this family crosses: one element per item, in order (``JSONItems``).
    static var itemsResponseJSON: WireJSONCoder<WireItemsResponse<Self>> { get }
}

/// A family whose modify requests (``WireModifyRequest``) cross as JSON.
public protocol WireJSONModifyRequestEndpoint: WireItemEndpoint {
    /// How a modify of this family crosses: CKWS's `operations` (``JSONOperations``), without
    /// the request's context.
    static var modifyRequestJSON: WireJSONCoder<WireModifyRequest<Self>> { get }
}

/// A family whose modify answers (``WireModifyResponse``) cross as JSON.
public protocol WireJSONModifyResponseEndpoint: WireItemEndpoint {
    /// How a modify's answer of this family crosses: one element per operation, in order.
    static var modifyResponseJSON: WireJSONCoder<WireModifyResponse<Self>> { get }
}

/// A batch request as its family shapes it (``WireJSONItemsRequestEndpoint/itemsRequestJSON``).
extension WireItemsRequest: Codable where Endpoint: WireJSONItemsRequestEndpoint {
    public func encode(to encoder: any Encoder) throws { try Endpoint.itemsRequestJSON.encode(self, encoder) }
    public init(from decoder: any Decoder) throws { self = try Endpoint.itemsRequestJSON.decode(decoder) }
}

/// Per-item answers as their family shapes them (``WireJSONItemsResponseEndpoint/itemsResponseJSON``).
extension WireItemsResponse: Codable where Endpoint: WireJSONItemsResponseEndpoint {
    public func encode(to encoder: any Encoder) throws { try Endpoint.itemsResponseJSON.encode(self, encoder) }
    public init(from decoder: any Decoder) throws { self = try Endpoint.itemsResponseJSON.decode(decoder) }
}

/// A modify as its family shapes it (``WireJSONModifyRequestEndpoint/modifyRequestJSON``).
extension WireModifyRequest: Codable where Endpoint: WireJSONModifyRequestEndpoint {
    public func encode(to encoder: any Encoder) throws { try Endpoint.modifyRequestJSON.encode(self, encoder) }
    public init(from decoder: any Decoder) throws { self = try Endpoint.modifyRequestJSON.decode(decoder) }
}

/// A modify's answer as its family shapes it (``WireJSONModifyResponseEndpoint/modifyResponseJSON``).
extension WireModifyResponse: Codable where Endpoint: WireJSONModifyResponseEndpoint {
    public func encode(to encoder: any Encoder) throws { try Endpoint.modifyResponseJSON.encode(self, encoder) }
    public init(from decoder: any Decoder) throws { self = try Endpoint.modifyResponseJSON.decode(decoder) }
}
