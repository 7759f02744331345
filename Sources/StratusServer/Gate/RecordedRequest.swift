import StratusWire

/// One request as the server received it, for tests that check what a client sent.
public struct RecordedRequest: Hashable, Sendable {
    /// The endpoint a request called: its HTTP route (``WireRoute``), named after CloudKit
    /// Web Services' endpoint or, where CKWS has none, Stratus's extension.
    public typealias Endpoint = WireRoute

    /// The endpoint called.
    public var endpoint: Endpoint
    /// Where the request went, from which device, for which operation, at which quality of service.
    public var context: WireRequestContext
}
