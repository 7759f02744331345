import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/acceptShares(_:)``
    ///
    /// Each URL is accepted on its own, in order. The share is found as for
    /// ``lookupShareMetadata(_:)``, and the requesting user's part in it decided by
    /// ``ShareStanding``:
    /// - an invited user who has not accepted becomes `accepted` (an invitation by address
    ///   takes the user's user record name, so the share names them from then on);
    /// - a visitor of a share open to the public joins as a `publicUser`, `accepted`, with the
    ///   public permission (`tooManyParticipants` when the share already lists the most
    ///   participants a share may have);
    /// - an accepted participant, and the owner, change nothing and get the share;
    /// - an outsider is refused with `participantMayNeedVerification`.
    ///
    /// A change is a write of the share record by the server, in the owner's zone, through the
    /// one write path: a new change tag and modification date, the accepting user as last
    /// modifier, an entry in the zone's change history, the bytes charged to the owner's
    /// storage (`quotaExceeded` when the owner's quota has no room for them), and the owner's
    /// subscriptions fired. The owner's zone is then logged as changed in the shared database of
    /// everyone whose accepted shares cover the share record, the accepting user included, whose database
    /// subscriptions there fire (CloudKit documents neither detail; these are what a
    /// participant's `CKFetchDatabaseChangesOperation` and `CKDatabaseSubscription` need to see
    /// the zone appear and its share change).
    public func acceptShares(_ request: WireAcceptSharesRequest) async throws(WireError) -> WireAcceptSharesResponse {
        let scope = try await begin(request.context, .acceptShares)
        let account = try scope.requireAccount().account
        guard request.shareURLs.count <= WireLimits.maximumItemsPerRequest else {
            throw WireError(.limitExceeded, "\(request.shareURLs.count) share URLs in one request; at most \(WireLimits.maximumItemsPerRequest) are allowed")
        }
        var results: [WireItemResult<String, WireRecord>] = []
        results.reserveCapacity(request.shareURLs.count)
        for url in request.shareURLs {
            results.append(WireItemResult(id: url, result: accept(url, account: account, scope: scope, operationID: request.context.operationID)))
        }
        return WireAcceptSharesResponse(results: results)
    }

    /// What accepting one share did, for the work that follows once its zone is unlocked.
    private struct Acceptance {
        /// The share as the accepting user now sees it.
        var share: WireRecord
        /// The share's container, and the accepting user's user record name there.
        var container: ContainerStore
        var userRecordName: String
        /// The owner's zone as shared databases name it.
        var sharedZoneID: WireZoneID
        /// The accounts whose shared database shows the zone, which the acceptance changed;
        /// empty when nothing changed.
        var watchers: [String]
    }

    /// Accepts the share at `url` for `account`.
    private func accept(_ url: String, account: String, scope: RequestScope, operationID: String?) -> Result<WireRecord, WireError> {
        let outcome = withShare(url: url, preferring: scope.container) { location, stored in
            acceptLocked(location, stored, url: url, account: account, scope: scope, operationID: operationID)
        }
        switch outcome {
        case nil:
            return .failure(WireError(.unknownItem, "no share has the URL \(url)"))
        case .failure(let error)?:
            return .failure(error)
        case .success(let acceptance)?:
            guard !acceptance.watchers.isEmpty else { return .success(acceptance.share) }
            // A share of another container: the user now uses that container too.
            if acceptance.container !== scope.container {
                ensureUserRecords(account: account, userRecordName: acceptance.userRecordName, in: acceptance.container)
            }
            for watcher in acceptance.watchers {
                let shared = acceptance.container.database(.shared, account: watcher)
                shared.noteSharedZone(acceptance.sharedZoneID, deletion: nil)
                fireSubscriptions(for: DatabaseEvents(zoneChanges: [acceptance.sharedZoneID]), in: shared, container: acceptance.container, originator: scope.deviceID)
            }
            return .success(acceptance.share)
        }
    }

    /// Accepts the share `stored` at `location`, whose zone is locked.
    private func acceptLocked(_ location: ShareLocation, _ stored: StoredRecord, url: String, account: String, scope: RequestScope, operationID: String?) -> Result<Acceptance, WireError> {
        let caller = shareCaller(account: account, in: location.container.identifier)
        let viewer = shareScope(for: caller, at: location, deviceID: scope.deviceID)
        var info = stored.record.shareInfo ?? WireShareInfo()
        let unchanged = Acceptance(
            share: presentInShare(stored.record, at: location, to: viewer),
            container: location.container,
            userRecordName: caller.userRecordName,
            sharedZoneID: location.zone.sharedZoneID,
            watchers: []
        )
        switch ShareStanding(of: caller, in: info, ownerUserRecordName: location.zone.ownerUserRecordName) {
        case .outsider:
            return .failure(ShareStanding.outsiderError(url: url))
        case .owner:
            return .success(unchanged)
        case .participant(let index):
            guard info.participants[index].acceptanceStatus != .accepted else { return .success(unchanged) }
            info.participants[index].acceptanceStatus = .accepted
            if info.participants[index].identity.userRecordName == nil {
                info.participants[index].identity.userRecordName = caller.userRecordName
                info.participants[index].identity.hasiCloudAccount = true
            }
        case .visitor:
            guard info.participants.count < WireShareRules.maximumParticipants else {
                return .failure(WireError(.tooManyParticipants, "the share at \(url) already has \(info.participants.count) participants, its owner included; the limit is \(WireShareRules.maximumParticipants)"))
            }
            info.participants.append(publicParticipant(caller, joining: info, at: location))
        }

        var updated = stored
        updated.record.shareInfo = info
        updated.record.changeTag = nextChangeTag()
        updated.record.modificationDate = location.zone.database.nextDate(now: clock.now)
        updated.record.lastModifiedUserRecordName = caller.userRecordName
        var transaction = ZoneTransaction(store: location.store)
        transaction.set(updated, named: location.shareName.string)
        let ownerLedger = RequestScope(
            container: location.container, deviceID: scope.deviceID, databaseScope: .private, status: .available,
            account: location.zone.ownerAccount, userRecordName: location.zone.ownerUserRecordName
        )
        let delta = transaction.storageDelta
        guard chargeStorage(delta, scope: ownerLedger) else {
            transaction.rollBack()
            return .failure(WireError(.quotaExceeded, "accepting the share at \(url) would use \(delta) more bytes than its owner's storage quota allows"))
        }
        let committed = transaction.commit(in: location.zone.database, assets: assets)
        let events = DatabaseEvents(recordChanges: [(location.zone.ownerZoneID, committed)])
        noteWrites(events, database: location.zone.database, scope: viewer, operationID: operationID)
        fireSubscriptions(for: events, in: location.zone.database, container: location.container, originator: scope.deviceID)
        location.store._checkInvariants()

        // Everyone who sees the share record in their shared database: whose accepted shares
        // of the zone cover it (the caller's now does).
        let store = location.store
        var watchers: Set<String> = [account]
        for user in store.acceptedParticipants where store.permission(on: location.shareName, grants: store.grants(for: user)) != nil {
            if let watcher = location.container.account(forUserRecordName: user) { watchers.insert(watcher) }
        }
        var acceptance = unchanged
        acceptance.share = presentInShare(updated.record, at: location, to: viewer)
        acceptance.watchers = watchers.sorted()
        return .success(acceptance)
    }

    /// The participant a visitor of a share open to the public becomes: a `publicUser`,
    /// accepted, with the public permission, named by user record name (and by name only when
    /// discoverable), under an ID derived as the modify path derives new participants' IDs.
    private func publicParticipant(_ caller: ShareCaller, joining info: WireShareInfo, at location: ShareLocation) -> WireShareParticipant {
        let key = "user:" + caller.userRecordName
        let id = ShareRules.token(
            ["participant", location.container.identifier, location.zone.ownerUserRecordName, location.zone.ownerZoneID.zoneName, location.shareName.string, key],
            key: sealingKey
        )
        return WireShareParticipant(
            participantID: id,
            identity: WireUserIdentity(
                userRecordName: caller.userRecordName,
                lookupInfo: WireUserLookupInfo(userRecordID: WireRecordID(recordName: caller.userRecordName)),
                nameComponents: caller.isDiscoverable ? caller.name : nil
            ),
            role: .publicUser,
            acceptanceStatus: .accepted,
            permission: info.publicPermission
        )
    }
}
