import Dispatch
import Foundation
import StratusCore
import StratusWire

/// The base class of every CloudKit operation: an asynchronous `Operation` that runs on any
/// `OperationQueue` or through `CKDatabase.add(_:)`.
///
/// Stratus keeps CloudKit's contract for every operation:
/// - its blocks run on the operation's own serial queue, one at a time, never on the main
///   thread, so sibling blocks may share state without locks;
/// - per-item blocks run before the final block, and the final block repeats their results;
/// - when both a modern `Result` block and its legacy twin are set, only the modern one runs;
/// - the final block has returned before the operation is finished, so an operation that
///   depends on this one always sees its results; the standard `completionBlock` runs after
///   that, once, and is then released;
/// - once the final block has returned, every block is released (reading one gives nil), so
///   blocks that capture the operation do not keep it alive; a block set after that is never
///   called and is dropped at once;
/// - cancelling takes effect between requests: cancelled before its request is sent, an
///   operation sends nothing and reports `operationCancelled` to every item and its final
///   block; a request already sent reports the server's real results;
/// - added with conditions (``OperationQueue/addOperation(_:conditions:observers:)``), an
///   operation whose condition fails sends nothing and reports that condition's error to every
///   item and its final block, as cancellation does (see ``OperationErrorReporting``).
///
/// Requests time out on the service's clock: a request that takes longer than
/// `configuration.timeoutIntervalForRequest`, or an operation that takes longer than
/// `configuration.timeoutIntervalForResource`, fails with `networkFailure`.
///
/// - Important: Adding an operation to a queue twice, or after it finished, crashes inside
///   Foundation. `CKDatabase.add(_:)` and `CKContainer.add(_:)` refuse such an operation with a
///   warning instead, but they cannot see your own queues.
///
/// CloudKit document: *CKOperation*.
public class CKOperation: Operation, @unchecked Sendable {
    /// An operation's identifier.
    public typealias ID = String

    /// A unique identifier, sent with every request the operation makes.
    public let operationID: ID = RandomUUID.string()

    let callbackQueue = DispatchQueue(label: "stratus.operation.callbacks")
    private let stateLock = NSLock()
    private var state = OperationState.initialized
    /// The state a transition in progress moves to; it keeps a second caller from making the
    /// same move while the first signals it.
    private var pendingState: OperationState?
    private let storedConfiguration = Locked(Configuration())
    private let storedGroup = Locked<CKOperationGroup?>(nil)
    private let userCompletionBlock = Locked<(@Sendable () -> Void)?>(nil)
    private let resourceDeadline = Locked<Date?>(nil)
    /// Set when a Stratus queue took the operation, so a second `add(_:)` can be refused.
    package let isEnqueuedByStratus = Locked(false)
    /// Every block of the operation and its subclass, each under its property's name; all are
    /// released once the final block has returned.
    let blocks = OperationBlocks()
    /// The error of the condition that stopped the operation before it started, if one did.
    package let conditionFailure = Locked<CKError?>(nil)
    /// Told from `start()` once the operation knows it will do its work: the operations
    /// toolkit (`StratusToolkit`, which this module cannot see) sets it when it attaches to
    /// the operation, to tell the operation's observers.
    package let startObserver = Locked<(@Sendable (CKOperation) -> Void)?>(nil)
    /// The queue that started the operation (`OperationQueue.current` in `start()`), where the
    /// operations it produces go when it was not added through the toolkit.
    package var startingQueue: OperationQueue? { storedStartingQueue.value.queue }
    private let storedStartingQueue = Locked(WeakQueue())

    private struct WeakQueue {
        weak var queue: OperationQueue?
    }
    /// The error the final block was given, set before the operation is finished: the
    /// request's error from ``finish(with:_:)``, or the `partialFailure` an operation with
    /// per-item results works out as it delivers them.
    package let finishedError = Locked<CKError?>(nil)

    /// Creates an operation with a fresh configuration.
    public override init() {
        super.init()
    }

    // MARK: - Configuration

    /// How the operation runs. Setting it stores a copy; setting nil restores a fresh
    /// `Configuration()`.
    public var configuration: Configuration! {
        get { storedConfiguration.value }
        set { storedConfiguration.value = (newValue?.copy() as? Configuration) ?? Configuration() }
    }

    /// The group the operation belongs to; its default configuration fills in what the
    /// operation's configuration does not set.
    public var group: CKOperationGroup? {
        get { storedGroup.value }
        set { storedGroup.value = newValue }
    }

    /// Called once, on the operation's queue before any other block, when an operation whose
    /// `configuration.isLongLived` is set starts: from then on
    /// `CKContainer.allLongLivedOperationIDs()` lists it until it finishes. Stratus keeps
    /// long-lived operations for the life of the process only.
    public var longLivedOperationWasPersistedBlock: (() -> Void)? {
        get { blocks.get() }
        set { blocks.set(newValue) }
    }

    /// The configuration in effect: the operation's own values over its group's.
    var resolvedConfiguration: Configuration.Values {
        configuration.resolved(over: group?.defaultConfiguration)
    }

    /// The operation's quality of service: the same value as `configuration.qualityOfService`
    /// (`.default` unless set, or the group's when only the group sets it).
    public override var qualityOfService: QualityOfService {
        get { resolvedConfiguration.qualityOfService }
        set { configuration.qualityOfService = newValue }
    }

    /// The container the operation works in: the configuration's, or `CKContainer.default()`.
    var effectiveContainer: CKContainer {
        resolvedConfiguration.container ?? CKContainer.default()
    }

    /// The database requests go to; a database operation names its own.
    package var targetDatabase: CKDatabase {
        effectiveContainer.privateCloudDatabase
    }

    /// The database the operation settled on when it started, so every request of one run
    /// goes to the same database and container, and a rate-limit hold it meets stays on them.
    private let startedDatabase = Locked<CKDatabase?>(nil)

    /// The database of this run: the one chosen at ``start()``.
    var runDatabase: CKDatabase {
        startedDatabase.value ?? targetDatabase
    }

    // MARK: - State

    /// Always true: the operation finishes when its work does, not when `start()` returns.
    public override var isAsynchronous: Bool { true }

    /// Whether the operation is running.
    public override var isExecuting: Bool {
        stateLock.withLock { state == .executing || state == .finishing }
    }

    /// Whether the operation is done and its final block has returned.
    public override var isFinished: Bool {
        stateLock.withLock { state == .finished }
    }

    /// Whether the operation may start: Foundation's answer, or, once every dependency has
    /// finished, true.
    ///
    /// Foundation on Linux never makes an operation ready after `removeDependency(_:)` of a
    /// dependency that has not finished (its count of unfinished dependencies is lowered only
    /// for one that finished cancelled), so an operation freed from a dependency cycle would
    /// wait forever. Stratus answers from the dependencies themselves as well.
    public override var isReady: Bool {
        super.isReady || dependencies.allSatisfy(\.isFinished)
    }

    /// Removes a dependency and tells the queue to look at the operation's readiness again.
    public override func removeDependency(_ operation: Operation) {
        super.removeDependency(operation)
        willChangeValue(forKey: "isReady")
        didChangeValue(forKey: "isReady")
    }

    /// Cancels the operation: it sends nothing more, and reports `operationCancelled` to
    /// the items it has not reported yet.
    ///
    /// A cancelled operation does not wait for its dependencies (it finishes at once, as
    /// Foundation's operations do), so the dependencies that have not finished are removed
    /// first: Foundation on Linux crashes now and then when such a dependency finishes on
    /// another queue after the cancelled operation has already finished and gone. After
    /// `cancel()`, ``dependencies`` lists only the dependencies that had finished.
    public override func cancel() {
        // A finished operation stays as it finished (a late timeout must not mark it cancelled).
        if isFinished { return }
        // Cancelled first, so an operation the removal makes ready starts as cancelled.
        cancelRequested.value = true
        CancelledDependencies.release(self) { super.removeDependency($0) }
        super.cancel()
    }

    /// Set by ``cancel()`` before Foundation's own flag, which it sets last.
    private let cancelRequested = Locked(false)

    /// Whether the operation was cancelled.
    public override var isCancelled: Bool {
        cancelRequested.value || super.isCancelled
    }

    /// Moves the state machine and tells Foundation, from this one place, with `isFinished`
    /// signalled last.
    @discardableResult
    private func transition(to next: OperationState) -> Bool {
        let claimed = stateLock.withLock {
            guard pendingState == nil, state.canTransition(to: next) else { return false }
            pendingState = next
            return true
        }
        guard claimed else { return false }
        let keys: [String] = switch next {
        case .executing: ["isExecuting"]
        case .finished: ["isFinished", "isExecuting"]
        case .initialized, .finishing: []
        }
        keys.forEach { willChangeValue(forKey: $0) }
        stateLock.withLock {
            state = next
            pendingState = nil
        }
        keys.reversed().forEach { didChangeValue(forKey: $0) }
        return true
    }

    /// Starts the operation. Queues call this; call it yourself only for an operation in no queue.
    public override func start() {
        guard transition(to: .executing) else {
            runtimeWarning("CKOperation \(operationID) was started twice; the second start is ignored")
            return
        }
        let database = targetDatabase
        startedDatabase.value = database
        if let timeout = resolvedConfiguration.effectiveResourceTimeout {
            resourceDeadline.value = database.container.device.clock.now.addingTimeInterval(timeout)
        }
        if isCancelled {
            let error = CKError(.operationCancelled, message: "the operation was cancelled before its request was sent")
            finish(with: error) { self.reportFailure(error) }
            return
        }
        if let error = conditionFailure.value {
            finish(with: error) { self.reportFailure(error) }
            return
        }
        storedStartingQueue.value = WeakQueue(queue: OperationQueue.current)
        startObserver.value?(self)
        if resolvedConfiguration.isLongLived {
            LongLivedOperations.register(self)
            deliver {
                let persisted: (() -> Void)? = self.blocks.get("longLivedOperationWasPersistedBlock")
                persisted?()
            }
        }
        // Not Task.immediate: an operation that finished inside start() was released by Linux
        // Foundation's OperationQueue while the queue was still scheduling it (a crash in
        // OperationQueue._schedule, seen under OperationStressTests).
        Task(priority: taskPriority) {
            await self.run()
        }
    }

    private var taskPriority: TaskPriority {
        switch qualityOfService {
        case .userInteractive, .userInitiated: .userInitiated
        case .utility: .utility
        case .background: .background
        default: .medium
        }
    }

    // MARK: - Subclass hooks

    /// Does the operation's work: its requests, its per-item blocks, and, through
    /// ``finish(_:)``, its final block. Subclasses override it.
    func run() async {
        finish(with: nil) {}
    }

    /// Reports `error` to every item and the final block, for an operation that sends nothing:
    /// `operationCancelled` when it was cancelled before it started, or the error of a
    /// condition that failed. Subclasses override it. Runs on the callback queue.
    func reportFailure(_ error: CKError) {}

    // MARK: - Callbacks

    /// Runs `body` on the operation's serial callback queue, after every block queued before it.
    func deliver(_ body: @escaping () -> Void) {
        let box = UncheckedBox(value: body)
        callbackQueue.async { box.value() }
    }

    /// Runs the final block(s) in `body` on the callback queue, then finishes the operation.
    /// `error` is the error the final block reports (nil for success); ``reportedErrors`` lists
    /// it once the operation is finished.
    func finish(with error: CKError?, _ body: @escaping () -> Void) {
        guard transition(to: .finishing) else { return }
        finishedError.value = error
        let box = UncheckedBox(value: body)
        let queue = callbackQueue
        queue.async {
            box.value()
            self.blocks.releaseAll()
            LongLivedOperations.remove(self)
            let afterFinishing = self.afterFinishing.exchange(nil)
            self.transition(to: .finished)
            // Run the hook from a block that does not hold the operation, so whoever it wakes
            // sees the operation already released by its queue and by this block.
            if let afterFinishing { queue.async(execute: afterFinishing) }
        }
    }

    /// Called once the operation is finished, after its final block; Stratus's own
    /// convenience methods wait on it.
    package let afterFinishing = Locked<(@Sendable () -> Void)?>(nil)

    /// The standard `Operation` completion block. It runs after the final block, once, and is
    /// then released, so a block that captures its operation does not keep it alive.
    public override var completionBlock: (@Sendable () -> Void)? {
        get { super.completionBlock }
        set {
            userCompletionBlock.value = newValue
            guard newValue != nil else {
                super.completionBlock = nil
                return
            }
            let runOnce: @Sendable () -> Void = { [weak self] in
                let block = self?.userCompletionBlock.exchange(nil)
                block?()
            }
            super.completionBlock = runOnce
        }
    }

    // MARK: - Requests

    /// Sends one request along the client's one ``RequestPath``, unless the operation was
    /// cancelled: with the operation's ID, quality of service, request timeout and resource
    /// deadline.
    func send<Response: Sendable>(
        to database: CKDatabase,
        _ call: @escaping @Sendable (any CloudService, WireRequestContext) async throws(WireError) -> Response
    ) async -> Result<Response, CKError> {
        if isCancelled { return .failure(CKError(.operationCancelled, message: "the operation was cancelled before its request was sent")) }
        let configuration = resolvedConfiguration
        var path = database.requestPath(operationID: operationID, qualityOfService: WireQualityOfService(configuration.qualityOfService))
        path.timeout = configuration.effectiveRequestTimeout
        path.deadline = resourceDeadline.value
        return await path.send(call)
    }
}

extension WireQualityOfService {
    init(_ quality: QualityOfService) {
        switch quality {
        case .userInteractive: self = .userInteractive
        case .userInitiated: self = .userInitiated
        case .utility: self = .utility
        case .background: self = .background
        default: self = .default
        }
    }
}
