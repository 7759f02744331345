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
public class CKOperation: _AsyncOperation, @unchecked Sendable {
    /// An operation's identifier.
    public typealias ID = String

    /// A unique identifier, sent with every request the operation makes.
    public let operationID: ID = RandomUUID.string()

    let callbackQueue = DispatchQueue(label: "stratus.operation.callbacks")
    private let storedConfiguration = Locked(Configuration())
    private let userCompletionBlock = Locked<(@Sendable () -> Void)?>(nil)
    @_Locked private var resourceDeadline: Date? = nil
    /// Set when a Stratus queue took the operation, so a second `add(_:)` can be refused.
    package let isEnqueuedByStratus = Locked(false)
    /// Told from `start()` once the operation knows it will do its work: the operations
    /// toolkit (`StratusToolkit`, which this module cannot see) sets it when it attaches to
    /// the operation, to tell the operation's observers.
    @_Locked package var startObserver: (@Sendable (CKOperation) -> Void)? = nil
    /// The queue that started the operation (`OperationQueue.current` in `start()`), where the
    /// operations it produces go when it was not added through the toolkit.
    package var startingQueue: OperationQueue? { storedStartingQueue.queue }
    @_Locked private var storedStartingQueue = WeakQueue()

    private struct WeakQueue {
        weak var queue: OperationQueue?
    }
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
    @_Locked public var group: CKOperationGroup? = nil

    /// Called once, on the operation's queue before any other block, when an operation whose
    /// `configuration.isLongLived` is set starts: from then on
    /// `CKContainer.allLongLivedOperationIDs()` lists it until it finishes. Stratus keeps
    /// long-lived operations for the life of the process only.
    @_OperationBlock public var longLivedOperationWasPersistedBlock: (() -> Void)?

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
    @_Locked private var startedDatabase: CKDatabase? = nil

    /// The database of this run: the one chosen at ``start()``.
    var runDatabase: CKDatabase {
        startedDatabase ?? targetDatabase
    }

    // MARK: - Starting

    /// Names the operation by its ID in the warning about a second start.
    override package var startWarningName: String { "CKOperation \(operationID)" }

    /// Begins the operation's work once `start()` has made it executing: it settles on its
    /// database, reports a cancellation or a failed condition to every item and its final
    /// block, or sends its requests. `start()` calls it; do not call it yourself.
    public override func main() {
        let database = targetDatabase
        startedDatabase = database
        if let timeout = resolvedConfiguration.effectiveResourceTimeout {
            resourceDeadline = database.container.device.clock.now.addingTimeInterval(timeout)
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
        storedStartingQueue = WeakQueue(queue: OperationQueue.current)
        startObserver?(self)
        if resolvedConfiguration.isLongLived {
            LongLivedOperations.register(self)
            deliver {
                let persisted = self.longLivedOperationWasPersistedBlock
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
        guard beginFinishing() else { return }
        finishedError.value = error
        let box = UncheckedBox(value: body)
        let queue = callbackQueue
        queue.async {
            box.value()
            LongLivedOperations.remove(self)
            let afterFinishing = self.afterFinishing.exchange(nil)
            self.endFinishing()
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
        path.deadline = resourceDeadline
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
