import Foundation

/// An operation's blocks — per-item, final and legacy — each under its property, behind one
/// lock, and released all at once when the operation finishes.
///
/// Every block property of every operation is declared with ``_OperationBlock``, which keeps
/// the block here under the property's storage key path:
///
/// ```swift
/// @_OperationBlock public var perRecordSaveBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
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
    private var blocks: [AnyKeyPath: Any] = [:]
    private var isReleased = false

    /// Creates an empty store.
    package init() {}

    /// The block of the property whose storage is `key`, or nil. Code that must not call a
    /// deprecated property reads its block this way: `blocks[\Operation._legacyBlock]`.
    package subscript<Owner, Block>(_ key: KeyPath<Owner, _OperationBlock<Block>>) -> Block? {
        self.get(key)
    }

    /// The block stored under `key`, or nil.
    func get<Block>(_ key: AnyKeyPath) -> Block? {
        guard let stored = lock.withLock({ blocks[key] }) else { return nil }
        guard let block = stored as? Block else {
            assertionFailure("the block \(key) is a \(type(of: stored)), not a \(Block.self)")
            return nil
        }
        return block
    }

    /// Stores `block` under `key`; nil removes it. After ``releaseAll()`` the block is dropped.
    func set<Block>(_ block: Block?, _ key: AnyKeyPath) {
        // The replaced block is destroyed after the lock is given up, so whatever it captured
        // may touch the operation's blocks while it goes away.
        let replaced: Any? = lock.withLock {
            guard !isReleased, let block else { return blocks.removeValue(forKey: key) }
            return blocks.updateValue(block, forKey: key)
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

/// An implementation detail of Stratus: declares an operation's block property (a per-item,
/// final or legacy block), kept in the operation's ``OperationBlocks`` and released once the
/// final block has returned. Do not use it yourself; it is public only because public
/// properties are declared with it.
///
/// The block keeps its exact type, which is not `@Sendable` (CloudKit lets a block share state
/// with its sibling blocks): the operation calls it only on its serial callback queue.
@propertyWrapper
public struct _OperationBlock<Block> {
    /// Gives each block property a storage offset of its own, and so a key path of its own:
    /// the store keys blocks by the storage key path, and key paths to empty stored
    /// properties at one offset compare equal.
    private let slot: UInt8 = 0

    /// Creates the property, with no block set.
    public init() {}

    /// Not available: the block lives in its operation, which ``subscript(_enclosingInstance:wrapped:storage:)`` reaches.
    @available(*, unavailable, message: "an operation block property is declared in an operation class")
    public var wrappedValue: Block? {
        get { nil }
        set {}
    }

    /// The block of `operation`'s property, read from and written to the operation's store.
    public static subscript<Owner: _AsyncOperation>(
        _enclosingInstance operation: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Block?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Block? {
        get { operation.blocks.get(storageKeyPath) }
        set { operation.blocks.set(newValue, storageKeyPath) }
    }
}

/// An implementation detail of Stratus: declares an operation's setting (a value any thread
/// may read and write while the operation runs) behind its own lock. Do not use it yourself;
/// it is public only because public properties are declared with it.
@propertyWrapper
public struct _Locked<Value>: @unchecked Sendable {
    /// The value and its lock.
    package let storage: Locked<Value>

    /// Creates the property with its first value.
    public init(wrappedValue: Value) {
        storage = Locked(wrappedValue)
    }

    /// The value, read or replaced under the lock.
    public var wrappedValue: Value {
        get { storage.value }
        nonmutating set { storage.value = newValue }
    }
}
