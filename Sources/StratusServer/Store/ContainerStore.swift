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

    /// The roles of `recordType` in the public database.
    func permissions(for recordType: String) -> RecordPermissions {
        permissions.withLock { $0[recordType] } ?? .default
    }
}
