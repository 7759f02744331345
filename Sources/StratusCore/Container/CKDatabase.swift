import Foundation
import StratusWire

/// One database of a container: the public one, the user's private one, or the shared one.
///
/// Get databases from a ``CKContainer``; each property returns the same object every time.
///
/// CloudKit document: *CKDatabase*.
public final class CKDatabase: NSObject, @unchecked Sendable {
    /// Which of a container's databases this is: `.public`, `.private` or `.shared`. Declared in
    /// C as `CKDatabaseScope`, so that Swift imports it as it imports CloudKit's: a non-frozen
    /// enum, whose `switch`es end with `@unknown default`.
    public typealias Scope = CKDatabaseScope

    /// Which database this is.
    public let databaseScope: Scope

    /// The container the database belongs to, kept alive by the database.
    package let container: CKContainer

    /// The queue of `add(_:)`: it sends only a few requests at a time.
    package let operationQueue: OperationQueue

    /// The configuration and group this database's convenience calls use, when it was made by
    /// `configuredWith(configuration:group:body:)`.
    package let convenienceSettings: ConvenienceSettings?

    init(container: CKContainer, scope: Scope, convenienceSettings: ConvenienceSettings? = nil) {
        let queue = OperationQueue()
        queue.name = "stratus.database"
        queue.maxConcurrentOperationCount = 4
        self.operationQueue = queue
        self.container = container
        self.databaseScope = scope
        self.convenienceSettings = convenienceSettings
    }

    /// A database object for the same database whose convenience calls use `settings`.
    package func configured(_ settings: ConvenienceSettings) -> CKDatabase {
        CKDatabase(container: container, scope: databaseScope, convenienceSettings: settings)
    }

    /// The service requests go to, from the container.
    package var service: any CloudService { container.service }

    /// A summary such as `<CKDatabase: private, container=iCloud.com.example.clowns>`.
    public override var description: String {
        "<CKDatabase: \(databaseScope), container=\(container.containerIdentifier ?? "nil")>"
    }
}

/// What `configuredWith(configuration:group:body:)` hands a container or database: the operation
/// configuration and group its convenience calls run with. The values are a
/// `CKOperation.Configuration` and a `CKOperationGroup`, declared above this module, so they are
/// held here as objects.
package struct ConvenienceSettings: @unchecked Sendable {
    /// The `CKOperation.Configuration` each convenience call's operation copies, if any.
    package let configuration: AnyObject?
    /// The `CKOperationGroup` each convenience call's operation joins, if any.
    package let group: AnyObject?

    /// Settings with `configuration` and `group`.
    package init(configuration: AnyObject?, group: AnyObject?) {
        self.configuration = configuration
        self.group = group
    }
}

extension CKDatabaseScope: @retroactive CustomStringConvertible {
    /// The scope's Swift name: `public`, `private` or `shared`.
    public var description: String {
        switch self {
        case .public: "public"
        case .private: "private"
        case .shared: "shared"
        @unknown default: "CKDatabase.Scope(rawValue: \(rawValue))"
        }
    }

    /// The scope as the service names it; an undefined raw value is the private database.
    package var wireValue: WireDatabaseScope {
        switch self {
        case .public: .public
        case .shared: .shared
        case .private: .private
        @unknown default: .private
        }
    }
}
