import StratusWire

/// One push the server sent to one device, as the server's push log keeps it.
public struct PushRecord: Hashable, Sendable {
    /// What became of a push.
    public enum Fate: String, Hashable, Sendable {
        /// Waiting for delivery: queued for the device, or held until
        /// `CloudServer.deliverPendingPushes()`.
        case pending
        /// Handed to the device's push handler.
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
struct PushRouter: Sendable {
    /// A push waiting for delivery, and its place in the log.
    struct Pending: Sendable {
        var logID: Int
        var notification: WireNotification
    }

    /// One device's end of the push channel.
    struct Mailbox: Sendable {
        /// The device's push handler; nil until it registers.
        var deliver: (@Sendable (WireNotification) -> Void)?
        /// Pushes to hand to the handler, in order.
        var outbox: [Pending] = []
        /// Pushes held until the test delivers them.
        var held: [Pending] = []
        /// The push APNs keeps for the device while it is offline: only the last.
        var stored: Pending?
        var isOffline = false
        /// Whether a delivery loop is running for the device.
        var isDraining = false
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
    /// Pushes queued for delivery or being delivered, on every device.
    private var inFlight = 0
    /// Those waiting for ``inFlight`` to reach zero.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Whether the device is offline.
    func isOffline(_ deviceID: String) -> Bool {
        mailboxes[deviceID]?.isOffline ?? false
    }

    /// Whether the device has registered for pushes.
    func isRegistered(_ deviceID: String) -> Bool {
        mailboxes[deviceID]?.deliver != nil
    }

    /// What a change of registration lets go of: continuations to resume because nothing is in
    /// flight any more, and the handler it replaced. The caller releases both after unlocking:
    /// a handler may hold the last reference to a device, whose going away takes the lock.
    struct Released {
        var waiters: [CheckedContinuation<Void, Never>] = []
        var handler: (@Sendable (WireNotification) -> Void)?
    }

    /// Sets or clears the device's push handler; clearing it discards what waits for it.
    mutating func register(_ deviceID: String, deliver: (@Sendable (WireNotification) -> Void)?) -> Released {
        let replaced = mailboxes[deviceID]?.deliver
        mailboxes[deviceID, default: Mailbox()].deliver = deliver
        var released = deliver == nil ? discard(deviceID, forget: false) : Released()
        released.handler = replaced
        return released
    }

    /// Forgets a device that went away, discarding what waits for it.
    mutating func forget(_ deviceID: String) -> Released {
        discard(deviceID, forget: true)
    }

    private mutating func discard(_ deviceID: String, forget: Bool) -> Released {
        guard var mailbox = mailboxes[deviceID] else { return Released() }
        for pending in mailbox.outbox + mailbox.held + (mailbox.stored.map { [$0] } ?? []) {
            setFate(.discarded, of: pending.logID)
        }
        inFlight -= mailbox.outbox.count
        mailbox.outbox = []
        mailbox.held = []
        mailbox.stored = nil
        mailboxes[deviceID] = forget ? nil : mailbox
        return Released(waiters: settled(), handler: mailbox.deliver)
    }

    /// Sends a push to a device, if it registered.
    ///
    /// - Returns: Whether a delivery loop must start for the device.
    mutating func send(_ record: PushRecord) -> Bool {
        guard mailboxes[record.deviceID]?.deliver != nil else { return false }
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
            return false
        }
        return enqueue(Pending(logID: logID, notification: record.notification), for: record.deviceID)
    }

    /// Puts a push on its way to an online device: stored while the device is offline, held
    /// while pushes are held, queued otherwise.
    private mutating func enqueue(_ pending: Pending, for deviceID: String) -> Bool {
        guard var mailbox = mailboxes[deviceID] else { return false }
        defer { mailboxes[deviceID] = mailbox }
        if mailbox.isOffline {
            if let replaced = mailbox.stored { setFate(.coalesced, of: replaced.logID) }
            mailbox.stored = pending
            setFate(.storedWhileOffline, of: pending.logID)
            return false
        }
        if holds {
            if coalesces {
                for replaced in mailbox.held { setFate(.coalesced, of: replaced.logID) }
                mailbox.held = []
            }
            mailbox.held.append(pending)
            return false
        }
        if coalesces {
            for replaced in mailbox.outbox { setFate(.coalesced, of: replaced.logID) }
            inFlight -= mailbox.outbox.count
            mailbox.outbox = []
        }
        mailbox.outbox.append(pending)
        inFlight += 1
        guard !mailbox.isDraining else { return false }
        mailbox.isDraining = true
        return true
    }

    /// Takes a device offline or back online; back online, the push kept for it is delivered.
    ///
    /// - Returns: Whether a delivery loop must start for the device.
    mutating func setOffline(_ offline: Bool, deviceID: String) -> Bool {
        mailboxes[deviceID, default: Mailbox()].isOffline = offline
        guard !offline, let stored = mailboxes[deviceID]?.stored else { return false }
        mailboxes[deviceID]?.stored = nil
        setFate(.pending, of: stored.logID)
        return enqueue(stored, for: deviceID)
    }

    /// Queues every held push for delivery.
    ///
    /// - Returns: The devices whose delivery loops must start.
    mutating func releaseHeld() -> [String] {
        var started: [String] = []
        for deviceID in mailboxes.keys.sorted() {
            guard let held = mailboxes[deviceID]?.held, !held.isEmpty else { continue }
            mailboxes[deviceID]?.held = []
            let holding = holds
            holds = false
            for pending in held where enqueue(pending, for: deviceID) { started.append(deviceID) }
            holds = holding
        }
        return started
    }

    /// The device's next push to deliver and its handler, taken off the queue; nil ends the
    /// device's delivery loop.
    mutating func takeNext(_ deviceID: String) -> (Pending, @Sendable (WireNotification) -> Void)? {
        guard var mailbox = mailboxes[deviceID] else { return nil }
        defer { mailboxes[deviceID] = mailbox }
        guard let deliver = mailbox.deliver, !mailbox.outbox.isEmpty else {
            mailbox.isDraining = false
            return nil
        }
        return (mailbox.outbox.removeFirst(), deliver)
    }

    /// Notes that a push taken by ``takeNext(_:)`` was handed over.
    ///
    /// - Returns: Continuations to resume when nothing is in flight any more.
    mutating func delivered(_ pending: Pending) -> [CheckedContinuation<Void, Never>] {
        setFate(.delivered, of: pending.logID)
        inFlight -= 1
        return settled()
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
