import Foundation
import StratusWire

// The shared database's reads. A participant's shared database holds no records of its own:
// each zone in it is an owner's zone, named by the owner's user record name, where the
// participant accepted a share. Only what those shares cover is visible; anything else reads
// as if it did not exist, so nothing of a zone leaks to an account it is not shared with.

extension CloudServer {
    /// A record lookup in the shared database.
    func lookUpShared(_ recordID: WireRecordID, scope: RequestScope, desiredKeys: [String]?) -> Result<WireRecord, WireError> {
        if let error = WireValidation.checkRecordName(recordID.recordName) ?? WireValidation.checkZoneName(recordID.zoneID.zoneName) {
            return .failure(error)
        }
        if let refusal = scope.refusalInSharedDatabase(of: recordID.zoneID) { return .failure(refusal) }
        guard let user = scope.userRecordName, let zone = scope.sharedZone(recordID.zoneID) else {
            return .failure(Self.notShared(recordID.zoneID))
        }
        zone.store.acquire()
        defer { zone.store.release() }
        let grants = zone.store.isDeleted ? [] : zone.store.grants(for: user)
        guard !grants.isEmpty else { return .failure(Self.notShared(recordID.zoneID)) }
        let name = WireName(recordID.recordName)
        guard let stored = zone.store.records[name], zone.store.permission(on: name, grants: grants) != nil else {
            return .failure(WireError(.unknownItem, "record '\(recordID.recordName)' does not exist"))
        }
        return .success(presentShared(stored.record, of: zone, to: scope, desiredKeys: desiredKeys))
    }

    /// The zones of the caller's shared database.
    func listSharedZones(_ scope: RequestScope) -> [WireZone] {
        scope.sharedZones().map(Self.sharedZoneValue)
    }

    /// One zone of the caller's shared database.
    func lookUpSharedZone(_ zoneID: WireZoneID, scope: RequestScope) -> Result<WireZone, WireError> {
        if let error = WireValidation.checkZoneName(zoneID.zoneName) ?? scope.refusalInSharedDatabase(of: zoneID) { return .failure(error) }
        guard let user = scope.userRecordName, let zone = scope.sharedZone(zoneID) else { return .failure(Self.notShared(zoneID)) }
        zone.store.acquire()
        defer { zone.store.release() }
        guard !zone.store.isDeleted, !zone.store.grants(for: user).isEmpty else { return .failure(Self.notShared(zoneID)) }
        return .success(Self.sharedZoneValue(zone))
    }

    /// The changes of a zone of the caller's shared database since `request.sinceToken`:
    /// only records the caller's shares cover now, and the deletions of records they covered.
    /// A record moved out of the caller's share (or under a record that was) is reported as
    /// deleted in the next fetch from a token, and as changed once moved back in
    /// (``CoverageShift``): the token holds across moves.
    ///
    /// The token names the caller's shares of the zone as well as the position in its history
    /// (``ZoneStore/grantsDigest(_:)``): once a share of theirs was added, removed or left,
    /// what the history after the token shows them is no longer all they need (records a new
    /// share covers were saved before; records a lost share covered would never be
    /// reported), so the old token is `changeTokenExpired` and the caller fetches again from
    /// nil.
    func sharedRecordChanges(_ request: WireRecordChangesRequest, scope: RequestScope, since: ChangeToken?) throws(WireError) -> WireRecordChangesResponse {
        guard let user = scope.userRecordName, let zone = scope.sharedZone(request.zoneID) else { throw Self.notShared(request.zoneID) }
        let position = since?.position ?? 0
        var held: (incarnation: UInt64, grants: UInt64)?
        if let since {
            guard case .sharedZone(_, let incarnation, let grants) = since.subject else {
                throw WireError(.invalidArguments, "the change token is not one of a shared database's zones")
            }
            held = (incarnation, grants)
        }
        let limit = request.resultsLimit > 0 ? request.resultsLimit : Self.defaultChangesLimit

        let store = zone.store
        store.acquire()
        defer { store.release() }
        let grants = store.isDeleted ? [] : store.grants(for: user)
        guard !grants.isEmpty else { throw Self.notShared(request.zoneID) }
        let digest = store.grantsDigest(grants)
        if let held, held.incarnation != store.incarnation {
            throw WireError(.changeTokenExpired, "zone '\(request.zoneID.zoneName)' was deleted and created again since the token; fetch from a nil token")
        }
        if let held, held.grants != digest {
            throw WireError(.changeTokenExpired, "what your shares cover in zone '\(request.zoneID.zoneName)' changed since the token (a share was added, removed or left, or records were moved); fetch from a nil token")
        }
        if since != nil, position < store.changeLog.historyFloor {
            throw WireError(.changeTokenExpired, "the change token is older than the history zone '\(request.zoneID.zoneName)' keeps; fetch from a nil token")
        }
        let (page, moreComing) = store.changeLog.changes(after: position, limit: limit)
        var changed: [WireRecord] = []
        var deleted: [WireRecordDeletion] = []
        for change in page {
            if !change.isDeletion, let stored = store.records[change.recordName] {
                if store.permission(on: change.recordName, grants: grants) != nil {
                    changed.append(presentShared(stored.record, of: zone, to: scope, desiredKeys: request.desiredKeys))
                } else if since != nil, store.leftShare(change.recordName, grants: grants, after: position) {
                    // Moved out of the caller's share (or under a record that was): gone for them.
                    deleted.append(WireRecordDeletion(recordID: WireRecordID(recordName: change.recordName.string, zoneID: zone.sharedZoneID), recordType: change.recordType))
                }
            } else if store.coveredDeletion(change, grants: grants, after: position) {
                deleted.append(WireRecordDeletion(recordID: WireRecordID(recordName: change.recordName.string, zoneID: zone.sharedZoneID), recordType: change.recordType))
            }
        }
        let token = ChangeToken(
            containerIdentifier: scope.container.identifier,
            database: .shared,
            userRecordName: user,
            subject: .sharedZone(zone.sharedZoneID, incarnation: store.incarnation, grants: digest),
            position: page.last?.sequence ?? max(position, store.changeLog.lastSequence)
        )
        return WireRecordChangesResponse(changed: changed, deleted: deleted, token: token.sealed(with: sealingKey), moreComing: moreComing, clientChangeTokenData: nil)
    }

    /// The zone as the shared database shows it.
    private static func sharedZoneValue(_ zone: SharedZone) -> WireZone {
        var value = zone.store.zone
        value.zoneID = zone.sharedZoneID
        value.share = value.share?.relabelingOwner(WireZoneID.currentUserOwnerName, as: zone.ownerUserRecordName)
        return value
    }

    /// The answer for a zone the caller's shared database does not have: the same whether the
    /// zone does not exist or is not shared with the caller.
    static func notShared(_ zoneID: WireZoneID) -> WireError {
        WireError(.zoneNotFound, "zone '\(zoneID.zoneName)' of user '\(zoneID.ownerName)' is not in your shared database")
    }
}


extension CloudServer {
    /// How many changes a change fetch returns when its `resultsLimit` leaves the choice to
    /// the server.
    static let defaultChangesLimit = 200
}
