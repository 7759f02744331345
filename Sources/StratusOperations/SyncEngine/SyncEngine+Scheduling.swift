import Foundation
import StratusCore

// Automatic syncing: what an engine with `automaticallySync` does on its own. Every wait is
// a timer on the device's clock, so a test with a ManualClock decides when it happens.

extension CKSyncEngine {
    /// Seconds between the first pending change added and the send it schedules, so that
    /// changes added together go together.
    static let sendDelay: TimeInterval = 1
    /// Seconds before the first retry of a transient error without a retry-after; each failure
    /// in a row doubles it, up to ``longestRetryDelay``.
    static let firstRetryDelay: TimeInterval = 5
    static let longestRetryDelay: TimeInterval = 300

    /// Listens for the pushes of the engine's subscription and schedules the first sync.
    func startSyncingAutomatically() {
        let subscriptionID = subscriptionID
        let pushes = database.container.addPushListener { [weak self] notification in
            guard notification.subscriptionID == subscriptionID else { return }
            self?.scheduleSync(after: 0, fetch: true)
        }
        listeners.withLock { $0.pushes = pushes }
        scheduleSync(after: 0, fetch: true)
    }

    /// Notes the account changes of the engine's device, so its next sync asks who is signed
    /// in instead of trusting the user it saw last (a switch made without a sign-out is not
    /// missed), and, when it syncs automatically, schedules that sync at once.
    func listenForAccountChanges() {
        let device = database.container.device
        let account = NotificationCenter.default.addObserver(forName: .CKAccountChanged, object: nil, queue: nil) { [weak self] notification in
            guard let changed = notification.object as? CKContainer, changed.device === device, let self else { return }
            control.withLock { control in
                control.accountMayHaveChanged = true
                control.notBefore = nil
            }
            scheduleSync(after: 0, fetch: true)
        }
        listeners.withLock { $0.account = UncheckedBox(value: account) }
    }

    /// Schedules a sync `delay` seconds from now on the clock, unless one is due sooner;
    /// `fetch` makes it fetch as well as send. No sync is scheduled before the wait a
    /// transient failure asked for (`Control.notBefore`), and one scheduled earlier is
    /// moved to its end. Does nothing without `automaticallySync`.
    func scheduleSync(after delay: TimeInterval, fetch: Bool) {
        guard automaticallySync else { return }
        let clock = database.container.device.clock
        let requested = clock.now.addingTimeInterval(max(0, delay))
        control.withLock { control in
            if fetch { control.needsFetch = true }
            let earliest = control.notBefore ?? requested
            let due = max(requested, earliest)
            if let scheduled = control.scheduled, scheduled <= due, scheduled >= earliest, control.timer != nil { return }
            control.timer?.cancel()
            control.scheduled = due
            control.timer = clock.schedule(at: due) { [weak self] in
                guard let self else { return }
                self.control.withLock { fired in
                    fired.timer = nil
                    fired.scheduled = nil
                }
                Task { await self.runScheduledSync() }
            }
        }
    }

    /// A scheduled sync: a fetch when one is due, then a send when changes are pending.
    /// Errors were told to the delegate through the events; transient ones schedule a retry.
    private func runScheduledSync() async {
        await syncGate.enter()
        let run = SyncRun(database: database)
        control.withLock { $0.activeRun = run }
        defer {
            control.withLock { $0.activeRun = nil }
            syncGate.leave()
        }
        do {
            if control.withLock({ $0.needsFetch }) {
                try await fetch(FetchChangesContext(reason: .scheduled, options: FetchChangesOptions()), in: run)
            }
            try await send(SendChangesContext(reason: .scheduled, options: SendChangesOptions()), in: run)
            noteSuccess()
        } catch {
            noteFailure(error)
        }
    }

    /// A sync went through: the backoff starts over.
    func noteSuccess() {
        control.withLock { control in
            control.failuresInARow = 0
            control.notBefore = nil
        }
    }

    /// A sync failed: a transient error schedules a retry (after the server's retry-after,
    /// or the backoff), which fetches again if a fetch was cut short. Until then no other
    /// scheduled sync runs: changes added meanwhile wait for the retry.
    func noteFailure(_ error: any Error) {
        guard let error = error as? CKError, let transient = Self.transientError(in: error) else { return }
        let delay = control.withLock { control -> TimeInterval in
            control.failuresInARow += 1
            let backoff = Self.firstRetryDelay * pow(2, Double(min(control.failuresInARow - 1, 16)))
            return transient.retryAfterSeconds ?? min(backoff, Self.longestRetryDelay)
        }
        // Without an account there is nothing to retry: the account observer wakes the engine.
        guard transient.code != .notAuthenticated || control.withLock({ $0.currentUser != nil }) else { return }
        let notBefore = database.container.device.clock.now.addingTimeInterval(delay)
        control.withLock { $0.notBefore = notBefore }
        scheduleSync(after: delay, fetch: !state.zoneIDsWithUnfetchedServerChanges.isEmpty || error.code != .partialFailure)
    }

    /// The transient error `error` is or holds, if any.
    private static func transientError(in error: CKError) -> CKError? {
        if error.isTransientForSyncEngine { return error }
        guard error.code == .partialFailure else { return nil }
        return error.partialErrorsByItemID?.values.lazy.compactMap { $0 as? CKError }.first(where: \.isTransientForSyncEngine)
    }
}
