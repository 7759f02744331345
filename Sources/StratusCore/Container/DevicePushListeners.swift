import Foundation
import StratusWire
import Synchronization

/// The receivers of one device's pushes: the app's handler (``CKContainer/registerForPushNotifications(_:)``)
/// and any number of listeners inside Stratus, such as a `CKSyncEngine` waiting for its
/// subscription's pushes.
///
/// The device is registered with its service while it has at least one receiver, so an app
/// that unregisters its own handler does not silence an engine on the same device, and every
/// receiver gets each push once, in the order the service delivers them.
package final class DevicePushListeners: Sendable {
    /// Identifies a listener added with ``add(_:register:)``, to remove it.
    package struct Token: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private struct State {
        var appHandler: (@Sendable (WireNotification) -> Void)?
        var listeners: [UInt64: @Sendable (WireNotification) -> Void] = [:]
        var nextToken: UInt64 = 0
        var isRegistered = false

        var isEmpty: Bool { appHandler == nil && listeners.isEmpty }
    }

    private let state = Mutex(State())

    package init() {}

    /// Sets or clears the app's handler; `register` is called with the dispatcher when the
    /// device needs registering with its service, and with nil when it no longer does.
    package func setAppHandler(_ handler: (@Sendable (WireNotification) -> Void)?, register: (DevicePushListeners?) -> Void) {
        update(register) { $0.appHandler = handler }
    }

    /// Adds a listener inside Stratus; see ``setAppHandler(_:register:)`` for `register`.
    package func add(_ listener: @escaping @Sendable (WireNotification) -> Void, register: (DevicePushListeners?) -> Void) -> Token {
        var token = Token(value: 0)
        update(register) { state in
            token = Token(value: state.nextToken)
            state.nextToken += 1
            state.listeners[token.value] = listener
        }
        return token
    }

    /// Removes a listener; see ``setAppHandler(_:register:)`` for `register`.
    package func remove(_ token: Token, register: (DevicePushListeners?) -> Void) {
        update(register) { $0.listeners[token.value] = nil }
    }

    /// Hands `notification` to every receiver, the app's handler first, outside the lock.
    package func dispatch(_ notification: WireNotification) {
        let receivers = state.withLock { state in
            [state.appHandler].compactMap { $0 } + state.listeners.sorted { $0.key < $1.key }.map(\.value)
        }
        for receive in receivers { receive(notification) }
    }

    /// Applies `change`, then registers or unregisters the device when it gained its first
    /// receiver or lost its last. The registration happens under the lock, so two changes
    /// cannot register in the wrong order.
    private func update(_ register: (DevicePushListeners?) -> Void, _ change: (inout State) -> Void) {
        state.withLock { state in
            change(&state)
            if state.isEmpty, state.isRegistered {
                state.isRegistered = false
                register(nil)
            } else if !state.isEmpty, !state.isRegistered {
                state.isRegistered = true
                register(self)
            }
        }
    }
}
