import Foundation

/// An operation's blocks — per-item, final and legacy — each under the name of the property
/// that sets it, behind one lock, and released all at once when the operation finishes.
///
/// Every block property of every operation forwards here; the property's own name is the key:
///
/// ```swift
/// public var perRecordSaveBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)? {
///     get { blocks.get() }
///     set { blocks.set(newValue) }
/// }
/// ```
///
/// Blocks are not `Sendable` (CloudKit lets sibling blocks share state without locks), so the
/// store is `@unchecked Sendable`: any thread may set or read a block, but the operation calls
/// blocks only on its serial callback queue.
///
/// ``releaseAll()`` empties the store for good, so blocks that capture their operation do not
/// keep it alive. A block set after that would never be called, so it is dropped at once
/// instead of being kept until the operation goes away.
package final class OperationBlocks: @unchecked Sendable {
    private let lock = NSLock()
    private var blocks: [String: Any] = [:]
    private var isReleased = false

    /// Creates an empty store.
    package init() {}

    /// The block stored under `name`, the calling property's name unless given (code that
    /// must not call a deprecated property names its key), or nil.
    package func get<Block>(_ name: String = #function) -> Block? {
        guard let stored = lock.withLock({ blocks[name] }) else { return nil }
        guard let block = stored as? Block else {
            assertionFailure("the block \(name) is a \(type(of: stored)), not a \(Block.self)")
            return nil
        }
        return block
    }

    /// Stores `block` under `name`, the calling property's name unless given; nil removes it.
    /// After ``releaseAll()`` the block is dropped.
    package func set<Block>(_ block: Block?, _ name: String = #function) {
        // The replaced block is destroyed after the lock is given up, so whatever it captured
        // may touch the operation's blocks while it goes away.
        let replaced: Any? = lock.withLock {
            guard !isReleased, let block else { return blocks.removeValue(forKey: name) }
            return blocks.updateValue(block, forKey: name)
        }
        withExtendedLifetime(replaced) {}
    }

    /// Drops every block and every block set from now on. The operation calls it once its final
    /// block has returned.
    package func releaseAll() {
        let released = lock.withLock {
            isReleased = true
            defer { blocks = [:] }
            return blocks
        }
        withExtendedLifetime(released) {}
    }
}
