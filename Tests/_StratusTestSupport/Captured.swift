import Synchronization

/// A value that blocks and tasks on other threads write and the test reads.
public final class Captured<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    /// Starts with `value`.
    public init(_ value: Value) {
        storage = Mutex(value)
    }

    /// The value now.
    public var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
