import Foundation
import StratusServer
import StratusWire
import Synchronization

/// A container: one app's data on a CloudKit server, with its public, private and shared
/// databases.
///
/// In Stratus a container object is also a device: it has a device identity that the service
/// knows an account for. Two container objects for the same identifier are two devices, which
/// is how tests model a user's phone and laptop.
///
/// ```swift
/// let container = CKContainer(identifier: "iCloud.com.example.clowns", service: server)
/// let database = container.privateCloudDatabase
/// ```
///
/// CloudKit document: *CKContainer*.
public final class CKContainer: NSObject, @unchecked Sendable {
    /// The container's identifier, such as `iCloud.com.example.clowns`.
    public let containerIdentifier: String?

    /// The service every request of this container goes to.
    package let service: any CloudService

    /// The device this container object is: every container object of one device shares it.
    package let device: ClientDevice

    /// This device's identity, which the service knows it by.
    package var deviceID: String { device.id }

    /// The databases handed out so far, held weakly: a database keeps its container alive (as
    /// `CKContainer.default().privateCloudDatabase` needs), not the other way round.
    private let databases = Mutex<[CKDatabase.Scope: WeakDatabase]>([:])

    private struct WeakDatabase {
        weak var database: CKDatabase?
    }

    private static let defaultDevices = Mutex<[String: ClientDevice]>([:])

    /// The app's default container on ``CloudServer/shared``: identifier `iCloud.` followed by
    /// the executable's name, or the `STRATUS_CONTAINER` environment variable when it is set.
    ///
    /// It is one process-wide device, signed in to ``CloudServer/defaultAccount``, and the same
    /// object every time.
    public static func `default`() -> CKContainer {
        let identifier = ProcessInfo.processInfo.environment["STRATUS_CONTAINER"]
            ?? "iCloud.\(ProcessInfo.processInfo.processName)"
        return defaultContainers.withLock { containers in
            if let existing = containers[identifier] { return existing }
            let created = CKContainer(identifier: identifier)
            containers[identifier] = created
            return created
        }
    }

    /// The objects `default()` returns, one per identifier, so it returns the same one each time.
    private static let defaultContainers = Mutex<[String: CKContainer]>([:])

    /// The container `identifier` on ``CloudServer/shared``, as this process's device, signed
    /// in to ``CloudServer/defaultAccount``. Every container object for one identifier is the
    /// same device.
    public convenience init(identifier: String) {
        let server = CloudServer.shared
        let device = CKContainer.defaultDevices.withLock { devices in
            if let existing = devices[identifier] { return existing }
            let created = server.makeDevice(containerIdentifier: identifier, account: CloudServer.defaultAccount)
            devices[identifier] = created
            return created
        }
        self.init(identifier: identifier, service: server, device: device)
    }

    /// The queue of `add(_:)`: it sends only a few requests at a time.
    package let operationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "stratus.container"
        queue.maxConcurrentOperationCount = 4
        return queue
    }()

    /// Creates a container that sends its requests to `service`, as a new device.
    ///
    /// - Parameters:
    ///   - identifier: The container's identifier, such as `iCloud.com.example.clowns`.
    ///   - service: Where requests go: an embedded `CloudServer`, or a transport to a remote one.
    public convenience init(identifier: String, service: any CloudService) {
        self.init(identifier: identifier, service: service, device: ClientDevice(id: RandomUUID.string()))
    }

    /// Creates a container object for `device`: another container object of the same device
    /// when the device is already in use.
    package init(identifier: String?, service: any CloudService, device: ClientDevice, convenienceSettings: ConvenienceSettings? = nil) {
        self.containerIdentifier = identifier
        self.service = service
        self.device = device
        self.convenienceSettings = convenienceSettings
        super.init()
    }

    /// The configuration and group the convenience calls of this container's databases use,
    /// when it was made by `configuredWith(configuration:group:body:)`.
    package let convenienceSettings: ConvenienceSettings?

    /// Another object for this container and device whose databases' convenience calls use
    /// `settings`.
    package func configured(_ settings: ConvenienceSettings) -> CKContainer {
        CKContainer(identifier: containerIdentifier, service: service, device: device, convenienceSettings: settings)
    }

    /// The public database, shared by every user of the app: the same object as
    /// `database(with: .public)`, for as long as anyone holds it.
    public var publicCloudDatabase: CKDatabase { database(with: .public) }

    /// The current user's private database: the same object as `database(with: .private)`,
    /// for as long as anyone holds it.
    public var privateCloudDatabase: CKDatabase { database(with: .private) }

    /// The database of shares the current user joined, empty in this release: the same object
    /// as `database(with: .shared)`, for as long as anyone holds it.
    public var sharedCloudDatabase: CKDatabase { database(with: .shared) }

    /// The database with the given scope: the same object as the matching property.
    public func database(with databaseScope: CKDatabase.Scope) -> CKDatabase {
        databases.withLock { databases in
            if let existing = databases[databaseScope]?.database { return existing }
            let created = CKDatabase(container: self, scope: databaseScope, convenienceSettings: convenienceSettings)
            databases[databaseScope] = WeakDatabase(database: created)
            return created
        }
    }

    /// A summary such as `<CKContainer: iCloud.com.example.clowns>`.
    public override var description: String {
        "<CKContainer: \(containerIdentifier ?? "nil")>"
    }
}
