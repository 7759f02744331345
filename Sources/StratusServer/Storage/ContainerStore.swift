import StratusWire
import Synchronization

/// One container: its public database, one private and one shared database per account, its
/// schema, the security roles of its public record types, and each account's notification
/// collection.
final class ContainerStore: Sendable {
    let identifier: String
    let settings: StoreSettings
    let publicDatabase: DatabaseStore
    private let accountDatabases = Mutex<[String: (private: DatabaseStore, shared: DatabaseStore)]>([:])
    let schema = Mutex(ServerSchema())
    let permissions = Mutex<[String: RecordPermissions]>([:])
    /// Storage used by the public database, in bytes, and its quota (nil: unlimited).
    let publicStorage = Mutex<(used: Int, quota: Int?)>((0, nil))
    /// Each account's notification collection, by the account's user record name.
    let notifications = Mutex<[String: NotificationCollection]>([:])
    /// The accounts that have used the container, by their user record name in it: how a
    /// shared zone's owner name leads to the owner's private database.
    private let accountsByUserRecordName = Mutex<[String: String]>([:])
    /// Where the container's shares are, found by URL.
    let shareDirectory = ShareDirectory()

    init(identifier: String, settings: StoreSettings) {
        self.identifier = identifier
        self.settings = settings
        self.publicDatabase = DatabaseStore(scope: .public, settings: settings)
    }

    /// The account's private or shared database, created on first use.
    func database(_ scope: WireDatabaseScope, account: String) -> DatabaseStore {
        if scope == .public { return publicDatabase }
        let pair = accountDatabases.withLock { databases in
            if let existing = databases[account] { return existing }
            let created = (private: DatabaseStore(scope: .private, settings: settings), shared: DatabaseStore(scope: .shared, settings: settings))
            databases[account] = created
            return created
        }
        return scope == .private ? pair.private : pair.shared
    }

    /// Remembers that `account` is `userRecordName` in this container.
    func noteAccount(_ account: String, userRecordName: String) {
        accountsByUserRecordName.withLock { $0[userRecordName] = account }
    }

    /// The account whose user record name in this container is `userRecordName`, if it has
    /// used the container.
    func account(forUserRecordName userRecordName: String) -> String? {
        accountsByUserRecordName.withLock { $0[userRecordName] }
    }

    /// Every account that has used the container, with its user record name, in a stable
    /// order (by user record name).
    func owners() -> [(account: String, userRecordName: String)] {
        accountsByUserRecordName.withLock { $0 }.map { (account: $0.value, userRecordName: $0.key) }.sorted { $0.userRecordName < $1.userRecordName }
    }

    /// The roles of `recordType` in the public database.
    func permissions(for recordType: String) -> RecordPermissions {
        permissions.withLock { $0[recordType] } ?? .default
    }
}
