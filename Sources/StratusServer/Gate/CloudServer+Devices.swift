import Foundation
import StratusWire

extension CloudServer {
    /// Registers a new device of `containerIdentifier`, signed in to `account` (nil: no account).
    ///
    /// - Returns: The device's identity and the session of its account (no token without
    ///   one), which its requests carry.
    func registerDevice(containerIdentifier: String, account: String?) -> WireSession {
        let deviceID = RandomUUID.string()
        let device = Device(containerIdentifier: containerIdentifier, account: account)
        registry.withLock { registry in
            registry.devices[deviceID] = device
            _ = registry.container(containerIdentifier)
        }
        return WireSession(deviceID: deviceID, sessionToken: device.sessionToken)
    }

    /// Forgets a device: its requests are anonymous from now on.
    func removeDevice(_ deviceID: String) {
        registry.withLock { _ = $0.devices.removeValue(forKey: deviceID) }
    }

    /// Signs the device in to `account`, or out when nil, opening a new session; clears any
    /// account state set with ``setAccountStatus(_:forDevice:)``. Requests that reached the
    /// server before run under the old account; requests made for the old session that
    /// arrive now fail with `notAuthenticated`.
    ///
    /// - Returns: The device's new session, which its requests carry from now on (no token
    ///   without an account); nil for a device the server does not know (or no longer knows),
    ///   or that is not of `containerIdentifier`: it stays as it is.
    func setAccount(_ account: String?, forDevice deviceID: String, in containerIdentifier: String) -> WireSession? {
        registry.withLock { registry in
            guard let container = registry.devices[deviceID]?.containerIdentifier, container == containerIdentifier else { return nil }
            let device = Device(containerIdentifier: container, account: account)
            registry.devices[deviceID] = device
            return WireSession(deviceID: deviceID, sessionToken: device.sessionToken)
        }
    }

    /// Overrides the account state the device reports and works under: `.restricted` and
    /// `.couldNotDetermine` make requests that need an account fail with `notAuthenticated`,
    /// `.temporarilyUnavailable` with `accountTemporarilyUnavailable`. nil goes back to the
    /// state the sign-in gives.
    package func setAccountStatus(_ status: WireAccountStatus?, forDevice deviceID: String) {
        registry.withLock { $0.devices[deviceID]?.statusOverride = status }
    }

    /// The user record name of `account` in a container: `_` and 32 hexadecimal digits, the
    /// same on every server and every run for the same account and container.
    public func userRecordName(account: String, containerIdentifier: String) -> String {
        Self.userRecordName(account: account, containerIdentifier: containerIdentifier)
    }

    static func userRecordName(account: String, containerIdentifier: String) -> String {
        "_" + SHA256.hex(Array("stratus-user\u{0}\(account)\u{0}\(containerIdentifier)".utf8)).prefix(32)
    }
}
