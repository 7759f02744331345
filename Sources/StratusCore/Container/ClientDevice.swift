import Foundation
import StratusWire
import Synchronization

/// The client side of one device: its identity, the session its account was signed in with,
/// and whether a rate limit holds its requests back.
///
/// Every container object of one device shares this object, so a session change or a
/// rate-limit hold reaches all of them. When the last of them goes away, the device is
/// released: the service that registered it forgets it.
package final class ClientDevice: Sendable {
    /// The identity the service knows the device by.
    package let id: String

    /// Who receives the device's pushes: the app's handler and Stratus's own listeners.
    package let pushListeners = DevicePushListeners()

    /// The local copies of the assets the device fetched.
    package let assetCache = AssetCache()

    /// The device's own clock: request timeouts, rate-limit holds and retry-after waits run on
    /// it. A service in another process has a clock of its own.
    package let clock: any CloudClock

    private struct State {
        var sessionToken: String?
        var heldUntil: Date?
    }

    private let state: Mutex<State>
    private let onRelease: (@Sendable (String) -> Void)?

    /// Creates a device.
    ///
    /// - Parameters:
    ///   - id: The identity the service knows the device by.
    ///   - sessionToken: The session the service opened when the device signed in, if any.
    ///   - clock: The device's clock.
    ///   - onRelease: Called with `id` when the device goes away, so the service can forget it.
    package init(id: String, sessionToken: String? = nil, clock: any CloudClock, onRelease: (@Sendable (String) -> Void)? = nil) {
        self.id = id
        self.clock = clock
        self.state = Mutex(State(sessionToken: sessionToken))
        self.onRelease = onRelease
    }

    deinit {
        onRelease?(id)
    }

    /// The session of the account the device is signed in to: requests made now carry it.
    package var sessionToken: String? {
        get { state.withLock { $0.sessionToken } }
        set { state.withLock { $0.sessionToken = newValue } }
    }

    /// Holds back every request until `date` (the later of this and any hold already set).
    package func holdRequests(until date: Date) {
        state.withLock { state in state.heldUntil = max(state.heldUntil ?? date, date) }
    }

    /// The seconds requests are still held back at `now`, or nil when they may go.
    package func remainingHold(now: Date) -> TimeInterval? {
        guard let until = state.withLock({ $0.heldUntil }), until > now else { return nil }
        return until.timeIntervalSince(now)
    }
}
