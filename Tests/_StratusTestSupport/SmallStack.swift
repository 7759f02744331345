import Foundation

/// The stack size of a secondary thread on some platforms (512 KiB): code that input can make
/// recurse must finish within it, not only on the main thread's 8 MiB.
public let smallThreadStackSize = 512 * 1024

/// Runs `body` on a new thread with a stack of `stackSize` bytes, waits for it to finish, and
/// returns what it returned. Unbounded recursion in `body` crashes the test process here
/// long before it would on the main thread. Waits on a semaphore, never sleeps.
///
/// `body` and what it captures are released on the calling thread, not on the small one:
/// freeing a structure thousands of levels deep recurses too, and that is the test's
/// business, not the code under test's.
public func onSmallStack<Result: Sendable>(
    stackSize: Int = smallThreadStackSize,
    _ body: @escaping @Sendable () -> Result
) -> Result {
    let handoff = Handoff<Result>(body)
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        handoff.run()
        finished.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    finished.wait()
    return handoff.finish()
}

/// Holds a body and its result between two threads, so that the calling thread keeps the last
/// reference to the body.
private final class Handoff<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var body: (@Sendable () -> Value)?
    private var result: Value?

    init(_ body: @escaping @Sendable () -> Value) {
        self.body = body
    }

    /// Runs the body on the current thread, dropping this thread's reference to it before
    /// returning.
    func run() {
        guard let body = lock.withLock({ self.body }) else { return }
        let value = body()
        lock.withLock { result = value }
    }

    /// The body's result, releasing the body here; called after `run` returned.
    func finish() -> Value {
        lock.withLock {
            body = nil
            guard let result else { preconditionFailure("onSmallStack: the thread finished without a result") }
            return result
        }
    }
}

/// A value handed to another thread (as with ``onSmallStack(stackSize:_:)``) while the thread
/// that made it only waits; for test data that is not `Sendable` but is not shared meanwhile.
public struct UncheckedSendable<Value>: @unchecked Sendable {
    /// The value handed over.
    public let value: Value

    /// Wraps `value`.
    public init(_ value: Value) {
        self.value = value
    }
}
