import StratusWire

/// One push the server sent to one device, as the server's push log keeps it.
public struct PushRecord: Hashable, Sendable {
    /// What became of a push.
    public enum Fate: String, Hashable, Sendable {
        /// Waiting for delivery: queued for the device, or held until
        /// `CloudServer.deliverPendingPushes()`.
        case pending
        /// Handed to the device (in answer to its poll).
        case delivered
        /// Lost on the way, as APNs may lose any push (`CloudServer.dropNextPushes(_:)`).
        case dropped
        /// Replaced by a later push to the same device before it was delivered: coalescing
        /// (`CloudServer.coalescesPushes`), or a later push to a device that was offline
        /// (APNs keeps only the last).
        case coalesced
        /// Kept for a device that is offline, delivered when it comes back unless a later push
        /// replaces it.
        case storedWhileOffline
        /// Never delivered: the device stopped receiving pushes, or went away.
        case discarded
    }

    /// The device the push went to (`CKContainer`s of one device share it).
    public var deviceID: String
    /// The container whose subscription fired.
    public var containerIdentifier: String
    /// The user record name of the subscription's owner: the account the device is signed in
    /// to.
    public var userRecordName: String
    /// The notification as the push carries it: pruned to fit 4 KB when it was larger.
    public var notification: WireNotification
    /// The APNs priority: 10 for a push with a UI key (an alert, a sound or a badge), which
    /// the user sees; 5 for a silent push.
    public var priority: Int
    /// The size of the push's payload in bytes, after pruning.
    public var payloadSize: Int
    /// What became of it so far.
    public var fate: Fate
}

/// Who receives pushes, what waits for delivery, and the push log: the server's stand-in for
/// APNs, lossless and immediate unless a test asks otherwise.
///
/// A registered device polls for its pushes (`pushes/poll`): a push goes to the device's
/// waiting poll, one at a time, and counts as handled once the device's next poll
/// acknowledges it. Every change returns the polls and waiters to resume (``Wakeups``), which
/// the caller resumes after unlocking.
struct PushRouter: Sendable {
    /// A push waiting for delivery, and its place in the log.
    struct Pending: Sendable {
        var logID: Int
        var notification: WireNotification
    }

    /// One device's end of the push channel.
    struct Mailbox: Sendable {
        /// Whether the device registered for pushes.
        var isRegistered = false
        /// Pushes to hand to the device, in order.
        var outbox: [Pending] = []
        /// Pushes held until the test delivers them.
        var held: [Pending] = []
        /// The push APNs keeps for the device while it is offline: only the last.
        var stored: Pending?
        var isOffline = false
        /// The push handed to the device and not acknowledged yet.
        var handedOut: Pending?
        /// The device's poll waiting for a push.
        var poller: CheckedContinuation<WirePushPollResponse, Never>?
    }

    /// Polls and waiters to resume once the router's lock is let go.
    struct Wakeups: Sendable {
        var polls: [(CheckedContinuation<WirePushPollResponse, Never>, WirePushPollResponse)] = []
        var waiters: [CheckedContinuation<Void, Never>] = []

        /// Resumes every poll and waiter. Call without the lock held.
        func resume() {
            for (poll, response) in polls { poll.resume(returning: response) }
            for waiter in waiters { waiter.resume() }
        }

        mutating func formUnion(_ other: Wakeups) {
            polls += other.polls
            waiters += other.waiters
        }
    }

    private var mailboxes: [String: Mailbox] = [:]
    private(set) var log: [PushRecord] = []
    /// The ID of `log[0]`: the log keeps the latest ``logLimit`` pushes.
    private var firstLogID = 0
    static let logLimit = 10_000

    /// Whether pushes wait until the test delivers them.
    var holds = false
    /// Whether a push replaces the device's pushes that wait for delivery.
    var coalesces = false
    /// How many of the next pushes are lost.
    var dropsNext = 0
    /// Pushes queued for delivery or handed out and not acknowledged, on every device.
    private var inFlight = 0
    /// Those waiting for ``inFlight`` to reach zero.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Whether the device is offline.
    func isOffline(_ deviceID: String) -> Bool {
        mailboxes[deviceID]?.isOffline ?? false
    }

    /// Registers the device for pushes or unregisters it; unregistering discards what waits
    /// for it and ends its waiting poll.
    mutating func register(_ deviceID: String, registered: Bool) -> Wakeups {
        guard !registered else {
            mailboxes[deviceID, default: Mailbox()].isRegistered = true
            return Wakeups()
        }
        return discard(deviceID, forget: false)
    }

    /// Forgets a device that went away, discarding what waits for it.
    mutating func forget(_ deviceID: String) -> Wakeups {
        discard(deviceID, forget: true)
    }

    private mutating func discard(_ deviceID: String, forget: Bool) -> Wakeups {
        guard var mailbox = mailboxes[deviceID] else { return Wakeups() }
        for pending in mailbox.outbox + mailbox.held + (mailbox.stored.map { [$0] } ?? []) {
            setFate(.discarded, of: pending.logID)
        }
        inFlight -= mailbox.outbox.count + (mailbox.handedOut == nil ? 0 : 1)
        var wakeups = Wakeups()
        if let poller = mailbox.poller { wakeups.polls.append((poller, WirePushPollResponse(delivery: nil))) }
        mailbox.outbox = []
        mailbox.held = []
        mailbox.stored = nil
        mailbox.handedOut = nil
        mailbox.poller = nil
        mailbox.isRegistered = false
        mailboxes[deviceID] = forget ? nil : mailbox
        wakeups.waiters = settled()
        return wakeups
    }

    /// A device's poll: acknowledges the push it handled, then waits for the next one (or
    /// gets one at once). A poll of a device that is not registered gets no push; a newer poll
    /// answers an older one of the same device with no push.
    mutating func poll(_ deviceID: String, acknowledging: Int?, _ poller: CheckedContinuation<WirePushPollResponse, Never>) -> Wakeups {
        var wakeups = Wakeups()
        guard var mailbox = mailboxes[deviceID], mailbox.isRegistered else {
            wakeups.polls.append((poller, WirePushPollResponse(delivery: nil)))
            return wakeups
        }
        defer { mailboxes[deviceID] = mailbox }
        if let acknowledging, mailbox.handedOut?.logID == acknowledging {
            mailbox.handedOut = nil
            inFlight -= 1
            wakeups.waiters = settled()
        }
        if let older = mailbox.poller { wakeups.polls.append((older, WirePushPollResponse(delivery: nil))) }
        mailbox.poller = poller
        if let handOut = handOut(&mailbox) { wakeups.polls.append(handOut) }
        return wakeups
    }

    /// Sends a push to a device, if it registered.
    mutating func send(_ record: PushRecord) -> Wakeups {
        guard mailboxes[record.deviceID]?.isRegistered == true else { return Wakeups() }
        let logID = firstLogID + log.count
        log.append(record)
        if log.count > Self.logLimit + Self.logLimit / 4 {
            let excess = log.count - Self.logLimit
            log.removeFirst(excess)
            firstLogID += excess
        }
        if dropsNext > 0 {
            dropsNext -= 1
            setFate(.dropped, of: logID)
            return Wakeups()
        }
        return enqueue(Pending(logID: logID, notification: record.notification), for: record.deviceID)
    }

    /// Puts a push on its way to an online device: stored while the device is offline, held
    /// while pushes are held, queued otherwise (and handed to its waiting poll).
    private mutating func enqueue(_ pending: Pending, for deviceID: String) -> Wakeups {
        guard var mailbox = mailboxes[deviceID] else { return Wakeups() }
        defer { mailboxes[deviceID] = mailbox }
        if mailbox.isOffline {
            if let replaced = mailbox.stored { setFate(.coalesced, of: replaced.logID) }
            mailbox.stored = pending
            setFate(.storedWhileOffline, of: pending.logID)
            return Wakeups()
        }
        if holds {
            if coalesces {
                for replaced in mailbox.held { setFate(.coalesced, of: replaced.logID) }
                mailbox.held = []
            }
            mailbox.held.append(pending)
            return Wakeups()
        }
        if coalesces {
            for replaced in mailbox.outbox { setFate(.coalesced, of: replaced.logID) }
            inFlight -= mailbox.outbox.count
            mailbox.outbox = []
        }
        mailbox.outbox.append(pending)
        inFlight += 1
        var wakeups = Wakeups()
        if let handOut = handOut(&mailbox) { wakeups.polls.append(handOut) }
        return wakeups
    }

    /// The device's next push for its waiting poll, once the push before is acknowledged.
    private mutating func handOut(_ mailbox: inout Mailbox) -> (CheckedContinuation<WirePushPollResponse, Never>, WirePushPollResponse)? {
        guard mailbox.handedOut == nil, let poller = mailbox.poller, !mailbox.outbox.isEmpty else { return nil }
        let pending = mailbox.outbox.removeFirst()
        mailbox.handedOut = pending
        mailbox.poller = nil
        setFate(.delivered, of: pending.logID)
        return (poller, WirePushPollResponse(delivery: WirePushDelivery(id: pending.logID, notification: pending.notification)))
    }

    /// Takes a device offline or back online; back online, the push kept for it is delivered.
    mutating func setOffline(_ offline: Bool, deviceID: String) -> Wakeups {
        mailboxes[deviceID, default: Mailbox()].isOffline = offline
        guard !offline, let stored = mailboxes[deviceID]?.stored else { return Wakeups() }
        mailboxes[deviceID]?.stored = nil
        setFate(.pending, of: stored.logID)
        return enqueue(stored, for: deviceID)
    }

    /// Queues every held push for delivery.
    mutating func releaseHeld() -> Wakeups {
        var wakeups = Wakeups()
        for deviceID in mailboxes.keys.sorted() {
            guard let held = mailboxes[deviceID]?.held, !held.isEmpty else { continue }
            mailboxes[deviceID]?.held = []
            let holding = holds
            holds = false
            for pending in held { wakeups.formUnion(enqueue(pending, for: deviceID)) }
            holds = holding
        }
        return wakeups
    }

    /// Resumes `waiter` once nothing is in flight; true when nothing is now.
    mutating func waitUntilSettled(_ waiter: CheckedContinuation<Void, Never>) -> Bool {
        guard inFlight > 0 else { return true }
        waiters.append(waiter)
        return false
    }

    private mutating func settled() -> [CheckedContinuation<Void, Never>] {
        guard inFlight == 0 else { return [] }
        defer { waiters = [] }
        return waiters
    }

    private mutating func setFate(_ fate: PushRecord.Fate, of logID: Int) {
        let index = logID - firstLogID
        guard log.indices.contains(index) else { return }
        log[index].fate = fate
    }
}
