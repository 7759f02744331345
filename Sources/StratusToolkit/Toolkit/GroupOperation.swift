import Foundation
import StratusCore
import StratusOperations
import StratusWire

/// An operation that runs a graph of operations, and finishes once all of them have finished.
///
/// Stratus-only, after `GroupOperation` in the WWDC 2015 session "Advanced NSOperations". The
/// children run on the group's own queue, with their dependencies, conditions and observers;
/// the group is one operation that others can depend on, observe and cancel.
///
/// ```swift
/// let group = GroupOperation(operations: [fetchNews, fetchSchedule])
/// group.addOperation(saveFavourites, conditions: [AccountAvailable()])
/// showHome.addDependency(group)
/// queue.addOperation(group)
/// queue.addOperation(showHome)
/// ```
///
/// The group's contract:
/// - children added before the group starts wait for it; children may be added while it runs
///   (the talk's fetch loop adds the next fetch from the previous one's final block); the
///   dependencies their conditions generate and the operations they produce join the group too;
/// - it finishes exactly once, after every child, including those added late, has finished. A
///   child must be added before the last running child finishes (from that child's work or
///   final block, not its `completionBlock`, which Foundation runs after the finish); a child
///   added once the group has finished is cancelled, with a warning;
/// - its ``reportedErrors`` are the errors its children reported (see
///   ``operationDidFinish(_:withErrors:)``), after that of a condition that stopped the group;
/// - cancelling it cancels every child, and any child added afterwards is cancelled as it is
///   added; it then finishes once the cancelled children have finished;
/// - a condition that stops the group stops its children the same way;
/// - a child that depends, directly or through other operations, on the group or a group
///   around it would wait for the group while the group waits for it: it does not run, and
///   fails with an ``OperationConditionError`` that names the cycle (a plain operation is
///   cancelled), so the group still finishes;
/// - added with ``MutuallyExclusive`` conditions, it holds their categories for its whole run,
///   and also those its children (added before the group itself was added) need: a group runs
///   as one operation, so two groups whose children need each other's categories take turns.
///   Inside, children of those categories take turns among themselves.
///
/// Subclass it to build an operation out of others, as the talk does; a subclass restates
/// `@unchecked Sendable`.
///
/// - Important: A running group occupies a place on its queue until its last child finishes.
///   If its children need a mutual-exclusivity category, keep it off queues with a small
///   `maxConcurrentOperationCount` where an operation of that category may wait behind it
///   (see ``MutuallyExclusive``).
open class GroupOperation: _AsyncOperation, OperationErrorReporting, StartReporting, @unchecked Sendable {
    private struct Child {
        let operation: Operation
        let conditions: [any OperationCondition]
        let observers: [any OperationObserver]
    }

    private struct State {
        var started = false
        /// The children added before the start are being moved to the queue.
        var flushing = false
        var finishClaimed = false
        var cancelled = false
        var conditionError: (any Error)?
        /// Children on the queue that have not finished.
        var pending = 0
        var live: [ObjectIdentifier: Operation] = [:]
        /// Children added before the start.
        var buffered: [Child] = []
        var errors: [any Error] = []
        /// The exclusivity categories the group holds, before scoping.
        var heldCategories: Set<String> = []
        /// The group this group is a child of.
        weak var parent: GroupOperation?
    }

    private let state = Locked(State())
    private let childQueue = GroupQueue()
    private let scopeID = RandomUUID.string()

    /// Creates a group of `operations`.
    ///
    /// - Parameter operations: The first children; more can be added with
    ///   ``addOperation(_:conditions:observers:)``.
    public init(operations: [Operation] = []) {
        super.init()
        childQueue.group = self
        childQueue.name = "stratus.group"
        for operation in operations { addOperation(operation) }
    }

    /// How many children run at once; Foundation's default (as many as the system allows)
    /// unless set.
    public var maxConcurrentOperationCount: Int {
        get { childQueue.maxConcurrentOperationCount }
        set { childQueue.maxConcurrentOperationCount = newValue }
    }

    // MARK: - Children

    /// Adds a child, with conditions and observers as
    /// ``Foundation/OperationQueue/addOperation(_:conditions:observers:)`` takes them.
    ///
    /// Before the group starts, the child waits for it; while it runs, the child starts at once
    /// (once ready); after it has finished, the child is cancelled, with a warning.
    ///
    /// - Parameters:
    ///   - operation: The child.
    ///   - conditions: What must hold before it runs.
    ///   - observers: Who hears about its life.
    public func addOperation(
        _ operation: Operation,
        conditions: [any OperationCondition] = [],
        observers: [any OperationObserver] = []
    ) {
        let buffered = state.withValue { state in
            guard !state.started else { return false }
            state.buffered.append(Child(operation: operation, conditions: conditions, observers: observers))
            return true
        }
        if !buffered { childQueue.addOperation(operation, conditions: conditions, observers: observers) }
    }

    /// Adds children. - SeeAlso: ``addOperation(_:conditions:observers:)``
    public func addOperations(_ operations: [Operation]) {
        for operation in operations { addOperation(operation) }
    }

    /// Called once for each child that finishes, with the errors it reported, before the group
    /// decides whether it is done: a child added from here keeps the group running.
    ///
    /// The default adds `errors` to the group's errors with ``aggregateErrors(_:)``. Override it
    /// to react to a child (add the next one, retry a failed one) or to choose which errors
    /// count; call `super` to keep the default. Runs on one of Stratus's threads, one call per
    /// child, possibly several at once for children that finish together.
    ///
    /// - Parameters:
    ///   - operation: The child that finished.
    ///   - errors: What it reported through ``OperationErrorReporting``; empty for a child that
    ///     does not adopt it.
    open func operationDidFinish(_ operation: Operation, withErrors errors: [any Error]) {
        aggregateErrors(errors)
    }

    /// Adds errors to those the group reports when it finishes.
    ///
    /// - Parameter errors: The errors, in the order to report them.
    public final func aggregateErrors(_ errors: [any Error]) {
        guard !errors.isEmpty else { return }
        state.withValue { $0.errors.append(contentsOf: errors) }
    }

    /// Counts an operation added to the child queue as a child; cancels it if the group is
    /// cancelled or stopped, or has finished.
    func adopt(_ operation: Operation) {
        let (tracked, mustCancel) = state.withValue { state -> (Bool, Bool) in
            guard !state.finishClaimed else { return (false, true) }
            state.pending += 1
            state.live[ObjectIdentifier(operation)] = operation
            return (true, state.cancelled || state.conditionError != nil)
        }
        if !tracked {
            Toolkit.warn("\(Toolkit.describe(operation)) was added to a GroupOperation that had finished; it is cancelled")
        }
        if mustCancel { Toolkit.cancel(operation) }
        guard tracked else { return }
        let counted: @Sendable () -> Void = { self.childFinished(operation) }
        if OperationAttachment.find(operation)?.afterObserversHeardFinish(counted) != true {
            Toolkit.whenFinished(operation, counted)
        }
    }

    private func childFinished(_ operation: Operation) {
        let errors = (operation as? any OperationErrorReporting)?.reportedErrors ?? []
        operationDidFinish(operation, withErrors: errors)
        let finishNow = state.withValue { state in
            state.pending -= 1
            state.live[ObjectIdentifier(operation)] = nil
            return Self.claimFinish(&state)
        }
        if finishNow { finish() }
    }

    /// Whether the group may finish now; claims the finish if so, so it happens once.
    private static func claimFinish(_ state: inout State) -> Bool {
        guard state.started, !state.flushing, state.pending == 0, !state.finishClaimed else { return false }
        state.finishClaimed = true
        return true
    }

    // MARK: - Exclusivity scoping

    /// The children the group waits for now: those not yet handed to its queue, and those on
    /// it that have not finished.
    var unfinishedChildren: [Operation] {
        state.withValue { state in state.buffered.map(\.operation) + Array(state.live.values) }
    }

    /// The exclusivity categories of the children added before the group was added to its
    /// queue, and of theirs: the group holds them for its whole run, so that two groups whose
    /// children need each other's categories take turns instead of waiting for each other.
    var categoriesOfBufferedChildren: Set<String> {
        let buffered = state.withValue { $0.buffered }
        var categories = Set<String>()
        for child in buffered {
            categories.formUnion(child.conditions.compactMap(\.mutualExclusivityCategory))
            if let group = child.operation as? GroupOperation { categories.formUnion(group.categoriesOfBufferedChildren) }
        }
        return categories
    }

    /// Whether this group, or a group around it, was cancelled: its children must not start,
    /// even those the cancel has not reached yet.
    var isCancelledFromHereUp: Bool {
        var group: GroupOperation? = self
        while let current = group {
            if current.isCancelled { return true }
            group = current.enclosingGroup
        }
        return false
    }

    /// The group this group runs inside, if it is a child of one.
    var enclosingGroup: GroupOperation? {
        state.withValue { $0.parent }
    }

    /// Records the categories the group holds, so its children's categories of the same name
    /// are scoped to it instead of waiting for it forever.
    func holdCategories(_ categories: Set<String>, inside parent: GroupOperation?) {
        state.withValue { state in
            state.heldCategories = categories
            state.parent = parent
        }
    }

    /// A child's categories: each one that this group or a group around it holds becomes that
    /// group's own, so children take turns among themselves while the group holds it.
    func scope(_ categories: Set<String>) -> Set<String> {
        Set(categories.map { category in
            var group: GroupOperation? = self
            while let current = group {
                let (held, parent) = current.state.withValue { ($0.heldCategories, $0.parent) }
                if held.contains(category) { return "\(current.scopeID)/\(category)" }
                group = parent
            }
            return category
        })
    }

    // MARK: - Running

    /// Starts the children once `start()` has made the group executing. `start()` calls it.
    public override func main() {
        let stopped = isCancelled || state.withValue { $0.conditionError != nil }
        if !stopped { OperationAttachment.operationDidStart(self) }
        // The children stay listed as buffered until each is on the queue, so whoever looks at
        // what the group waits for meanwhile (the exclusivity order) sees every one of them.
        let buffered = state.withValue { state in
            state.started = true
            state.flushing = true
            return state.buffered
        }
        // A stopped group still hands its children to the queue, cancelled, so each finishes
        // and its observers hear it.
        for child in buffered {
            childQueue.addOperation(child.operation, conditions: child.conditions, observers: child.observers)
        }
        let finishNow = state.withValue { state in
            state.buffered = []
            state.flushing = false
            return Self.claimFinish(&state)
        }
        if finishNow { finish() }
    }

    /// Cancels the group and every child; a child added from now on is cancelled as it is
    /// added. The group finishes once its cancelled children have.
    ///
    /// No child starts because of the cancel: the group is marked cancelled before any child
    /// is; the children not yet running are cancelled before the running ones, so a slot that
    /// a cancelled running child frees (under ``maxConcurrentOperationCount``) goes to no
    /// child that has not heard the cancel; and a child that a cancelled sibling's finish
    /// would let start (it depended on it) is stopped by its hidden evaluator, which checks the
    /// group (and the groups around it) before letting it run.
    ///
    /// Like `CKOperation.cancel()`, it drops the group's dependencies that have not finished.
    public override func cancel() {
        super.cancel()
        guard isCancelled else { return }
        // The group's own flag under the lock that adds children, so a child is either among
        // those cancelled here or sees the flag when it is added.
        let children = state.withValue { state in
            state.cancelled = true
            return Array(state.live.values) + state.buffered.map(\.operation)
        }
        let running = children.filter(\.isExecuting)
        children.filter { !$0.isExecuting }.forEach(Toolkit.cancel)
        running.forEach(Toolkit.cancel)
    }

    // MARK: - Errors

    /// Stops the group: when it starts, its children are cancelled and it reports `error`
    /// first. - SeeAlso: ``OperationErrorReporting/conditionDidFail(with:)``
    public func conditionDidFail(with error: any Error) {
        state.withValue { state in
            if state.conditionError == nil { state.conditionError = error }
        }
    }

    /// Once the group has finished: the error of a condition that stopped it, then the errors
    /// gathered from its children. - SeeAlso: ``OperationErrorReporting/reportedErrors``
    public var reportedErrors: [any Error] {
        guard isFinished else { return [] }
        return state.withValue { state in
            (state.conditionError.map { [$0] } ?? []) + state.errors
        }
    }
}
