import Foundation
import StratusCore
import StratusOperations

/// What the toolkit keeps for an operation added through
/// ``Foundation/OperationQueue/addOperation(_:conditions:observers:)``: its queue (where the
/// operations it produces go), its observers, and its exclusivity ticket.
///
/// Observer callbacks go through a small state machine, so each is delivered once and the
/// finish never overtakes the start: a finish reported while the start is still being
/// delivered is handed to the thread delivering the start, which delivers it next.
final class OperationAttachment: @unchecked Sendable {
    private enum Phase {
        case idle, starting, started, finishing, finished
    }

    /// The operation; weak, so a stale entry in the registry never keeps one alive.
    private(set) weak var operation: Operation?
    /// The queue the operation was added to.
    private(set) weak var queue: OperationQueue?
    let observers: [any OperationObserver]
    /// Whether a finish watcher reports the operation's finish (see ``operationFinished(_:)``).
    let watchesFinish: Bool
    /// The toolkit's own work after the observers heard the finish (a group counting a child).
    private var finishHandlers: [@Sendable () -> Void] = []
    /// The operation's key in the registry.
    private let key: ObjectIdentifier
    private let lock = NSLock()
    private var phase = Phase.idle
    private var finishWaiting = false
    private var storedTicket: ExclusivityTicket?

    init(operation: Operation, queue: OperationQueue, observers: [any OperationObserver], watchesFinish: Bool) {
        self.watchesFinish = watchesFinish
        self.operation = operation
        self.key = ObjectIdentifier(operation)
        self.queue = queue
        self.observers = observers
    }

    /// The operation's place in the exclusivity controller, if it has categories.
    var ticket: ExclusivityTicket? {
        get { lock.withLock { storedTicket } }
        set { lock.withLock { storedTicket = newValue } }
    }

    // MARK: - Observer callbacks

    /// Tells the observers the operation started, unless they heard it already or the
    /// operation has finished.
    func reportStart(of operation: Operation) {
        let claimed = lock.withLock {
            guard phase == .idle else { return false }
            phase = .starting
            return true
        }
        guard claimed else { return }
        for observer in observers { observer.operationDidStart(operation) }
        let finishNow = lock.withLock {
            if finishWaiting {
                phase = .finishing
                return true
            }
            phase = .started
            return false
        }
        if finishNow { deliverFinish(of: operation) }
    }

    /// Tells the observers the operation produced `newOperation`.
    func reportProduced(_ newOperation: Operation, by operation: Operation) {
        for observer in observers { observer.operation(operation, didProduceOperation: newOperation) }
    }

    /// Called once the operation is finished: tells the observers, frees its exclusivity
    /// categories, and forgets the operation.
    func operationFinished(_ operation: Operation) {
        let deliverNow = lock.withLock {
            switch phase {
            case .starting:
                finishWaiting = true
                return false
            case .finishing, .finished:
                return false
            case .idle, .started:
                phase = .finishing
                return true
            }
        }
        if deliverNow { deliverFinish(of: operation) }
        Self.unregister(self)
    }

    private func deliverFinish(of operation: Operation) {
        let errors = (operation as? any OperationErrorReporting)?.reportedErrors ?? []
        for observer in observers { observer.operationDidFinish(operation, errors: errors) }
        let handlers = lock.withLock {
            phase = .finished
            defer { finishHandlers = [] }
            return finishHandlers
        }
        // Only now may the next operation of the category start, and the group count the
        // operation as done, so observers hear this finish before they hear what follows.
        if let ticket { ExclusivityController.shared.release(ticket) }
        for handler in handlers { handler() }
    }

    /// Runs `handler` once the observers have heard the finish; false, without keeping it, when
    /// no watcher reports the finish or it has already been reported.
    func afterObserversHeardFinish(_ handler: @escaping @Sendable () -> Void) -> Bool {
        guard watchesFinish else { return false }
        return lock.withLock {
            guard phase != .finished else { return false }
            finishHandlers.append(handler)
            return true
        }
    }

    // MARK: - Registry

    private struct Registry {
        var entries: [ObjectIdentifier: OperationAttachment] = [:]
        /// The size at which entries of finished or freed operations are dropped.
        var purgeThreshold = 256
    }

    private static let registry = Locked(Registry())

    /// Records `attachment` for its operation; false if the operation already has one (it was
    /// added through the toolkit before).
    static func register(_ attachment: OperationAttachment, for operation: Operation) -> Bool {
        registry.withValue { registry in
            let key = attachment.key
            if let existing = registry.entries[key], existing.operation === operation { return false }
            if registry.entries.count >= registry.purgeThreshold {
                registry.entries = registry.entries.filter { _, entry in
                    guard let live = entry.operation else { return false }
                    return !live.isFinished
                }
                registry.purgeThreshold = max(256, registry.entries.count * 2)
            }
            registry.entries[key] = attachment
            // A CloudKit operation reports its start from its own module, which cannot see
            // this one: it calls back.
            (operation as? CKOperation)?.startObserver = { [weak attachment] started in attachment?.reportStart(of: started) }
            return true
        }
    }

    /// The attachment of `operation`, if it was added through the toolkit and has not finished.
    static func find(_ operation: Operation) -> OperationAttachment? {
        registry.withValue { registry in
            guard let entry = registry.entries[ObjectIdentifier(operation)], entry.operation === operation else { return nil }
            return entry
        }
    }

    private static func unregister(_ attachment: OperationAttachment) {
        registry.withValue { registry in
            if registry.entries[attachment.key] === attachment { registry.entries[attachment.key] = nil }
        }
    }

    /// Called by Stratus's own operations from `start()` once they know they will do their
    /// work: tells the operation's observers, if it has any. An operation added to its queue
    /// without the toolkit is recorded with the queue starting it (`OperationQueue.current`
    /// inside `start()`), so the operations it produces later, from blocks that run on no
    /// queue, still go to its queue.
    static func operationDidStart(_ operation: Operation) {
        if let attachment = find(operation) {
            attachment.reportStart(of: operation)
        } else if let queue = OperationQueue.current {
            _ = register(OperationAttachment(operation: operation, queue: queue, observers: [], watchesFinish: false), for: operation)
        }
    }
}
