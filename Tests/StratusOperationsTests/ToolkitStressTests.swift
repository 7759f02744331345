import Stratus
import StratusToolkit
import Synchronization
import XCTest
import _StratusTestSupport

/// Counts per operation, from any thread.
private final class Tally: Sendable {
    private let counts = Mutex<[ObjectIdentifier: Int]>([:])

    func increment(_ key: ObjectIdentifier) {
        counts.withLock { $0[key, default: 0] += 1 }
    }

    func count(_ operation: Operation) -> Int {
        counts.withLock { $0[ObjectIdentifier(operation)] ?? 0 }
    }
}

/// Thousands of random groups, conditions, dependencies, categories and cancellations, on
/// several queues: every operation finishes exactly once, every observer hears each finish
/// exactly once, and no two operations of a category ever run together.
final class ToolkitStressTests: OperationTestCase {
    /// Watches every operation with categories from its start to its finish, and counts the
    /// times two of one category ran at once. Names encode the tree (`op12.3` is inside
    /// `op12`): an operation and the groups around it may overlap, as a group runs its children.
    private final class ExclusivityMonitor: OperationObserver, Sendable {
        private struct State {
            var categories: [ObjectIdentifier: (name: String, categories: [String])] = [:]
            var running: [String: [String]] = [:]
            var overlaps: [String] = []
        }

        private let state = Mutex(State())

        func watch(_ operation: Operation, categories: [String]) {
            state.withLock { $0.categories[ObjectIdentifier(operation)] = (operation.name ?? "?", categories) }
        }

        func operationDidStart(_ operation: Operation) {
            state.withLock { state in
                guard let (name, categories) = state.categories[ObjectIdentifier(operation)] else { return }
                for category in categories {
                    for other in state.running[category, default: []]
                    where !name.hasPrefix(other + ".") && !other.hasPrefix(name + ".") {
                        state.overlaps.append("\(name) and \(other)")
                    }
                    state.running[category, default: []].append(name)
                }
            }
        }

        func operationDidFinish(_ operation: Operation, errors: [any Error]) {
            state.withLock { state in
                guard let (name, categories) = state.categories[ObjectIdentifier(operation)] else { return }
                for category in categories {
                    if let index = state.running[category]?.firstIndex(of: name) { state.running[category]?.remove(at: index) }
                }
            }
        }

        var overlaps: [String] { state.withLock { $0.overlaps } }
    }

    /// Builds a random graph of operations with a seeded generator.
    private struct Builder {
        var generator: SeededGenerator
        let categories: [String]
        let monitor: ExclusivityMonitor
        let observer: CountingObserver
        let clock: ManualClock
        let database: CKDatabase
        let finals: Tally
        var observed: [Operation] = []
        var toCancel: [Operation] = []
        var mustNotRun: [RecordingOperation] = []

        mutating func conditions(for operation: Operation) -> (conditions: [any OperationCondition], categories: [String]) {
            var conditions: [any OperationCondition] = []
            var chosen: [String] = []
            if Int.random(in: 0..<3, using: &generator) == 0 {
                chosen.append(categories[Int.random(in: 0..<categories.count, using: &generator)])
                let second = categories[Int.random(in: 0..<categories.count, using: &generator)]
                if Bool.random(using: &generator), !chosen.contains(second) { chosen.append(second) }
                conditions += chosen.map { MutuallyExclusive($0) }
            }
            switch Int.random(in: 0..<8, using: &generator) {
            case 0:
                conditions.append(ScriptedCondition(result: .failed(SessionError(reason: "stress"))))
                if let recording = operation as? RecordingOperation { mustNotRun.append(recording) }
            case 1:
                let generated = RecordingOperation("generated")
                observed.append(generated)
                let observer = self.observer
                conditions.append(ScriptedCondition(dependency: { GeneratedDependency(generated, observers: [observer]) }))
            case 2: conditions.append(NoCancelledDependencies())
            case 3: conditions.append(NoFailedDependencies())
            case 4: conditions.append(ScriptedCondition())
            default: break
            }
            return (conditions, chosen)
        }

        mutating func leaf(_ name: String) -> Operation {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                return RecordingOperation(name)
            case 5..<7:
                let delay = DelayOperation(interval: 0, clock: clock)
                delay.name = name
                return delay
            case 7..<9:
                // Waits until cancelled.
                let delay = DelayOperation(interval: 1_000_000, clock: clock)
                delay.name = name
                toCancel.append(delay)
                return delay
            default:
                let save = CKModifyRecordsOperation(recordsToSave: [CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name))])
                save.name = name
                save.database = database
                let finals = self.finals
                save.modifyRecordsResultBlock = { [key = ObjectIdentifier(save)] _ in finals.increment(key) }
                return save
            }
        }

        mutating func build(_ name: String, depth: Int) -> (operation: Operation, conditions: [any OperationCondition]) {
            let operation: Operation
            if depth < 2, Int.random(in: 0..<4, using: &generator) == 0 {
                let group = GroupOperation()
                group.name = name
                var hasNestedGroup = false
                for index in 0..<Int.random(in: 0...4, using: &generator) {
                    let child = build("\(name).\(index)", depth: depth + 1)
                    hasNestedGroup = hasNestedGroup || child.operation is GroupOperation
                    group.addOperation(child.operation, conditions: child.conditions, observers: [observer, monitor])
                }
                // A group that runs one child at a time must not hold its slot for a nested
                // group while a sibling that was granted a category waits for that slot (see
                // MutuallyExclusive): the documented limit of exclusivity on narrow queues.
                if !hasNestedGroup, Bool.random(using: &generator) { group.maxConcurrentOperationCount = 1 }
                operation = group
            } else {
                operation = leaf(name)
            }
            let (conditions, chosen) = conditions(for: operation)
            monitor.watch(operation, categories: chosen)
            observed.append(operation)
            return (operation, conditions)
        }
    }

    func testThousandsOfRandomGroupsConditionsAndCancellationsFinishEveryOperationOnce() {
        let topLevelCount = 1_000 * stressScale
        let queues = [1, 2, OperationQueue.defaultMaxConcurrentOperationCount].map { width -> OperationQueue in
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = width
            return queue
        }
        let finished = expectation(description: "every finish heard")
        finished.assertForOverFulfill = true
        let observer = CountingObserver(finished: finished)
        var builder = Builder(
            generator: SeededGenerator(seed: 2015),
            categories: (0..<3).map { "stress-\($0)-\(UUID().uuidString)" },
            monitor: ExclusivityMonitor(),
            observer: observer,
            clock: clock,
            database: database,
            finals: Tally()
        )

        var additions: [(Operation, [any OperationCondition], OperationQueue)] = []
        var topLevel: [Operation] = []
        for index in 0..<topLevelCount {
            let (operation, conditions) = builder.build("op\(index)", depth: 0)
            if !topLevel.isEmpty {
                for _ in 0..<Int.random(in: 0...2, using: &builder.generator) {
                    operation.addDependency(topLevel[Int.random(in: 0..<topLevel.count, using: &builder.generator)])
                }
            }
            topLevel.append(operation)
            switch Int.random(in: 0..<10, using: &builder.generator) {
            case 0: operation.cancel()
            case 1, 2: builder.toCancel.append(operation)
            default: break
            }
            // Groups go on the wide queue only, for the same documented limit.
            let queue = operation is GroupOperation ? queues[2] : queues[Int.random(in: 0..<queues.count, using: &builder.generator)]
            additions.append((operation, conditions, queue))
        }

        let observed = builder.observed
        finished.expectedFulfillmentCount = observed.count
        let completed = Tally()
        let completions = expectation(description: "completion blocks")
        completions.expectedFulfillmentCount = observed.count
        completions.assertForOverFulfill = true
        for operation in observed {
            let key = ObjectIdentifier(operation)
            operation.completionBlock = {
                completed.increment(key)
                completions.fulfill()
            }
        }

        for (operation, conditions, queue) in additions {
            queue.addOperation(operation, conditions: conditions, observers: [observer, builder.monitor])
        }
        let cancels = builder.toCancel
        DispatchQueue.concurrentPerform(iterations: 4) { lane in
            for (index, operation) in cancels.enumerated() where index % 4 == lane { operation.cancel() }
        }

        wait(for: [finished, completions], timeout: 60)
        let stuck = observed.filter { !$0.isFinished }
        // What the stuck operations wait for, to read in a failure.
        for operation in stuck.prefix(20) {
            let deps = operation.dependencies.map { "\($0.name ?? "\(type(of: $0))")[\($0.isFinished ? "F" : $0.isExecuting ? "E" : "W")\($0.isCancelled ? "C" : "")]" }
            print("STUCK \(operation.name ?? "?") \(type(of: operation)) exec=\(operation.isExecuting) cancelled=\(operation.isCancelled) ready=\(operation.isReady) deps=\(deps)")
        }
        guard stuck.isEmpty else { return XCTFail("\(stuck.count) operations never finished") }
        queues.forEach { $0.waitUntilAllOperationsAreFinished() }

        XCTAssertGreaterThan(observed.count, topLevelCount)
        XCTAssertEqual(builder.monitor.overlaps, [], "operations of a category ran together")
        for operation in observed {
            let name = operation.name ?? "?"
            let counts = observer.counts(for: operation)
            XCTAssertTrue(operation.isFinished, "\(name) finished")
            XCTAssertEqual(counts.finishes, 1, "\(name): its observer heard the finish once")
            XCTAssertLessThanOrEqual(counts.starts, 1, name)
            XCTAssertFalse(counts.startedAfterFinish, name)
            XCTAssertEqual(completed.count(operation), 1, "\(name) completed once")
            if operation is CKModifyRecordsOperation {
                XCTAssertEqual(builder.finals.count(operation), 1, "\(name): final block once")
            }
        }
        for operation in builder.mustNotRun {
            XCTAssertEqual(operation.runCount, 0, "\(operation.name ?? "?") ran although its condition failed")
        }
    }
}
