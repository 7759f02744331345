/// The outcome for one item of a batch request, in the order the request listed the items.
public struct WireItemResult<ID: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The item exactly as the request named it.
    public var id: ID
    /// What happened to it.
    public var result: Result<Value, WireError>

    /// Creates an item outcome.
    public init(id: ID, result: Result<Value, WireError>) {
        self.id = id
        self.result = result
    }
}
