import StratusWire

/// Who sent a request, and where it goes: the container, the account it runs under, and that
/// account's user record name.
struct RequestScope {
    let container: ContainerStore
    /// The device that sent the request.
    let deviceID: String
    let databaseScope: WireDatabaseScope
    let status: WireAccountStatus
    /// The account, when the device has a usable one.
    let account: String?
    /// The user record name of ``account`` in this container.
    let userRecordName: String?

    /// Throws unless the device has a usable account.
    func requireAccount() throws(WireError) -> (account: String, userRecordName: String) {
        switch status {
        case .available:
            if let account, let userRecordName { return (account, userRecordName) }
        case .temporarilyUnavailable:
            throw WireError(.accountTemporarilyUnavailable, "the iCloud account is signed in but not ready yet; wait for CKAccountChanged and retry")
        case .restricted:
            throw WireError(.notAuthenticated, "the iCloud account is restricted on this device")
        case .couldNotDetermine, .noAccount:
            break
        }
        throw WireError(.notAuthenticated, "this request needs an iCloud account, and the device has none signed in")
    }

    /// The database to read: the public one needs no account, the others do.
    func databaseForReading() throws(WireError) -> DatabaseStore {
        if databaseScope == .public { return container.publicDatabase }
        return container.database(databaseScope, account: try requireAccount().account)
    }

    /// The database to change: every database needs an account for writes.
    func databaseForWriting() throws(WireError) -> DatabaseStore {
        let account = try requireAccount().account
        return container.database(databaseScope, account: account)
    }

    /// `zoneID` with the current user's own name as owner replaced by `__defaultOwner__`.
    func normalized(_ zoneID: WireZoneID) -> WireZoneID {
        guard let userRecordName, zoneID.ownerName.hasSameUTF8Bytes(as: userRecordName) else { return zoneID }
        return WireZoneID(zoneName: zoneID.zoneName, ownerName: WireZoneID.currentUserOwnerName)
    }
}
