import Foundation
import StratusWire

extension CloudServer {
    /// Registers a new device of `containerIdentifier`, signed in to `account` (nil: no account).
    ///
    /// - Returns: The device's identity, which its requests carry.
    package func registerDevice(containerIdentifier: String, account: String?) -> String {
        let deviceID = UUID().uuidString
        registry.withLock { registry in
            registry.devices[deviceID] = Device(containerIdentifier: containerIdentifier, account: account)
            if registry.containers[containerIdentifier] == nil {
                registry.containers[containerIdentifier] = ContainerStore(identifier: containerIdentifier)
            }
        }
        return deviceID
    }

    /// Signs the device in to `account`, or out when nil; clears any account state set with
    /// ``setAccountStatus(_:forDevice:)``. Requests already sent run under the old account.
    package func setAccount(_ account: String?, forDevice deviceID: String) {
        registry.withLock { registry in
            let container = registry.devices[deviceID]?.containerIdentifier ?? ""
            registry.devices[deviceID] = Device(containerIdentifier: container, account: account)
        }
    }

    /// Overrides the account state the device reports and works under: `.restricted` and
    /// `.couldNotDetermine` make requests that need an account fail with `notAuthenticated`,
    /// `.temporarilyUnavailable` with `accountTemporarilyUnavailable`. nil goes back to the
    /// state the sign-in gives.
    package func setAccountStatus(_ status: WireAccountStatus?, forDevice deviceID: String) {
        registry.withLock { $0.devices[deviceID]?.statusOverride = status }
    }

    /// The account the device is signed in to, if any.
    package func account(ofDevice deviceID: String) -> String? {
        registry.withLock { $0.devices[deviceID]?.account }
    }

    /// The user record name of `account` in a container: `_` and 32 hexadecimal digits, the
    /// same on every server and every run for the same account and container.
    public func userRecordName(account: String, containerIdentifier: String) -> String {
        "_" + SHA256.hex(Array("stratus-user\u{0}\(account)\u{0}\(containerIdentifier)".utf8)).prefix(32)
    }

    /// Creates the account's `Users` records, in the public database and in its private
    /// database, the first time the account uses the container.
    func ensureUserRecords(account: String, userRecordName: String, in container: ContainerStore) {
        let key = "\(account)\u{0}\(container.identifier)"
        guard !registry.withLock({ $0.knownUsers.contains(key) }) else { return }
        for database in [container.publicDatabase, container.database(.private, account: account)] {
            guard let zone = database.zone(.defaultZone) else { continue }
            zone.acquire()
            if zone.records[userRecordName] == nil {
                let date = database.nextDate(now: clock.now)
                let record = WireRecord(
                    recordID: WireRecordID(recordName: userRecordName),
                    recordType: "Users",
                    changeTag: nextChangeTag(),
                    creationDate: date,
                    modificationDate: date,
                    creatorUserRecordName: userRecordName,
                    lastModifiedUserRecordName: userRecordName
                )
                zone.setRecord(StoredRecord(record: record, assetBytes: 0), named: userRecordName)
            }
            zone.release()
        }
        // Marked known only once the records exist, so a concurrent first request finds them.
        registry.withLock { _ = $0.knownUsers.insert(key) }
    }
}
