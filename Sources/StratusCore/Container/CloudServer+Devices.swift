import Foundation
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
    public func container(identifier: String, account: String?) -> CKContainer {
        CKContainer(identifier: identifier, service: self, device: makeDevice(containerIdentifier: identifier, account: account))
    }

    /// Registers a new device signed in to `account`; the server forgets it when the last
    /// container object of the device goes away.
    func makeDevice(containerIdentifier: String, account: String?) -> ClientDevice {
        let (deviceID, session) = registerDevice(containerIdentifier: containerIdentifier, account: account)
        return ClientDevice(id: deviceID, sessionToken: session) { [weak self] deviceID in
            self?.unregisterDevice(deviceID)
        }
    }

    /// Signs the device out: its account status becomes `.noAccount`, and `.CKAccountChanged`
    /// is posted with the container as its object. Requests already sent finish under the
    /// account they were sent with; a request made for the old account that reaches the server
    /// only now fails with `notAuthenticated`.
    public func signOut(_ container: CKContainer) {
        container.device.sessionToken = setAccount(nil, forDevice: container.deviceID)
        NotificationCenter.default.post(name: .CKAccountChanged, object: container)
    }

    /// Signs the device in as `account` and posts `.CKAccountChanged` with the container as its
    /// object. After signing in as another user, the device sees that user's private data only;
    /// requests already sent finish under the account they were sent with.
    public func signIn(_ container: CKContainer, as account: String) {
        container.device.sessionToken = setAccount(account, forDevice: container.deviceID)
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
