import StratusWire

extension CloudServer {

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
        var wakeups = PushRouter.Wakeups()
        pushes.withLock { router in
            for deviceID in recipients {
                wakeups.formUnion(router.send(PushRecord(
                    deviceID: deviceID, containerIdentifier: container.identifier, userRecordName: owner,
                    notification: pushed, priority: priority, payloadSize: size, fate: .pending
                )))
            }
        }
        wakeups.resume()
    }
}
