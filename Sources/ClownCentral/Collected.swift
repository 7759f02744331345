import Synchronization

/// Values collected from push handlers and operation blocks, on their threads, in the order
/// they came.
final class Collected<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    /// Adds a value.
    func append(_ value: Value) { storage.withLock { $0.append(value) } }

    /// Every value so far.
    var values: [Value] { storage.withLock { $0 } }
}
