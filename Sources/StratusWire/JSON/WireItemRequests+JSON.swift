import Foundation

// The batch requests and responses (``WireItemEndpoint``) cross as JSON in their family's
// shape: each family says how through the protocols below, and the requests and responses are
// `Codable` for every family that does.

/// A family whose lookups (``WireLookupRequest``) cross as JSON.
public protocol WireJSONLookupEndpoint: WireItemEndpoint {
    /// How a lookup of this family crosses: CloudKit Web Services' body, without the request's
    /// context (``WireJSON/decode(_:from:context:)``).
    static var lookupRequestJSON: WireJSONCoder<WireLookupRequest<Self>> { get }
}

/// A family whose per-item answers (``WireItemsResponse``) cross as JSON.
public protocol WireJSONItemsEndpoint: WireItemEndpoint {
    /// How an answer of this family crosses: one element per item, in order (``JSONItems``).
    static var itemsResponseJSON: WireJSONCoder<WireItemsResponse<Self>> { get }
}

/// A family whose modify requests (``WireModifyRequest``) cross as JSON.
public protocol WireJSONModifyEndpoint: WireItemEndpoint {
    /// How a modify of this family crosses: CKWS's `operations` (``JSONOperations``), without
    /// the request's context.
    static var modifyRequestJSON: WireJSONCoder<WireModifyRequest<Self>> { get }
}

/// A family whose modify answers (``WireModifyResponse``) cross as JSON.
public protocol WireJSONModifyResultsEndpoint: WireItemEndpoint {
    /// How a modify's answer of this family crosses: one element per operation, in order.
    static var modifyResponseJSON: WireJSONCoder<WireModifyResponse<Self>> { get }
}

/// A lookup as its family shapes it (``WireJSONLookupEndpoint/lookupRequestJSON``).
extension WireLookupRequest: Codable where Endpoint: WireJSONLookupEndpoint {
    public func encode(to encoder: any Encoder) throws { try Endpoint.lookupRequestJSON.encode(self, encoder) }
    public init(from decoder: any Decoder) throws { self = try Endpoint.lookupRequestJSON.decode(decoder) }
}

/// Per-item answers as their family shapes them (``WireJSONItemsEndpoint/itemsResponseJSON``).
extension WireItemsResponse: Codable where Endpoint: WireJSONItemsEndpoint {
    public func encode(to encoder: any Encoder) throws { try Endpoint.itemsResponseJSON.encode(self, encoder) }
    public init(from decoder: any Decoder) throws { self = try Endpoint.itemsResponseJSON.decode(decoder) }
}

/// A modify as its family shapes it (``WireJSONModifyEndpoint/modifyRequestJSON``).
extension WireModifyRequest: Codable where Endpoint: WireJSONModifyEndpoint {
    public func encode(to encoder: any Encoder) throws { try Endpoint.modifyRequestJSON.encode(self, encoder) }
    public init(from decoder: any Decoder) throws { self = try Endpoint.modifyRequestJSON.decode(decoder) }
}

/// A modify's answer as its family shapes it (``WireJSONModifyResultsEndpoint/modifyResponseJSON``).
extension WireModifyResponse: Codable where Endpoint: WireJSONModifyResultsEndpoint {
    public func encode(to encoder: any Encoder) throws { try Endpoint.modifyResponseJSON.encode(self, encoder) }
    public init(from decoder: any Decoder) throws { self = try Endpoint.modifyResponseJSON.decode(decoder) }
}
