import Foundation
import StratusCore
import Synchronization

extension CKSyncEngine {
    /// What the engine keeps between runs: the changes waiting to be sent, the change tokens
    /// of the database and of each zone, the zones with changes not fetched yet, and the user
    /// the state belongs to. The app adds pending changes here; everything else is the
    /// engine's. Every change of state is followed by a ``CKSyncEngine/Event/stateUpdate(_:)``.
    ///
    /// Pending changes are kept in the order they were first added, one per record (or zone):
    /// adding a save that is already pending changes nothing; a save replaces a pending delete
    /// of the same record, and a delete a pending save, at the end of the list.
    public final class State: Sendable, CustomStringConvertible {
        private let storage: Mutex<StateStorage>
        /// Told about every change the app makes, and whether it makes a send due. Set once by
        /// the engine that owns the state.
        private let observer = Mutex<(@Sendable (_ sendBecameDue: Bool) -> Void)?>(nil)

        init(_ storage: StateStorage) {
            self.storage = Mutex(storage)
        }

        /// The record changes waiting to be sent, oldest first.
        public var pendingRecordZoneChanges: [PendingRecordZoneChange] {
            storage.withLock { $0.records.ordered }
        }

        /// The zone changes waiting to be sent, oldest first.
        public var pendingDatabaseChanges: [PendingDatabaseChange] {
            storage.withLock { $0.zones.ordered }
        }

        /// Whether the app has changes to send that it keeps itself rather than in
        /// ``pendingRecordZoneChanges``. While true, a send asks the delegate for batches even
        /// with nothing pending; setting it schedules a send. The engine sets it back to false
        /// once a send has asked for batches until the delegate returned nil, with no failure.
        public var hasPendingUntrackedChanges: Bool {
            get { storage.withLock { $0.hasPendingUntrackedChanges } }
            set {
                let changed = storage.withLock { storage -> Bool in
                    guard storage.hasPendingUntrackedChanges != newValue else { return false }
                    storage.hasPendingUntrackedChanges = newValue
                    return true
                }
                if changed { notify(sendBecameDue: newValue) }
            }
        }

        /// Zones the server reported changed whose record changes have not been fetched yet.
        public var zoneIDsWithUnfetchedServerChanges: [CKRecordZone.ID] {
            storage.withLock { $0.unfetchedZoneIDs }
        }

        /// Adds record changes to send; see the type's discussion for how repeats combine.
        /// Schedules a send when the engine syncs automatically.
        public func add(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
            guard !changes.isEmpty else { return }
            storage.withLock { storage in
                for change in changes { storage.records.add(change, key: change.recordID, isSameKind: Self.sameKind) }
            }
            notify(sendBecameDue: true)
        }

        /// Removes record changes, so they are not sent.
        public func remove(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
            let removed = storage.withLock { storage in
                changes.reduce(false) { $0 || storage.records.remove(change: $1, key: $1.recordID) }
            }
            if removed { notify(sendBecameDue: false) }
        }

        /// Adds zone changes to send before any record change; a save of a zone already
        /// pending takes the new zone object in the old place. Schedules a send when the engine
        /// syncs automatically.
        public func add(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
            guard !changes.isEmpty else { return }
            storage.withLock { storage in
                for change in changes { storage.zones.add(change, key: change.zoneID, isSameKind: ==) }
            }
            notify(sendBecameDue: true)
        }

        /// Removes zone changes, so they are not sent.
        public func remove(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
            let removed = storage.withLock { storage in
                changes.reduce(false) { $0 || storage.zones.remove(change: $1, key: $1.zoneID) }
            }
            if removed { notify(sendBecameDue: false) }
        }

        /// The counts of pending changes and unfetched zones.
        public var description: String {
            storage.withLock { storage in
                "<CKSyncEngine.State pendingRecordZoneChanges=\(storage.records.count) pendingDatabaseChanges=\(storage.zones.count) hasPendingUntrackedChanges=\(storage.hasPendingUntrackedChanges) zoneIDsWithUnfetchedServerChanges=\(storage.unfetchedZoneIDs.count)>"
            }
        }

        private static func sameKind(_ lhs: PendingRecordZoneChange, _ rhs: PendingRecordZoneChange) -> Bool {
            lhs == rhs
        }

        // MARK: The engine's side

        /// Sets the engine's observer of changes.
        func observe(_ observer: @escaping @Sendable (_ sendBecameDue: Bool) -> Void) {
            self.observer.withLock { $0 = observer }
        }

        /// Changes the storage under the lock, as the engine does: the change is marked for the
        /// next `stateUpdate`, which the engine delivers itself, after the event it belongs to,
        /// so the observer is not told.
        @discardableResult
        func update<Result>(_ body: (inout StateStorage) -> Result) -> Result {
            storage.withLock { storage in
                defer { storage.isDirty = true }
                return body(&storage)
            }
        }

        /// Reads the storage under the lock.
        func read<Result>(_ body: (StateStorage) -> Result) -> Result {
            storage.withLock { body($0) }
        }

        /// Takes the dirty mark: true when the state changed since the last call.
        func takeChange() -> Bool {
            storage.withLock { storage in
                defer { storage.isDirty = false }
                return storage.isDirty
            }
        }

        /// The state as a serialization.
        var serialization: Serialization {
            Serialization(snapshot: storage.withLock { $0.snapshot })
        }

        private func notify(sendBecameDue: Bool) {
            storage.withLock { $0.isDirty = true }
            observer.withLock { $0 }?(sendBecameDue)
        }
    }
}

/// The contents of a ``CKSyncEngine/State``.
struct StateStorage: Sendable {
    var userRecordName: String?
    var databaseToken: CKServerChangeToken?
    var zoneTokens: [CKRecordZone.ID: CKServerChangeToken] = [:]
    var records = PendingList<CKRecord.ID, CKSyncEngine.PendingRecordZoneChange>()
    var zones = PendingList<CKRecordZone.ID, CKSyncEngine.PendingDatabaseChange>()
    var hasPendingUntrackedChanges = false
    var unfetchedZoneIDs: [CKRecordZone.ID] = []
    /// The subscription the engine made (or found) for the current user, once it has.
    var subscriptionID: CKSubscription.ID?
    /// Whether the state changed since the last `stateUpdate`.
    var isDirty = false

    /// Marks `zoneIDs` as having changes to fetch, keeping the order they were reported in.
    mutating func markUnfetched(_ zoneIDs: [CKRecordZone.ID]) {
        for zoneID in zoneIDs where !unfetchedZoneIDs.contains(zoneID) { unfetchedZoneIDs.append(zoneID) }
    }

    /// Forgets everything the engine knows about a zone the server no longer has: its token
    /// and its unfetched mark. Pending changes stay: the delegate decides what to do with them.
    mutating func forgetZone(_ zoneID: CKRecordZone.ID) {
        zoneTokens[zoneID] = nil
        unfetchedZoneIDs.removeAll { $0 == zoneID }
    }

    /// Binds a state that names no user to `userRecordName`, as a sign-in does. The changes
    /// the app added stay (it may add them before the first sync); what only a server could
    /// have given the state — change tokens, zones marked unfetched, the subscription — is
    /// dropped, since nothing says whose it is. A state saved before its first sync holds
    /// none of it; one that does is damaged or forged, and its tokens may be another user's,
    /// which the server would refuse at every fetch.
    mutating func bind(to userRecordName: String) {
        self.userRecordName = userRecordName
        databaseToken = nil
        zoneTokens = [:]
        unfetchedZoneIDs = []
        subscriptionID = nil
    }

    /// Empties the state for a new user (nil: signed out).
    mutating func reset(for userRecordName: String?) {
        self = StateStorage(userRecordName: userRecordName)
        isDirty = true
    }
}

/// Pending changes in the order they were added, at most one per key, with a generation that
/// changes whenever an entry is added again, so that a send removes only what it sent and not
/// a change the app made while the request was on its way.
struct PendingList<Key: Hashable & Sendable, Change: Hashable & Sendable>: Sendable {
    private struct Entry: Sendable {
        var change: Change
        var sequence: UInt64
        var generation: UInt64
    }

    private var entries: [Key: Entry] = [:]
    private var nextSequence: UInt64 = 0

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The changes, oldest first.
    var ordered: [Change] {
        entries.values.sorted { $0.sequence < $1.sequence }.map(\.change)
    }

    /// Adds `change`: an entry of the same kind keeps its place (taking the new value), one of
    /// the other kind is replaced at the end.
    mutating func add(_ change: Change, key: Key, isSameKind: (Change, Change) -> Bool) {
        nextSequence += 1
        if var entry = entries[key], isSameKind(entry.change, change) {
            entry.change = change
            entry.generation = nextSequence
            entries[key] = entry
        } else {
            entries[key] = Entry(change: change, sequence: nextSequence, generation: nextSequence)
        }
    }

    /// Removes the entry for `key` when it is `change`; returns whether it did.
    mutating func remove(change: Change, key: Key) -> Bool {
        guard entries[key]?.change == change else { return false }
        entries[key] = nil
        return true
    }

    /// The generation of `change`'s entry, or nil when it is not pending.
    func generation(of change: Change, key: Key) -> UInt64? {
        guard let entry = entries[key], entry.change == change else { return nil }
        return entry.generation
    }

    /// Removes the entry for `key` when it is still `change` at `generation`.
    mutating func removeSent(_ change: Change, key: Key, generation: UInt64?) {
        guard let entry = entries[key], entry.change == change, generation == nil || entry.generation == generation else { return }
        entries[key] = nil
    }

    /// Removes every entry `isIncluded` rejects.
    mutating func removeAll(where shouldRemove: (Change) -> Bool) {
        entries = entries.filter { !shouldRemove($0.value.change) }
    }

    /// Rebuilds a list from changes in order.
    init(_ changes: [(Key, Change)] = []) {
        for (key, change) in changes {
            nextSequence += 1
            entries[key] = Entry(change: change, sequence: nextSequence, generation: nextSequence)
        }
    }
}
