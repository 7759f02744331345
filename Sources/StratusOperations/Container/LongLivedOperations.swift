import Foundation
import StratusCore
import Synchronization

/// The long-lived operations of this process that have started and not finished.
///
/// CloudKit persists a long-lived operation in a daemon, so an app can find it again after a
/// relaunch. Stratus has no daemon: an operation with `configuration.isLongLived` is
/// registered here when it starts (and its `longLivedOperationWasPersistedBlock` is called,
/// once, before any other block), and leaves when its final block has returned or it was
/// cancelled. The container's long-lived operation methods read this registry, so within one
/// process they behave as CloudKit's do; across a relaunch nothing survives.
enum LongLivedOperations {
    private static let running = Mutex<[CKOperation.ID: CKOperation]>([:])

    /// Registers `operation`, which has just started.
    static func register(_ operation: CKOperation) {
        running.withLock { $0[operation.operationID] = operation }
    }

    /// Removes `operation`, which has finished.
    static func remove(_ operation: CKOperation) {
        let removed = running.withLock { $0.removeValue(forKey: operation.operationID) }
        withExtendedLifetime(removed) {}
    }

    /// The unfinished long-lived operations that run on `container`'s device and container.
    static func operations(of container: CKContainer) -> [CKOperation] {
        let operations = running.withLock { Array($0.values) }
        return operations.filter { operation in
            let owner = operation.runDatabase.container
            return owner.deviceID == container.deviceID && owner.containerIdentifier == container.containerIdentifier
        }
    }
}

extension CKContainer {
    /// The IDs of this container's long-lived operations that have started and not finished,
    /// in this process, sorted.
    ///
    /// Stratus keeps long-lived operations only as long as the process runs: after a relaunch
    /// the list is empty.
    public func allLongLivedOperationIDs() async throws -> [CKOperation.ID] {
        LongLivedOperations.operations(of: self).map(\.operationID).sorted()
    }

    /// Passes the IDs of this container's unfinished long-lived operations to
    /// `completionHandler`.
    @preconcurrency
    public func fetchAllLongLivedOperationIDs(completionHandler: @escaping @Sendable ([CKOperation.ID]?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.allLongLivedOperationIDs() }
    }

    /// The unfinished long-lived operation of this container with `operationID`: the same
    /// object that is running, or nil when there is none (never started, not long-lived,
    /// finished, or of another container).
    public func longLivedOperation(for operationID: CKOperation.ID) async throws -> CKOperation? {
        LongLivedOperations.operations(of: self).first { $0.operationID == operationID }
    }

    /// Passes the unfinished long-lived operation with `operationID`, or nil, to
    /// `completionHandler`.
    @preconcurrency
    public func fetchLongLivedOperation(withID operationID: CKOperation.ID, completionHandler: @escaping @Sendable (CKOperation?, (any Error)?) -> Void) {
        Task {
            do {
                completionHandler(try await self.longLivedOperation(for: operationID), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }
}
