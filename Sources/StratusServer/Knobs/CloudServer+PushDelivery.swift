import StratusWire

extension CloudServer {
    /// Whether pushes wait until ``deliverPendingPushes()``: `false` (the default) delivers
    /// each push soon after the change, as CloudKit usually does. Setting it back to `false`
    /// delivers what waits.
    public var holdsPushes: Bool {
        get { pushes.withLock { $0.holds } }
        set {
            pushes.withLock { router in
                router.holds = newValue
                return newValue ? PushRouter.Wakeups() : router.releaseHeld()
            }.resume()
        }
    }

    /// Whether a push to a device replaces that device's pushes still waiting for delivery,
    /// as APNs coalesces: `false` by default. With ``holdsPushes``, each device then gets only
    /// the latest push when they are delivered. Replaced pushes are logged as
    /// ``PushRecord/Fate/coalesced``.
    public var coalescesPushes: Bool {
        get { pushes.withLock { $0.coalesces } }
        set { pushes.withLock { $0.coalesces = newValue } }
    }

    /// Loses the next `count` pushes, whichever devices they go to, as APNs may; they are
    /// logged as ``PushRecord/Fate/dropped``. The notifications stay in the notification
    /// collection.
    public func dropNextPushes(_ count: Int) {
        pushes.withLock { router in
            let (sum, overflow) = router.dropsNext.addingReportingOverflow(max(0, count))
            router.dropsNext = overflow ? .max : sum
        }
    }

    /// Delivers every push waiting for delivery, held ones included, and returns when every
    /// device's handler has returned for each of them. Pushes kept for offline devices wait
    /// until the device comes back online. A push handler must not await it: it would wait
    /// for itself.
    ///
    /// ```swift
    /// try await phone.privateCloudDatabase.save(note)
    /// await server.deliverPendingPushes()   // the laptop's push handler has run
    /// ```
    public func deliverPendingPushes() async {
        pushes.withLock { $0.releaseHeld() }.resume()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if pushes.withLock({ $0.waitUntilSettled(continuation) }) { continuation.resume() }
        }
    }

    /// Every push the server sent, oldest first (the latest 10,000): to which device, what it
    /// carried, at which APNs priority, and what became of it. A device that has not
    /// registered for pushes gets none, and none is logged for it.
    public var pushLog: [PushRecord] {
        pushes.withLock { $0.log }
    }

    /// Takes a device offline or back online. Offline, its requests fail with
    /// `networkUnavailable` without reaching the server, and APNs keeps only the last push
    /// sent to it; back online, that push is delivered.
    package func setOffline(_ offline: Bool, forDevice deviceID: String) {
        pushes.withLock { $0.setOffline(offline, deviceID: deviceID) }.resume()
    }

    /// How many notifications each account's collection keeps unless
    /// ``notificationHistoryLimit`` is set: 10,000.
    public static let defaultNotificationHistoryLimit = StoreSettings.defaultNotificationHistoryLimit

    /// How many notifications each account's notification collection keeps (at least; a
    /// quarter more may wait to be dropped): ``defaultNotificationHistoryLimit`` unless set.
    /// A notification change token from before the oldest one dropped has expired: fetching
    /// with it fails with `changeTokenExpired`. Values below zero count as zero.
    public var notificationHistoryLimit: Int {
        get { storeSettings.notificationHistoryLimit }
        set { storeSettings.notificationHistoryLimit = max(0, newValue) }
    }

    /// The badge count the server keeps for `account` in the container: raised by each
    /// notification of a subscription whose info has `shouldBadge`, set by
    /// `CKModifyBadgeOperation`.
    public func badgeValue(account: String, containerIdentifier: String) -> Int {
        let user = userRecordName(account: account, containerIdentifier: containerIdentifier)
        return containerStore(containerIdentifier).notifications.withLock { $0[user]?.badge ?? 0 }
    }
}
