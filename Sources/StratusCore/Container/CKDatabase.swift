import Foundation
import StratusWire

/// One database of a container: the public one, the user's private one, or the shared one.
///
/// Get databases from a ``CKContainer``; each property returns the same object every time.
///
/// CloudKit document: *CKDatabase*.
public final class CKDatabase: NSObject, @unchecked Sendable {
    /// Which of a container's databases this is.
    public enum Scope: Int, Hashable, Sendable {
        /// The container's public database, shared by every user; readable without an account.
        case `public` = 1
        /// The user's private database; needs an account.
        case `private` = 2
        /// The databases of other users' shares the user joined; empty in this release.
        case shared = 3

        package var wireValue: WireDatabaseScope {
            switch self {
            case .public: .public
            case .private: .private
            case .shared: .shared
            }
        }
    }

    /// Which database this is.
    public let databaseScope: Scope

    /// The container the database belongs to, kept alive by the database.
    package let container: CKContainer

    /// The queue of `add(_:)`: it sends only a few requests at a time.
    package let operationQueue: OperationQueue

    init(container: CKContainer, scope: Scope) {
        let queue = OperationQueue()
        queue.name = "stratus.database"
        queue.maxConcurrentOperationCount = 4
        self.operationQueue = queue
        self.container = container
        self.databaseScope = scope
    }

    /// The service requests go to, from the container.
    package var service: any CloudService { container.service }

    /// A summary such as `<CKDatabase: private, container=iCloud.com.example.clowns>`.
    public override var description: String {
        "<CKDatabase: \(databaseScope), container=\(container.containerIdentifier ?? "nil")>"
    }
}
