import StratusWire

extension CloudServer {
    /// Deletes a zone of an account's private database the way a user does from the device's
    /// iCloud settings ("delete data"): database change fetches report it as purged
    /// (`recordZoneWithIDWasPurgedBlock`, `Deletion.Reason.purged`), and requests that name it
    /// fail with `userDeletedZone` until the app creates it again. Database subscriptions fire,
    /// and every device of the account gets the push.
    ///
    /// - Returns: Whether the zone existed.
    @discardableResult
    public func purgeZone(named zoneName: String, account: String, containerIdentifier: String) -> Bool {
        remove([WireZoneID(zoneName: zoneName)], reason: .purged, account: account, containerIdentifier: containerIdentifier) > 0
    }

    /// Deletes every custom zone of an account's private database the way an encrypted-data
    /// reset (account recovery) does: database change fetches report each with
    /// `recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock`
    /// (`Deletion.Reason.encryptedDataReset`), and requests that name one fail with
    /// `zoneNotFound` carrying `CKErrorUserDidResetEncryptedDataKey` until it is created again.
    public func resetEncryptedData(account: String, containerIdentifier: String) {
        let database = containerStore(containerIdentifier).database(.private, account: account)
        remove(database.customZoneIDs, reason: .encryptedDataReset, account: account, containerIdentifier: containerIdentifier)
    }

    /// Removes zones of an account's private database for `reason`, giving their storage back.
    ///
    /// - Returns: How many zones existed.
    @discardableResult
    private func remove(_ zoneIDs: [WireZoneID], reason: WireZoneDeletionReason, account: String, containerIdentifier: String) -> Int {
        let container = containerStore(containerIdentifier)
        let database = container.database(.private, account: account)
        let owner = userRecordName(account: account, containerIdentifier: containerIdentifier)
        let write = Write(to: database, in: container, by: .server, owner: owner, ledger: .account(account))
        // Removing only gives storage back, so the write cannot go over a quota and fail.
        let removed = (try? perform(write) { (write: inout Write) throws(WireError) in
            zoneIDs.filter { !$0.isDefaultZone && write.removeZone($0, reason: reason, assets: assets) }
        }) ?? []
        return removed.count
    }
}
