import StratusWire

/// One zone as the caller of a request sees it, in any database: the read view every read
/// endpoint goes through, so the private, public and shared databases share one
/// implementation of each read.
///
/// - In the private database, the caller's own zone: every record is theirs to read.
/// - In the public database, the container's zone: the record types' security roles decide
///   what the caller may read.
/// - In the shared database, an owner's zone where the caller accepted a share
///   (``SharedZone``), named by the owner's user record name: only what the caller's shares
///   cover is visible, and anything else reads as if it did not exist, so nothing of a zone
///   leaks to an account it is not shared with.
///
/// Open a view with ``CloudServer/view(of:in:scope:)``, then ``acquire()`` it before reading
/// records; ``release()`` when done.
struct ZoneView {
    let store: ZoneStore
    let scope: RequestScope
    /// The database that holds the zone: for a zone of the shared database, its owner's
    /// private database.
    let database: DatabaseStore
    /// The owner's zone, for a zone of the shared database.
    let shared: SharedZone?
    /// What the caller's shares cover, for a zone of the shared database; found by ``acquire()``.
    private(set) var grants: [ShareGrant] = []

    /// A view of a zone of the caller's own or the public database.
    init(_ store: ZoneStore, in database: DatabaseStore, scope: RequestScope) {
        self.store = store
        self.database = database
        self.scope = scope
        shared = nil
    }

    /// A view of an owner's zone in the caller's shared database.
    init(_ zone: SharedZone, scope: RequestScope) {
        store = zone.store
        database = zone.database
        self.scope = scope
        shared = zone
    }

    /// The zone's ID as the caller's database names it.
    var zoneID: WireZoneID { shared?.sharedZoneID ?? store.zoneID }

    /// Locks the zone and checks that the caller still sees it: it was not deleted meanwhile,
    /// and in the shared database, the caller's shares still cover something in it. When it
    /// throws, the zone is unlocked again.
    mutating func acquire() throws(WireError) {
        store.acquire()
        if let shared {
            grants = store.isDeleted ? [] : store.grants(for: scope.userRecordName ?? "")
            if grants.isEmpty {
                store.release()
                throw CloudServer.notShared(shared.sharedZoneID)
            }
        } else if store.isDeleted {
            store.release()
            throw database.missingZoneError(zoneID)
        }
    }

    /// Unlocks the zone.
    func release() {
        store.release()
    }

    /// Why the caller may not read `stored`, a record of the locked zone, or nil: in the
    /// public database the record type's security roles, in the shared database the caller's
    /// shares (a record they do not cover does not exist for them).
    func readRefusal(of stored: StoredRecord) -> WireError? {
        if shared != nil {
            guard store.permission(on: WireName(stored.record.recordID.recordName), grants: grants) == nil else { return nil }
            return WireError(.unknownItem, "record '\(stored.record.recordID.recordName)' does not exist")
        }
        guard scope.databaseScope == .public else { return nil }
        let grants = scope.container.permissions(for: stored.record.recordType)
            .grants(signedIn: scope.account != nil, isCreator: scope.isCreator(of: stored))
        guard !grants.contains(.read) else { return nil }
        return WireError(.permissionFailure, "reading records of type '\(stored.record.recordType)' is not allowed for this user")
    }

    /// Whether the caller may read `stored`, a record of the locked zone.
    func canRead(_ stored: StoredRecord) -> Bool {
        readRefusal(of: stored) == nil
    }

    /// The zone as the caller's database shows it.
    var zone: WireZone {
        guard let shared else { return store.zone }
        var value = store.zone
        value.zoneID = shared.sharedZoneID
        value.share = value.share?.relabelingOwner(WireZoneID.currentUserOwnerName, as: shared.ownerUserRecordName)
        return value
    }

    /// A query's predicate as the zone's records spell it: a shared zone's records name their
    /// owner `__defaultOwner__`, as the owner's database does.
    func storedForm(of predicate: WirePredicate) -> WirePredicate {
        guard let shared else { return predicate }
        return predicate.relabelingOwner(shared.ownerUserRecordName, as: WireZoneID.currentUserOwnerName)
    }
}

extension CloudServer {
    /// The view of the zone `zoneID` names in `database`, for `scope`'s caller; not locked yet.
    ///
    /// - Throws: what a request naming the zone gets: `zoneNotFound` (or the reason the zone
    ///   was lost) when the database has no such zone for the caller, and in the shared
    ///   database `invalidArguments` for a zone that can never be there
    ///   (``RequestScope/refusalInSharedDatabase(of:)``).
    func view(of zoneID: WireZoneID, in database: DatabaseStore, scope: RequestScope) throws(WireError) -> ZoneView {
        if database.scope == .shared {
            if let refusal = scope.refusalInSharedDatabase(of: zoneID) { throw refusal }
            guard scope.userRecordName != nil, let zone = scope.sharedZone(zoneID) else { throw Self.notShared(zoneID) }
            return ZoneView(zone, scope: scope)
        }
        let normalized = scope.normalized(zoneID)
        guard let store = database.zone(normalized) else { throw database.missingZoneError(normalized) }
        return ZoneView(store, in: database, scope: scope)
    }

    /// The views of every zone of `database` the caller sees.
    func views(of database: DatabaseStore, scope: RequestScope) -> [ZoneView] {
        guard database.scope == .shared else { return database.allZones.map { ZoneView($0, in: database, scope: scope) } }
        return scope.sharedZones().map { ZoneView($0, scope: scope) }
    }

    /// A record of a locked zone as the caller of `view` sees it (``present(_:to:desiredKeys:in:)``):
    /// in the shared database with the zone-wide share as its `share` when the zone is shared
    /// whole, and the owner's zone named by the owner's user record name.
    func present(_ record: WireRecord, in view: ZoneView, desiredKeys: [String]?) -> WireRecord {
        guard let shared = view.shared else { return present(record, to: view.scope, desiredKeys: desiredKeys, in: view.store) }
        var shown = record
        if shown.share == nil, !WireShareRules.isShareType(shown.recordType) { shown.share = view.store.zone.share }
        shown = shown.relabelingOwner(WireZoneID.currentUserOwnerName, as: shared.ownerUserRecordName)
        return present(shown, to: view.scope, desiredKeys: desiredKeys)
    }

    /// The answer for a zone the caller's shared database does not have: the same whether the
    /// zone does not exist or is not shared with the caller.
    static func notShared(_ zoneID: WireZoneID) -> WireError {
        WireError(.zoneNotFound, "zone '\(zoneID.zoneName)' of user '\(zoneID.ownerName)' is not in your shared database")
    }
}
