import Foundation
import StratusCore
import StratusServer
import StratusWire

extension CloudServer {
    /// The account that `CKContainer.default()` and `CKContainer(identifier:)` are signed in to
    /// on ``CloudServer/shared``: `"default"`.
    public static let defaultAccount = "default"

    /// A new device of the container `identifier`, signed in to `account`.
    ///
    /// Every call is a new device. Devices of the same account share its private database;
    /// pass nil for a device with no iCloud account, which can still read the public database.
    ///
    /// ```swift
    /// let john  = server.container(identifier: "iCloud.com.example.clowns", account: "john")
    /// let phone = server.container(identifier: "iCloud.com.example.clowns", account: "john")
    /// let guest = server.container(identifier: "iCloud.com.example.clowns", account: nil)
    /// ```
    ///
    /// With the environment variable `STRATUS_WIRE=json`, the container's requests and answers
    /// cross as JSON (``JSONWireService``), as a network transport's would.
    public func container(identifier: String, account: String?) -> CKContainer {
        CKContainer(identifier: identifier, service: clientService, device: makeDevice(containerIdentifier: identifier, account: account))
    }

    /// The service the devices this wiring makes send to: this server, or, with
    /// `STRATUS_WIRE=json`, this server behind ``JSONWireService``, so that every request and
    /// answer crosses as JSON.
    var clientService: any CloudService {
        Self.sendsJSON ? JSONWireService(wrapping: self) : self
    }

    /// Whether `STRATUS_WIRE=json` was set when the process started: read once, since reading
    /// the environment copies all of it.
    private static let sendsJSON = ProcessInfo.processInfo.environment["STRATUS_WIRE"] == "json"

    /// Registers a new device signed in to `account` (`session/open`, without waiting), on the
    /// server's clock; the server forgets it when the last container object of the device goes
    /// away. A request the server refuses (an empty identifier or account name) gives a device
    /// it does not know, whose requests are anonymous.
    func makeDevice(containerIdentifier: String, account: String?) -> ClientDevice {
        let request = WireSessionRequest(containerIdentifier: containerIdentifier, account: account)
        guard let session = try? openSessionNow(request) else { return ClientDevice(id: RandomUUID.string(), clock: clock) }
        return ClientDevice(id: session.deviceID, sessionToken: session.sessionToken, clock: clock) { [weak self] deviceID in
            self?.unregisterDevice(deviceID)
        }
    }

    /// Opens a new session for the device of `container` (`session/open`, without waiting):
    /// the token its requests carry from now on; nil for a device the server does not know.
    private func reopenSession(_ container: CKContainer, as account: String?) {
        let request = WireSessionRequest(containerIdentifier: container.containerIdentifier ?? "", deviceID: container.deviceID, account: account)
        container.device.sessionToken = (try? openSessionNow(request))?.sessionToken
    }

    /// Signs the device out: its account status becomes `.noAccount`, and `.CKAccountChanged`
    /// is posted with the container as its object. Requests already sent finish under the
    /// account they were sent with; a request made for the old account that reaches the server
    /// only now fails with `notAuthenticated`.
    public func signOut(_ container: CKContainer) {
        reopenSession(container, as: nil)
        NotificationCenter.default.post(name: .CKAccountChanged, object: container)
    }

    /// Signs the device in as `account` and posts `.CKAccountChanged` with the container as its
    /// object. After signing in as another user, the device sees that user's private data only;
    /// requests already sent finish under the account they were sent with.
    public func signIn(_ container: CKContainer, as account: String) {
        reopenSession(container, as: account)
        NotificationCenter.default.post(name: .CKAccountChanged, object: container)
    }

    /// Puts the device's account in `status` and posts `.CKAccountChanged`.
    ///
    /// `.restricted` and `.couldNotDetermine` make requests that need an account fail with
    /// `notAuthenticated`; `.temporarilyUnavailable` makes them fail with
    /// `accountTemporarilyUnavailable`; `.available` and `.noAccount` go back to what the
    /// sign-in gives (use ``signIn(_:as:)`` and ``signOut(_:)`` to change the account). A raw
    /// value CloudKit does not define acts as `.couldNotDetermine`.
    public func setAccountStatus(_ status: CKAccountStatus, for container: CKContainer) {
        let override: WireAccountStatus? = switch status {
        case .available, .noAccount: nil
        case .restricted: .restricted
        case .couldNotDetermine: .couldNotDetermine
        case .temporarilyUnavailable: .temporarilyUnavailable
        @unknown default: .couldNotDetermine
        }
        setAccountStatus(override, forDevice: container.deviceID)
        NotificationCenter.default.post(name: .CKAccountChanged, object: container)
    }

    /// Takes the device offline or back online. Offline, its requests fail with
    /// `networkUnavailable` and never reach the server, and the pushes sent to it wait as
    /// APNs keeps them: only the last; back online, that one is delivered.
    public func setOffline(_ offline: Bool, for container: CKContainer) {
        setOffline(offline, forDevice: container.deviceID)
    }

    /// The pushes the server sent to the device, oldest first, from ``pushLog``.
    public func pushLog(for container: CKContainer) -> [PushRecord] {
        pushLog.filter { $0.deviceID == container.deviceID }
    }
}
