import Foundation

/// A value behind its own lock, for an operation's properties, which any thread may read and
/// write while the operation runs.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    package init(_ value: Value) {
        stored = value
    }

    /// The whole value, read or replaced in one step. To change part of it (append to an array
    /// it holds, say), use ``withValue(_:)``: a change through `value` copies the whole value
    /// first and is not one step.
    package var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Reads or changes the value under the lock.
    package func withValue<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }

    /// Replaces the value and returns the old one, in one step.
    package func exchange(_ newValue: Value) -> Value {
        lock.withLock {
            let old = stored
            stored = newValue
            return old
        }
    }
}
