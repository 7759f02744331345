import Dispatch
import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/registerForPushes(_:deliver:)``
    public func registerForPushes(_ context: WireRequestContext, deliver: (@Sendable (WireNotification) -> Void)?) {
        let released = pushes.withLock { $0.register(context.deviceID, deliver: deliver) }
        released.waiters.forEach { $0.resume() }
    }

    /// The devices signed in to `owner`'s account in the container, except `originator`, by
    /// ID: those a push for `owner` goes to (the router skips the ones not registered).
    func pushRecipients(of owner: String, in container: ContainerStore, except originator: String?) -> [String] {
        registry.withLock { registry in
            registry.devices.compactMap { deviceID, device -> String? in
                guard deviceID != originator, device.status == .available, device.userRecordName == owner,
                      device.containerIdentifier == container.identifier else { return nil }
                return deviceID
            }
        }.sorted()
    }

    /// Pushes `notification` to `recipients` (see ``pushRecipients(of:in:except:)``): pruned
    /// to fit 4 KB, at priority 10 when the subscription's info has a UI key and 5 otherwise,
    /// each push logged.
    func push(_ notification: WireNotification, info: WireNotificationInfo, to recipients: [String], owner: String, in container: ContainerStore) {
        guard !recipients.isEmpty else { return }
        let pushed = RemoteNotificationPayload.pruned(notification)
        let size = RemoteNotificationPayload.size(of: pushed)
        let priority = info.uiKeys.isEmpty ? 5 : 10
        let started = pushes.withLock { router in
            recipients.filter { deviceID in
                router.send(PushRecord(
                    deviceID: deviceID, containerIdentifier: container.identifier, userRecordName: owner,
                    notification: pushed, priority: priority, payloadSize: size, fate: .pending
                ))
            }
        }
        started.forEach(drainPushes)
    }

    /// Hands the device's queued pushes to its handler one at a time, off every lock, until
    /// its queue is empty.
    func drainPushes(_ deviceID: String) {
        DispatchQueue.global().async { [self] in
            while let (pending, deliver) = pushes.withLock({ $0.takeNext(deviceID) }) {
                deliver(pending.notification)
                let waiters = pushes.withLock { $0.delivered(pending) }
                waiters.forEach { $0.resume() }
            }
        }
    }
}
