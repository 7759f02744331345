import StratusWire

extension CloudServer {
    /// The record type of user records: `Users` (`CKRecord.SystemType.userRecord`).
    static let userRecordType = "Users"

    /// Whether `name` has the shape of a user record name: `_` and 32 lowercase hexadecimal
    /// digits. Such names are the server's to give: no client may create a record with one in
    /// a default zone, so no account can take the name of another's user record before that
    /// user first comes.
    static func isUserRecordName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return bytes.count == 33 && bytes[0] == 0x5F
            && bytes.dropFirst().allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Creates the account's `Users` records, in the public database and in its private
    /// database, the first time the account uses the container, through the one write path.
    ///
    /// The server makes user records itself, and a record found under the user's name that is
    /// not the user's own user record is replaced.
    func ensureUserRecords(account: String, userRecordName: String, in container: ContainerStore) {
        let key = "\(account)\u{0}\(container.identifier)"
        guard !registry.withLock({ $0.knownUsers.contains(key) }) else { return }
        container.noteAccount(account, userRecordName: userRecordName)
        for database in [container.publicDatabase, container.database(.private, account: account)] {
            guard let zone = database.zone(.defaultZone) else { continue }
            let write = Write(to: database, in: container, by: .server, owner: nil, ledger: .none)
            // The server's own write: no quota applies, so it cannot fail.
            try? perform(write, locking: [zone]) { (write: inout Write) throws(WireError) in
                var transaction = ZoneTransaction(store: zone)
                let existing = transaction.record(named: userRecordName)?.record
                if existing?.recordType != Self.userRecordType || existing?.creatorUserRecordName != userRecordName {
                    if existing != nil { transaction.deleteCascading(userRecordName) }
                    let date = database.nextDate(now: clock.now)
                    let record = WireRecord(
                        recordID: WireRecordID(recordName: userRecordName),
                        recordType: Self.userRecordType,
                        changeTag: nextChangeTag(),
                        creationDate: date,
                        modificationDate: date,
                        creatorUserRecordName: userRecordName,
                        lastModifiedUserRecordName: userRecordName
                    )
                    transaction.set(StoredRecord(record: record, assetBytes: 0), named: userRecordName)
                }
                write.stage(transaction, for: .defaultZone)
            }
        }
        // Marked known only once the records exist, so a concurrent first request finds them.
        registry.withLock { _ = $0.knownUsers.insert(key) }
    }

    /// Why a client may not make this save or delete of a user record, or nil: only the
    /// server creates user records, only their own user changes one, none may be deleted, and
    /// none holds a `deleteSelf` reference (deleting its target would delete the user record).
    func userRecordRule(saving incoming: WireRecord?, over existing: WireRecord?, user: String) -> WireError? {
        let name = (incoming ?? existing)?.recordID.recordName ?? ""
        guard let incoming else {
            guard existing?.recordType == Self.userRecordType else { return nil }
            return WireError(.permissionFailure, "user record '\(name)' cannot be deleted")
        }
        if let existing {
            guard existing.recordType == Self.userRecordType else { return nil }
            guard name == user else {
                return WireError(.permissionFailure, "user record '\(name)' belongs to another user; only its user may change it")
            }
            if StoredRecord(record: incoming, assetBytes: 0).deleteSelfTargets.isEmpty == false {
                return WireError(.invalidArguments, "user record '\(name)' cannot hold a deleteSelf reference")
            }
            return nil
        }
        if incoming.recordType == Self.userRecordType {
            return WireError(.permissionFailure, "records of type '\(Self.userRecordType)' are created by the server, one per user")
        }
        if incoming.recordID.zoneID.isDefaultZone, Self.isUserRecordName(name) {
            return WireError(.permissionFailure, "record name '\(name)' is reserved for a user record")
        }
        return nil
    }
}
