import StratusWire

extension CloudServer {
    /// How many changes a change fetch returns when its `resultsLimit` leaves the choice to
    /// the server.
    static let defaultChangesLimit = 200

    /// The zones of `database` changed or deleted since `since`, for `scope`'s caller
    /// (``databaseChanges(_:)``).
    func changes(of database: DatabaseStore, since: ChangeToken?, _ request: WireDatabaseChangesRequest, scope: RequestScope) -> WireDatabaseChangesResponse {
        let position = since?.position ?? 0
        let limit = request.resultsLimit > 0 ? request.resultsLimit : Self.defaultChangesLimit
        let log = database.changeLog
        let pending = log.zones
            .filter { !$0.key.isDefaultZone && $0.value.sequence > position }
            .sorted { $0.value.sequence < $1.value.sequence }
        let page = pending.prefix(limit)
        var changed: [WireZoneID] = []
        var deleted: [WireZoneDeletion] = []
        for (zoneID, change) in page {
            if let reason = change.deletion {
                deleted.append(WireZoneDeletion(zoneID: zoneID, reason: reason))
            } else {
                changed.append(zoneID)
            }
        }
        let token = ChangeToken(
            containerIdentifier: scope.container.identifier,
            database: scope.databaseScope,
            userRecordName: scope.userRecordName,
            subject: .database,
            position: page.last?.value.sequence ?? max(position, log.lastSequence)
        )
        return WireDatabaseChangesResponse(changedZoneIDs: changed, deleted: deleted, token: token.sealed(with: sealingKey), moreComing: pending.count > page.count)
    }

    /// The changes of the zone of `view` since `since`, as its caller sees them.
    ///
    /// In the shared database only records the caller's shares cover now are changes, and
    /// deletions only of records they covered. A record moved out of the caller's share (or
    /// under a record that was) is reported as deleted in the next fetch from a token, and as
    /// changed once moved back in (``CoverageShift``): the token holds across moves. The token
    /// there names the caller's shares of the zone as well as the position in its history
    /// (``ZoneStore/grantsDigest(_:)``): once a share of theirs was added, removed or left,
    /// what the history after the token shows them is no longer all they need (records a new
    /// share covers were saved before; records a lost share covered would never be
    /// reported), so the old token is `changeTokenExpired` and the caller fetches again from
    /// nil.
    func changes(of view: ZoneView, since: ChangeToken?, _ request: WireRecordChangesRequest) throws(WireError) -> WireRecordChangesResponse {
        var view = view
        let position = since?.position ?? 0
        let limit = request.resultsLimit > 0 ? request.resultsLimit : Self.defaultChangesLimit
        try view.acquire()
        defer { view.release() }
        let store = view.store
        let subject: ChangeToken.Subject = view.shared == nil
            ? .zone(view.zoneID, incarnation: store.incarnation)
            : .sharedZone(view.zoneID, incarnation: store.incarnation, grants: store.grantsDigest(view.grants))
        if let since { try Self.checkHeld(since.subject, against: subject, zoneName: request.zoneID.zoneName) }
        if since != nil, position < store.changeLog.historyFloor {
            throw WireError(.changeTokenExpired, "the change token is older than the history zone '\(request.zoneID.zoneName)' keeps; fetch from a nil token")
        }
        let (page, moreComing) = store.changeLog.changes(after: position, limit: limit)
        var changed: [WireRecord] = []
        var deleted: [WireRecordDeletion] = []
        for change in page {
            let deletion = WireRecordDeletion(recordID: WireRecordID(recordName: change.recordName.string, zoneID: view.zoneID), recordType: change.recordType)
            if !change.isDeletion, let stored = store.records[change.recordName] {
                if view.canRead(stored) {
                    changed.append(present(stored.record, in: view, desiredKeys: request.desiredKeys))
                } else if since != nil, store.leftShare(change.recordName, grants: view.grants, after: position) {
                    // Moved out of the caller's share (or under a record that was): gone for them.
                    deleted.append(deletion)
                }
            } else if view.shared == nil || store.coveredDeletion(change, grants: view.grants, after: position) {
                deleted.append(deletion)
            }
        }
        let token = ChangeToken(
            containerIdentifier: view.scope.container.identifier,
            database: view.scope.databaseScope,
            userRecordName: view.scope.userRecordName,
            subject: subject,
            position: page.last?.sequence ?? max(position, store.changeLog.lastSequence)
        )
        return WireRecordChangesResponse(
            changed: changed,
            deleted: deleted,
            token: token.sealed(with: sealingKey),
            moreComing: moreComing,
            // Another user's token is never shown to a participant.
            clientChangeTokenData: view.shared == nil ? store.changeLog.clientChangeTokenData : nil
        )
    }

    /// Refuses a token whose zone is not the zone it fetches now: one deleted and created
    /// again since, or, in the shared database, one where the caller's shares changed since.
    private static func checkHeld(_ held: ChangeToken.Subject, against current: ChangeToken.Subject, zoneName: String) throws(WireError) {
        let recreated = WireError(.changeTokenExpired, "zone '\(zoneName)' was deleted and created again since the token; fetch from a nil token")
        switch (held, current) {
        case (.zone(_, let heldIncarnation), .zone(_, let incarnation)):
            if heldIncarnation != incarnation { throw recreated }
        case (.sharedZone(_, let heldIncarnation, let heldGrants), .sharedZone(_, let incarnation, let grants)):
            if heldIncarnation != incarnation { throw recreated }
            if heldGrants != grants {
                throw WireError(.changeTokenExpired, "what your shares cover in zone '\(zoneName)' changed since the token (a share was added, removed or left, or records were moved); fetch from a nil token")
            }
        default:
            throw WireError(.invalidArguments, "the change token is not one of this database's zones")
        }
    }
}
