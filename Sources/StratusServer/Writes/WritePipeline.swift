import StratusWire

// The one write pipeline. Every change to stored data goes through `perform(_:locking:held:_:)`:
//
// 1. lock: the zones the write touches, in one global order (`ZoneStore.lockOrder`);
// 2. validate and transact: the caller's body checks its items and applies them to the zones'
//    transactions, or creates and removes zones (`Write.createZone`, `Write.removeZone`);
// 3. charge: the storage the staged transactions add, to the write's ledger; over the quota,
//    every staged transaction is rolled back and the write fails with `quotaExceeded`;
// 4. commit: each staged transaction, in the order staged;
// 5. publish: the committed changes go to their observers, in this order: the shared
//    audience (participants' shared databases), the write history, and the database's
//    subscriptions (notification collections and pushes).
//
// Nothing else commits a transaction or calls an observer. This is the seam where a storage
// engine other than memory plugs in: steps 3 and 4 become its transaction.

extension WriteOrigin {
    /// The origin of a write made for `scope`'s request.
    init(_ scope: RequestScope, operationID: String?) {
        self.init(deviceID: scope.deviceID, userRecordName: scope.userRecordName, operationID: operationID)
    }
}

/// Whose storage a write is charged to.
enum StorageLedger {
    /// The container's public database.
    case publicDatabase
    /// An account's private storage (its private database and the zones it shares).
    case account(String)
    /// Nobody's: the server's own records.
    case none

    /// The ledger of a write for `scope`'s request: the public database's, or `account`'s
    /// (by default, in the private database, the caller's own; a write to a shared database
    /// names its owner's).
    init(_ scope: RequestScope, account: String? = nil) {
        if scope.databaseScope == .public {
            self = .publicDatabase
        } else if let account = account ?? (scope.databaseScope == .private ? scope.account : nil) {
            self = .account(account)
        } else {
            self = .none
        }
    }
}

/// One write going through the pipeline: where it goes, who makes it, and what it has staged.
struct Write {
    let database: DatabaseStore
    let container: ContainerStore
    let origin: WriteOrigin
    /// The user record name of the owner of `database`'s zones, whose participants see its
    /// shared zones; nil for the public database.
    let owner: String?
    let ledger: StorageLedger
    /// Kept with each zone a staged transaction changes, so a repeated request is recognised.
    var clientChangeToken: ClientChangeToken?
    /// The error when the write needs `bytes` more than the ledger's quota allows.
    var overQuota: (_ bytes: Int) -> WireError

    /// The zones' transactions to commit, in order.
    private(set) var staged: [(zoneID: WireZoneID, transaction: ZoneTransaction)] = []
    /// The zones created or removed.
    private(set) var zoneChanges: [WireZoneID] = []
    /// Who saw each removed zone in their shared database before it was removed.
    private(set) var removedAudiences: [[WireZoneID: Set<String>]] = []
    /// The storage that removed zones gave back.
    private(set) var freedBytes = 0
    /// What runs once the write is committed, before it is published.
    private var commitSteps: [() -> Void] = []

    init(
        to database: DatabaseStore,
        in container: ContainerStore,
        by origin: WriteOrigin,
        owner: String?,
        ledger: StorageLedger,
        clientChangeToken: ClientChangeToken? = nil,
        overQuota: ((_ bytes: Int) -> WireError)? = nil
    ) {
        self.database = database
        self.container = container
        self.origin = origin
        self.owner = owner
        self.ledger = ledger
        self.clientChangeToken = clientChangeToken
        let holder = database.scope == .public ? "container's public" : "account's"
        self.overQuota = overQuota ?? { bytes in
            WireError(.quotaExceeded, "saving would use \(bytes) more bytes than the \(holder) storage quota allows")
        }
    }

    /// Hands a zone's transaction to the pipeline, to be charged, committed and published.
    mutating func stage(_ transaction: ZoneTransaction, for zoneID: WireZoneID) {
        staged.append((zoneID, transaction))
    }

    /// Runs `step` once the write is committed (never when it fails), before the observers
    /// hear of it: for what the observers need to find, such as a new participant's account.
    mutating func whenCommitted(_ step: @escaping () -> Void) {
        commitSteps.append(step)
    }

    /// Creates the custom zone `zoneID` unless it exists.
    mutating func createZone(_ zoneID: WireZoneID, capabilities: WireZone.Capabilities) -> WireZone {
        let (zone, created) = database.createZone(zoneID, capabilities: capabilities)
        if created { zoneChanges.append(zoneID) }
        return zone
    }

    /// Removes the zone `zoneID` with its records, for `reason`, at once: a removal is not
    /// rolled back, so a write that removes zones stages no transaction (and its charge, the
    /// storage given back, cannot fail). Call it for a zone the write has not locked.
    ///
    /// - Returns: Whether the zone existed.
    mutating func removeZone(_ zoneID: WireZoneID, reason: WireZoneDeletionReason = .deleted, assets: AssetStore) -> Bool {
        var audience: [WireZoneID: Set<String>] = [:]
        if let store = database.zone(zoneID) {
            store.acquire()
            audience = store.sharedAudience
            store.release()
        }
        guard let freed = database.removeZone(zoneID, reason: reason, assets: assets) else { return false }
        freedBytes += freed
        removedAudiences.append(audience)
        zoneChanges.append(zoneID)
        return true
    }

    /// Commits the staged transactions in order, runs the steps that wait for the commit, and
    /// says what changed.
    fileprivate mutating func commitStaged(assets: AssetStore) -> DatabaseEvents {
        var events = DatabaseEvents(zoneChanges: zoneChanges)
        for index in staged.indices {
            let committed = staged[index].transaction.commit(in: database, assets: assets, clientChangeToken: clientChangeToken)
            events.recordChanges.append((staged[index].zoneID, committed))
        }
        staged = []
        commitSteps.forEach { $0() }
        return events
    }

    fileprivate mutating func rollBackStaged() {
        for index in staged.indices.reversed() { staged[index].transaction.rollBack() }
        staged = []
    }
}

extension CloudServer {
    /// Runs `body` as one write through the pipeline (see the top of this file): with
    /// `stores` locked, then charges, commits and publishes what it staged. When `body`
    /// throws, what it staged is rolled back and nothing is published; a transaction it changed
    /// and had not staged yet is its own to roll back.
    ///
    /// - Parameter held: Zones the write changes that the caller has locked already.
    func perform<T>(_ write: Write, locking stores: [ZoneStore] = [], held: [ZoneStore] = [], _ body: (inout Write) throws(WireError) -> T) throws(WireError) -> T {
        var write = write
        let acquired = stores.sorted(by: ZoneStore.lockOrder)
        acquired.forEach { $0.acquire() }
        let locked = acquired + held
        defer {
            locked.forEach { $0._checkInvariants() }
            acquired.forEach { $0.release() }
        }
        let audienceBefore = write.database.scope == .private ? ZoneStore.sharedAudience(of: locked) : [:]
        let result: T
        do throws(WireError) {
            result = try body(&write)
        } catch {
            write.rollBackStaged()
            throw error
        }
        let delta = write.staged.reduce(0) { $0 + $1.transaction.storageDelta } - write.freedBytes
        guard chargeStorage(delta, to: write.ledger, in: write.container) else {
            write.rollBackStaged()
            throw write.overQuota(delta)
        }
        let events = write.commitStaged(assets: assets)
        publish(events, of: write, locked: locked, audienceBefore: audienceBefore)
        return result
    }

    /// Hands what a write committed to its observers, with the written zones still locked.
    private func publish(_ events: DatabaseEvents, of write: Write, locked: [ZoneStore], audienceBefore: [WireZoneID: Set<String>]) {
        let container = write.container
        if let owner = write.owner, write.database.scope == .private {
            noteSharedAudience(owner: owner, before: audienceBefore, after: ZoneStore.sharedAudience(of: locked), changes: events.recordChanges, stores: locked, container: container, originator: write.origin.deviceID)
            for audience in write.removedAudiences {
                noteSharedAudience(owner: owner, before: audience, after: [:], container: container, originator: write.origin.deviceID)
            }
        }
        noteWrites(events, database: write.database, origin: write.origin)
        fireSubscriptions(for: events, in: write.database, container: container, originator: write.origin.deviceID)
    }
}
