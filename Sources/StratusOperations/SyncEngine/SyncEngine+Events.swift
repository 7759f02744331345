import Foundation
import StratusCore

// How the engine talks to its delegate: one call at a time, through the event gate, each
// followed by a `stateUpdate` when the state changed during it.

extension CKSyncEngine {
    /// Delivers `event`: `before` changes the state first (under the gate, so no other
    /// `stateUpdate` can slip in between), `after` once the delegate has handled it; then a
    /// `stateUpdate` if the state changed in any of the three.
    func deliver(_ event: Event, before: () -> Void = {}, after: () -> Void = {}) async {
        await eventGate.enter()
        defer { eventGate.leave() }
        before()
        await callDelegate { await $0.handleEvent(event, syncEngine: self) }
        after()
        await deliverStateUpdateIfChanged()
    }

    /// Applies an engine change of state that no other event reports, with its `stateUpdate`.
    func commit(_ change: (inout StateStorage) -> Void) async {
        await eventGate.enter()
        defer { eventGate.leave() }
        state.update(change)
        await deliverStateUpdateIfChanged()
    }

    /// Asks the delegate for the next batch to send, under the gate.
    func nextBatch(_ context: SendChangesContext) async -> RecordZoneChangeBatch? {
        await eventGate.enter()
        defer { eventGate.leave() }
        let batch = await callDelegate { await $0.nextRecordZoneChangeBatch(context, syncEngine: self) } ?? nil
        await deliverStateUpdateIfChanged()
        return batch
    }

    /// Asks the delegate for the options of the next fetch request, under the gate.
    func nextFetchOptions(_ context: FetchChangesContext) async -> FetchChangesOptions {
        await eventGate.enter()
        defer { eventGate.leave() }
        let options = await callDelegate { await $0.nextFetchChangesOptions(context, syncEngine: self) } ?? context.options
        await deliverStateUpdateIfChanged()
        return options
    }

    /// The app changed the state: deliver its `stateUpdate` soon (one for a burst of
    /// changes), and schedule a send when the engine syncs automatically. A change made while
    /// the delegate handles an event is reported right after that event instead.
    func appChangedState(sendBecameDue: Bool) {
        let alreadyScheduled = control.withLock { control in
            defer { control.stateUpdateScheduled = true }
            return control.stateUpdateScheduled
        }
        if !alreadyScheduled {
            Task { [weak self] in
                guard let self else { return }
                await eventGate.enter()
                control.withLock { $0.stateUpdateScheduled = false }
                await deliverStateUpdateIfChanged()
                eventGate.leave()
            }
        }
        if sendBecameDue, automaticallySync { scheduleSync(after: Self.sendDelay, fetch: false) }
    }

    /// Delivers a `stateUpdate` when the state changed since the last one. Called holding
    /// the event gate.
    private func deliverStateUpdateIfChanged() async {
        guard state.takeChange() else { return }
        let update = Event.StateUpdate(stateSerialization: state.serialization)
        await callDelegate { await $0.handleEvent(.stateUpdate(update), syncEngine: self) }
        // What the delegate changes while persisting is reported by the next stateUpdate.
    }

    /// Calls the delegate, if it is still there, marking the task as inside this engine's
    /// delegate so that a manual sync called from there fails instead of waiting for itself.
    private func callDelegate<Result>(_ body: (any CKSyncEngineDelegate) async -> Result) async -> Result? {
        guard let delegate else { return nil }
        return await Self.$delegateCall.withValue(ObjectIdentifier(self)) { await body(delegate) }
    }

    /// The engine whose delegate the current task is running in.
    @TaskLocal static var delegateCall: ObjectIdentifier?

    /// Whether the current task is inside this engine's delegate.
    var isInsideDelegate: Bool { Self.delegateCall == ObjectIdentifier(self) }
}
