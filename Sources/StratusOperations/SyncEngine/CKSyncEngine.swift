import Foundation
import StratusCore
import StratusWire
import Synchronization

/// Syncs an app's data with a CloudKit database: it keeps track of what the app has to send
/// and of what the server has changed, sends and fetches in batches, creates and listens to a
/// database subscription, retries transient errors and follows account changes. The app keeps
/// its data and the engine's serialized ``State``; the engine tells it what happened through
/// its ``CKSyncEngineDelegate``.
///
/// ```swift
/// var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase,
///                                                stateSerialization: store.lastSerialization,
///                                                delegate: store)
/// configuration.automaticallySync = false   // in tests: every sync is explicit
/// let engine = CKSyncEngine(configuration)
/// engine.state.add(pendingRecordZoneChanges: [.saveRecord(contactID)])
/// try await engine.sendChanges()
/// ```
///
/// Several engines may share one database object, each with its own state, as a test plays
/// two devices; pushes do not pass between engines of the same device (a device gets no push
/// for its own change), so such tests fetch explicitly, or use one container per device.
public final class CKSyncEngine: Sendable, CustomStringConvertible {
    /// The database the engine syncs with.
    public let database: CKDatabase
    /// The engine's state: pending changes and what it knows of the server.
    public let state: State

    let automaticallySync: Bool
    /// The ID of the database subscription the engine keeps.
    let subscriptionID: CKSubscription.ID
    private let delegateBox: WeakDelegate
    /// One fetch or send at a time.
    let syncGate = AsyncGate()
    /// One event (or delegate call) at a time.
    let eventGate = AsyncGate()
    let control = Mutex(Control())
    /// The account observer, and the push listener while it syncs automatically; removed
    /// when the engine goes away.
    let listeners = Mutex(Listeners())

    /// Creates an engine, restoring its state from `configuration.stateSerialization`. With
    /// `automaticallySync`, it starts its first sync (account check, subscription, fetch)
    /// at once on the service's clock.
    public init(_ configuration: Configuration) {
        database = configuration.database
        automaticallySync = configuration.automaticallySync
        subscriptionID = configuration.subscriptionID ?? Self.defaultSubscriptionID(for: configuration.database.databaseScope)
        delegateBox = WeakDelegate(configuration.delegate)
        state = State(configuration.stateSerialization.map { StateStorage($0.snapshot) } ?? StateStorage())
        state.observe { [weak self] sendBecameDue in self?.appChangedState(sendBecameDue: sendBecameDue) }
        listenForAccountChanges()
        if automaticallySync { startSyncingAutomatically() }
    }

    deinit {
        let listeners = listeners.withLock { $0 }
        if let token = listeners.pushes { database.container.removePushListener(token) }
        if let observer = listeners.account { NotificationCenter.default.removeObserver(observer.value) }
        control.withLock { $0.timer?.cancel() }
    }

    /// The engine's own subscription ID when the configuration names none:
    /// `CKSyncEngineDatabaseSubscription-Private` (or `-Shared`), the form CloudKit's engine is
    /// seen to use.
    static func defaultSubscriptionID(for scope: CKDatabase.Scope) -> CKSubscription.ID {
        scope == .shared ? "CKSyncEngineDatabaseSubscription-Shared" : "CKSyncEngineDatabaseSubscription-Private"
    }

    var delegate: (any CKSyncEngineDelegate)? { delegateBox.value }

    /// Fetches what changed on the server now, whatever the schedule, and returns once the
    /// delegate has handled every event the fetch caused. Awaiting it inside the engine's own
    /// delegate would wait for itself: that call throws `invalidArguments`.
    ///
    /// - Throws: `notAuthenticated` (or `accountTemporarilyUnavailable`) while there is no
    ///   usable account: the engine is dormant; `invalidArguments` for an engine on the public
    ///   database; `operationCancelled` after ``cancelOperations()``; otherwise the first
    ///   error of the fetch, after `didFetchChanges`. A transient error is retried later by
    ///   the engine when it syncs automatically.
    public func fetchChanges(_ options: FetchChangesOptions = .init()) async throws {
        try await runManually { run in try await self.fetch(FetchChangesContext(reason: .manual, options: options), in: run) }
    }

    /// Sends the pending changes now, whatever the schedule, and returns once the delegate has
    /// handled every event the send caused.
    ///
    /// - Throws: as ``fetchChanges(_:)``; and, when any change failed, a `partialFailure`
    ///   whose `partialErrorsByItemID` holds each failed record ID or zone ID (after
    ///   `didSendChanges`). Changes that failed with a transient error stay pending.
    public func sendChanges(_ options: SendChangesOptions = .init()) async throws {
        try await runManually { run in try await self.send(SendChangesContext(reason: .manual, options: options), in: run) }
    }

    /// Cancels the fetch or send in progress and any sync scheduled, and returns once the
    /// one in progress has stopped (at once when called from inside the delegate, whose
    /// return the sync waits for). A request already on its way finishes: what the server
    /// did is reported as usual. Changes not sent stay pending.
    public func cancelOperations() async {
        let active = control.withLock { control -> SyncRun? in
            control.timer?.cancel()
            control.timer = nil
            control.scheduled = nil
            return control.activeRun
        }
        active?.cancel()
        // Inside the delegate, the sync in progress waits for this call: do not wait for it.
        guard !isInsideDelegate else { return }
        await syncGate.enter()
        syncGate.leave()
    }

    /// The database and the state's counts.
    public var description: String {
        "<CKSyncEngine database=\(database) state=\(state)>"
    }

    /// Runs one manual sync holding the sync gate; a cancelled calling task cancels it.
    private func runManually(_ body: @escaping @Sendable (SyncRun) async throws -> Void) async throws {
        guard !isInsideDelegate else {
            throw CKError(.invalidArguments, message: "fetchChanges() and sendChanges() cannot be awaited inside the sync engine's own delegate: the engine waits for the delegate to return; start them in a new Task instead")
        }
        let run = SyncRun(database: database)
        try await withTaskCancellationHandler {
            await syncGate.enter()
            defer {
                control.withLock { $0.activeRun = nil }
                syncGate.leave()
            }
            control.withLock { $0.activeRun = run }
            if Task.isCancelled { run.cancel() }
            do {
                try await body(run)
                noteSuccess()
            } catch {
                noteFailure(error)
                throw error
            }
        } onCancel: {
            run.cancel()
        }
    }
}

extension CKSyncEngine {
    /// What the engine does between and around syncs.
    struct Control {
        /// The sync holding the gate, for cancellation.
        var activeRun: SyncRun?
        /// The scheduled sync's timer and due date.
        var timer: ClockTimer?
        var scheduled: Date?
        /// Whether the next scheduled sync fetches (a push came, or this is the first sync).
        var needsFetch = false
        /// Whether the account may have changed since the engine last looked.
        var accountMayHaveChanged = true
        /// The user signed in on the device, as last fetched.
        var currentUser: CKRecord.ID?
        /// Whether a task will deliver the `stateUpdate` of the app's changes.
        var stateUpdateScheduled = false
        /// Transient failures in a row, for the backoff of retries.
        var failuresInARow = 0
        /// No scheduled sync runs before this date: the wait (retry-after or backoff) the last
        /// transient failure asked for. Cleared by a sync that succeeds or an account change.
        var notBefore: Date?
    }

    struct Listeners {
        var pushes: DevicePushListeners.Token?
        var account: UncheckedBox<any NSObjectProtocol>?
    }
}

/// The delegate, held weakly as CloudKit's engine holds it.
private final class WeakDelegate: Sendable {
    private let storage: Mutex<WeakReference>

    private struct WeakReference: @unchecked Sendable {
        weak var value: (any CKSyncEngineDelegate)?
    }

    init(_ delegate: any CKSyncEngineDelegate) {
        storage = Mutex(WeakReference(value: delegate))
    }

    var value: (any CKSyncEngineDelegate)? { storage.withLock { $0.value } }
}
