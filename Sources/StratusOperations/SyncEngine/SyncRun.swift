import Foundation
import StratusCore
import Synchronization

/// One fetch or send of a ``CKSyncEngine``: the operations it runs, and whether it was
/// cancelled.
final class SyncRun: Sendable {
    private struct State {
        var isCancelled = false
        var operation: CKOperation?
    }

    let database: CKDatabase
    private let state = Mutex(State())

    init(database: CKDatabase) {
        self.database = database
    }

    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Cancels the run and the operation it is waiting for.
    func cancel() {
        let operation = state.withLock { state -> CKOperation? in
            state.isCancelled = true
            return state.operation
        }
        operation?.cancel()
    }

    /// Throws `operationCancelled` once the run was cancelled.
    func checkCancellation() throws(CKError) {
        if isCancelled { throw CKError(.operationCancelled, message: "the sync engine's operations were cancelled") }
    }

    /// Runs `operation` in `group` on the database's queue and waits until it has finished.
    /// A run cancelled already cancels the operation before it starts.
    func execute(_ operation: CKDatabaseOperation, group: CKOperationGroup) async {
        operation.group = group
        operation.configuration.qualityOfService = .userInitiated
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            operation.afterFinishing.value = { continuation.resume() }
            let cancelled = state.withLock { state -> Bool in
                state.operation = operation
                return state.isCancelled
            }
            if cancelled { operation.cancel() }
            database.add(operation)
        }
        state.withLock { $0.operation = nil }
    }
}

extension CKError {
    /// The errors the engine retries by itself, as CloudKit's engine does: the account is not
    /// ready, the network is down, or the server asks to wait.
    var isTransientForSyncEngine: Bool {
        switch code {
        case .notAuthenticated, .accountTemporarilyUnavailable, .networkFailure, .networkUnavailable,
             .requestRateLimited, .serviceUnavailable, .zoneBusy:
            true
        default:
            false
        }
    }
}

extension Error {
    /// The error as a `CKError`; anything else becomes `internalError` naming it.
    var asCKError: CKError {
        (self as? CKError) ?? CKError(.internalError, message: "\(self)")
    }
}
