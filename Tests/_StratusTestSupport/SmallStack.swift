import Foundation

/// The stack size of a secondary thread on some platforms (512 KiB): code that input can make
/// recurse must finish within it, not only on the main thread's 8 MiB.
public let smallThreadStackSize = 512 * 1024

/// Runs `body` on a new thread with a stack of `stackSize` bytes, waits for it to finish, and
/// returns what it returned. Unbounded recursion in `body` crashes the test process here
/// long before it would on the main thread. Waits on a semaphore, never sleeps.
public func onSmallStack<Result: Sendable>(
    stackSize: Int = smallThreadStackSize,
    _ body: @escaping @Sendable () -> Result
) -> Result {
    let box = ResultBox<Result>()
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.set(body())
        finished.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    finished.wait()
    return box.take()
}

/// Hands a result from one thread to another.
private final class ResultBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?

    func set(_ newValue: Value) {
        lock.withLock { value = newValue }
    }

    /// The value set; called only after the setting thread signalled.
    func take() -> Value {
        lock.withLock {
            guard let value else { preconditionFailure("onSmallStack: the thread finished without a result") }
            return value
        }
    }
}
