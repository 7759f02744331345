import Foundation
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

    /// The app's default container: identifier `iCloud.` followed by the executable's name, or
    /// the `STRATUS_CONTAINER` environment variable when it is set, on the default service
    /// (with `import Stratus`, the embedded `CloudServer.shared`).
    ///
    /// It is one process-wide device, signed in to the default service's default account
    /// (`CloudServer.defaultAccount`), and the same object every time.
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

    /// The container `identifier` on the default service (with `import Stratus`, the embedded
    /// `CloudServer.shared`), as this process's device, signed in to the service's default
    /// account. Every container object for one identifier is the same device.
    public convenience init(identifier: String) {
        let (service, device) = DefaultService.device(containerIdentifier: identifier)
        self.init(identifier: identifier, service: service, device: device)
    }

    /// The queue of `add(_:)`: it sends only a few requests at a time.
    package let operationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "stratus.container"
        queue.maxConcurrentOperationCount = 4
        return queue
    }()

    /// Creates a container that sends its requests to `service`, as a new device with no
    /// account: its requests are anonymous until it signs in
    /// (``signIn(identifier:service:account:clock:)`` makes a signed-in device).
    ///
    /// - Parameters:
    ///   - identifier: The container's identifier, such as `iCloud.com.example.clowns`.
    ///   - service: Where requests go: an embedded `CloudServer`, or a transport to a remote one.
    ///   - clock: The device's clock, for request timeouts and retry-after waits; the wall
    ///     clock unless given.
    public convenience init(identifier: String, service: any CloudService, clock: any CloudClock = SystemClock()) {
        self.init(identifier: identifier, service: service, device: ClientDevice(id: RandomUUID.string(), clock: clock))
    }

    /// A new device of the container `identifier`, signed in to `account` through `service`
    /// (`session/open`): the service opens the session the device's requests carry, and
    /// forgets the device when its last container object goes away.
    ///
    /// - Parameters:
    ///   - identifier: The container's identifier, such as `iCloud.com.example.clowns`.
    ///   - service: Where requests go.
    ///   - account: The account to sign in to; nil for a device with no account.
    ///   - clock: The device's clock; the wall clock unless given.
    /// - Throws: The service's refusal as a `CKError`.
    ///
    /// - Note: Not part of CloudKit, where the device's iCloud account signs it in.
    public static func signIn(identifier: String, service: any CloudService, account: String?, clock: any CloudClock = SystemClock()) async throws -> CKContainer {
        let session: WireSession
        do {
            session = try await service.openSession(WireSessionRequest(containerIdentifier: identifier, account: account))
        } catch {
            throw CKError(error)
        }
        let device = ClientDevice(id: session.deviceID, sessionToken: session.sessionToken, clock: clock) { deviceID in
            Task { await service.closeSession(deviceID: deviceID) }
        }
        return CKContainer(identifier: identifier, service: service, device: device)
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
