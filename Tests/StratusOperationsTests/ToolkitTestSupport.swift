import Foundation
import Stratus
import StratusToolkit
import Synchronization
import XCTest

/// A condition whose result, dependency and evaluation the test decides.
final class ScriptedCondition: OperationCondition, @unchecked Sendable {
    let name: String
    let mutualExclusivityCategory: String?
    private let result: OperationConditionResult
    private let makeDependency: (@Sendable () -> GeneratedDependency?)?
    private let evaluations = Atomic<Int>(0)
    private let log: EventLog?

    init(
        _ name: String = "Scripted",
        category: String? = nil,
        log: EventLog? = nil,
        result: OperationConditionResult = .satisfied,
        dependency: (@Sendable () -> GeneratedDependency?)? = nil
    ) {
        self.name = name
        mutualExclusivityCategory = category
        self.log = log
        makeDependency = dependency
        self.result = result
    }

    /// How many times the condition was evaluated.
    var evaluationCount: Int { evaluations.load(ordering: .sequentiallyConsistent) }

    func dependency(for operation: Operation) -> GeneratedDependency? {
        makeDependency?()
    }

    func evaluate(for operation: Operation) async -> OperationConditionResult {
        evaluations.add(1, ordering: .sequentiallyConsistent)
        log?.append("evaluate \(name)")
        return result
    }
}

/// A condition that stays undecided until the test opens it.
final class GateCondition: OperationCondition, @unchecked Sendable {
    private struct State {
        var opened: OperationConditionResult?
        var waiter: CheckedContinuation<OperationConditionResult, Never>?
    }

    private let state = Mutex(State())
    /// Fulfilled when the evaluation has begun.
    let entered: XCTestExpectation

    init(entered: XCTestExpectation) {
        self.entered = entered
    }

    func evaluate(for operation: Operation) async -> OperationConditionResult {
        entered.fulfill()
        return await withCheckedContinuation { continuation in
            let ready: OperationConditionResult? = state.withLock { state in
                if let opened = state.opened { return opened }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Decides the condition.
    func open(_ result: OperationConditionResult = .satisfied) {
        let waiter = state.withLock { state in
            state.opened = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }
}

/// Counts every observer callback per operation, and checks their order.
final class CountingObserver: OperationObserver, @unchecked Sendable {
    struct Counts: Sendable {
        var starts = 0
        var finishes = 0
        var produced = 0
        var startedAfterFinish = false
        var errors: [String] = []
    }

    private let counts = Mutex<[ObjectIdentifier: Counts]>([:])
    private let running = Atomic<Int>(0)
    private let maxRunning = Atomic<Int>(0)
    private let finished: XCTestExpectation?
    private let log: EventLog?

    init(finished: XCTestExpectation? = nil, log: EventLog? = nil) {
        self.finished = finished
        self.log = log
    }

    func counts(for operation: Operation) -> Counts {
        counts.withLock { $0[ObjectIdentifier(operation)] ?? Counts() }
    }

    /// The most operations that had started and not finished at one time.
    var maxConcurrent: Int { maxRunning.load(ordering: .sequentiallyConsistent) }

    func operationDidStart(_ operation: Operation) {
        counts.withLock { counts in
            var entry = counts[ObjectIdentifier(operation)] ?? Counts()
            entry.starts += 1
            if entry.finishes > 0 { entry.startedAfterFinish = true }
            counts[ObjectIdentifier(operation)] = entry
        }
        let now = running.add(1, ordering: .sequentiallyConsistent).newValue
        maxRunning.max(now, ordering: .sequentiallyConsistent)
        log?.append("start \(operation.name ?? "?")")
    }

    func operation(_ operation: Operation, didProduceOperation newOperation: Operation) {
        counts.withLock { $0[ObjectIdentifier(operation), default: Counts()].produced += 1 }
        log?.append("produce \(operation.name ?? "?") -> \(newOperation.name ?? "?")")
    }

    func operationDidFinish(_ operation: Operation, errors: [any Error]) {
        let started = counts.withLock { counts in
            var entry = counts[ObjectIdentifier(operation)] ?? Counts()
            entry.finishes += 1
            entry.errors = errors.map { "\($0)" }
            counts[ObjectIdentifier(operation)] = entry
            return entry.starts > 0
        }
        if started { running.subtract(1, ordering: .sequentiallyConsistent) }
        log?.append("finish \(operation.name ?? "?")")
        finished?.fulfill()
    }
}

/// A plain synchronous operation that records that it ran.
final class RecordingOperation: Operation, @unchecked Sendable {
    private let log: EventLog?
    private let ran = Atomic<Int>(0)
    private let body: (@Sendable (RecordingOperation) -> Void)?

    init(_ name: String, log: EventLog? = nil, body: (@Sendable (RecordingOperation) -> Void)? = nil) {
        self.log = log
        self.body = body
        super.init()
        self.name = name
    }

    /// How many times `main()` ran.
    var runCount: Int { ran.load(ordering: .sequentiallyConsistent) }

    override func main() {
        guard !isCancelled else { return }
        ran.add(1, ordering: .sequentiallyConsistent)
        log?.append("run \(name ?? "?")")
        body?(self)
    }
}

/// Shared state for the talk's "save favourite" chain: logged in, then developer.
final class Session: Sendable {
    let loggedIn = Atomic<Bool>(false)
    let developer = Atomic<Bool>(false)
}

struct SessionError: Error, Equatable {
    let reason: String
}

/// The talk's "logged in" condition: brings a login operation.
struct LoggedIn: OperationCondition {
    let session: Session
    let log: EventLog
    let loginSucceeds: Bool

    func dependency(for operation: Operation) -> GeneratedDependency? {
        guard !session.loggedIn.load(ordering: .sequentiallyConsistent) else { return nil }
        let session = self.session, succeeds = loginSucceeds
        return GeneratedDependency(RecordingOperation("login", log: log) { _ in
            if succeeds { session.loggedIn.store(true, ordering: .sequentiallyConsistent) }
        })
    }

    func evaluate(for operation: Operation) async -> OperationConditionResult {
        session.loggedIn.load(ordering: .sequentiallyConsistent) ? .satisfied : .failed(SessionError(reason: "not logged in"))
    }
}

/// The talk's "is a developer" condition: brings a check that itself needs "logged in".
struct IsDeveloper: OperationCondition {
    let session: Session
    let log: EventLog
    let loginSucceeds: Bool

    func dependency(for operation: Operation) -> GeneratedDependency? {
        let session = self.session
        return GeneratedDependency(
            RecordingOperation("check developer", log: log) { _ in session.developer.store(true, ordering: .sequentiallyConsistent) },
            conditions: [LoggedIn(session: session, log: log, loginSucceeds: loginSucceeds)]
        )
    }

    func evaluate(for operation: Operation) async -> OperationConditionResult {
        session.developer.load(ordering: .sequentiallyConsistent) ? .satisfied : .failed(SessionError(reason: "not a developer"))
    }
}

extension XCTestCase {
    /// A fresh category name, so tests never share exclusivity categories.
    func uniqueCategory(_ function: String = #function) -> String {
        "\(Self.self).\(function).\(UUID().uuidString)"
    }
}

/// An asynchronous operation that ignores cancellation and finishes only when the test says.
final class StubbornOperation: Operation, @unchecked Sendable {
    private let state = Mutex<(executing: Bool, finished: Bool)>((false, false))
    private let started: XCTestExpectation?

    init(_ name: String, started: XCTestExpectation? = nil) {
        self.started = started
        super.init()
        self.name = name
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { state.withLock { $0.executing } }
    override var isFinished: Bool { state.withLock { $0.finished } }

    override func start() {
        willChangeValue(forKey: "isExecuting")
        state.withLock { $0.executing = true }
        didChangeValue(forKey: "isExecuting")
        started?.fulfill()
    }

    /// Finishes the operation.
    func release() {
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        state.withLock { $0 = (false, true) }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
