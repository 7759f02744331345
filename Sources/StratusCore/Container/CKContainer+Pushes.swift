import Foundation
import StratusWire

extension CKContainer {
    /// Receives this device's pushes: `handler` is called with each notification the
    /// account's subscriptions send this device, one at a time, in the order they were sent,
    /// off the main thread. Stratus's stand-in for an app delegate's
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`, which CloudKit
    /// apps turn into a notification with `CKNotification(fromRemoteNotificationDictionary:)`.
    ///
    /// ```swift
    /// laptop.registerForPushNotifications { notification in
    ///     if notification.notificationType == .recordZone { … fetch the zone's changes … }
    /// }
    /// ```
    ///
    /// As with APNs, a device gets the pushes sent after it registers, never one for a change
    /// it made itself, and only for the account it is signed in to when the push is sent. The
    /// notification is the one the push carries: pruned to fit 4 KB when it was larger
    /// (`isPruned`), and its ``CKNotification/remoteNotificationDictionary`` is the push's
    /// payload. Registering again replaces the handler. Pushes are delivered soon after the
    /// change; a test waits for them with an expectation or with
    /// `CloudServer.deliverPendingPushes()`, and can make them best effort with the server's
    /// push settings (`holdsPushes`, `coalescesPushes`, `dropNextPushes(_:)`,
    /// `setOffline(_:for:)`).
    ///
    /// The device registers with its service and polls it for pushes, each acknowledged once
    /// every receiver has handled it, until the device unregisters or goes away; the polling
    /// holds `handler` (not the device), but a handler that captures this container keeps the
    /// device alive, so capture it weakly.
    ///
    /// - Note: Not part of CloudKit, where pushes arrive through the app delegate.
    public func registerForPushNotifications(_ handler: @escaping @Sendable (CKNotification) -> Void) {
        device.pushListeners.setAppHandler({ wire in handler(CKNotification.make(wire)) }, register: registerDevice)
    }

    /// Stops this device's pushes; those not delivered yet are discarded.
    ///
    /// - Note: Not part of CloudKit.
    public func unregisterForPushNotifications() {
        device.pushListeners.setAppHandler(nil, register: registerDevice)
    }

    /// Adds a receiver of this device's pushes beside the app's handler, as a `CKSyncEngine`
    /// listens for its subscription; the device stays registered while any receiver is left.
    package func addPushListener(_ listener: @escaping @Sendable (CKNotification) -> Void) -> DevicePushListeners.Token {
        device.pushListeners.add({ wire in listener(CKNotification.make(wire)) }, register: registerDevice)
    }

    /// Removes a receiver added with ``addPushListener(_:)``.
    package func removePushListener(_ token: DevicePushListeners.Token) {
        device.pushListeners.remove(token, register: registerDevice)
    }

    /// Registers the device with its service (`pushes/register`) and polls for its pushes
    /// (`pushes/poll`), handing each to `listeners`; or, given nil, unregisters it, which ends
    /// the polling.
    private func registerDevice(_ listeners: DevicePushListeners?) {
        let context = privateCloudDatabase.requestPath(qualityOfService: .default).context()
        service.registerForPushes(context, registered: listeners != nil)
        guard let listeners else { return }
        Self.pollPushes(from: service, context: context, into: listeners)
    }

    /// Polls `service` for the device's pushes and hands each to `listeners`, acknowledging it
    /// in the next poll once they handled it, until the service answers with no push (the
    /// device unregistered or went away). The listeners are held weakly, so the device can go
    /// away while a poll waits.
    private static func pollPushes(from service: any CloudService, context: WireRequestContext, into listeners: DevicePushListeners) {
        Task { [weak listeners] in
            var handled: Int?
            while true {
                let response = await service.pollPushes(WirePushPollRequest(context: context, acknowledging: handled))
                guard let delivery = response.delivery else { return }
                listeners?.dispatch(delivery.notification)
                handled = delivery.id
            }
        }
    }
}
