import StratusWire

// Accepting a share: the server writes the share record in the owner's zone, through the
// write pipeline.

extension CloudServer {
    /// What accepting one share did, for the work that follows once its zone is unlocked.
    private struct Acceptance {
        /// The share as the accepting user now sees it.
        var share: WireRecord
        /// The share's container.
        var container: ContainerStore
        /// The accepting user's user record name in the share's container.
        var userRecordName: String
        /// Whether accepting changed the share.
        var changed: Bool
    }

    /// Accepts the share at `url` for `account`.
    func accept(_ url: String, account: String, scope: RequestScope, operationID: String?) -> Result<WireRecord, WireError> {
        let outcome = withShare(url: url, preferring: scope.container) { location, stored in
            acceptLocked(location, stored, url: url, account: account, scope: scope, operationID: operationID)
        }
        switch outcome {
        case nil:
            return .failure(WireError(.unknownItem, "no share has the URL \(url)"))
        case .failure(let error)?:
            return .failure(error)
        case .success(let acceptance)?:
            // A share of another container: the user now uses that container too.
            if acceptance.changed, acceptance.container !== scope.container {
                ensureUserRecords(account: account, userRecordName: acceptance.userRecordName, in: acceptance.container)
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
            changed: false
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
        let write = Write(
            to: location.zone.database, in: location.container, by: WriteOrigin(viewer, operationID: operationID),
            owner: location.zone.ownerUserRecordName, ledger: .account(location.zone.ownerAccount),
            overQuota: { bytes in
                WireError(.quotaExceeded, "accepting the share at \(url) would use \(bytes) more bytes than its owner's storage quota allows")
            }
        )
        do throws(WireError) {
            try perform(write, held: [location.store]) { (write: inout Write) throws(WireError) in
                var transaction = ZoneTransaction(store: location.store)
                transaction.set(updated, named: location.shareName.string)
                write.stage(transaction, for: location.zone.ownerZoneID)
                // The accepting user's shared database must be found by their user record
                // name, even for a share of another container than the request's, when the
                // write is published; a refused acceptance notes nothing.
                write.whenCommitted { location.container.noteAccount(account, userRecordName: caller.userRecordName) }
            }
        } catch {
            return .failure(error)
        }
        var acceptance = unchanged
        acceptance.share = presentInShare(updated.record, at: location, to: viewer)
        acceptance.changed = true
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
