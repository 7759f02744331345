import Stratus
import StratusToolkit
import Synchronization
import XCTest
import _StratusTestSupport

/// Cancelling an operation added with conditions and observers, at every stage: before it
/// starts, while its conditions are evaluated, while it waits for its category, while it
/// runs, and from many threads at once. It finishes once, its blocks run once, and its
/// observers hear the finish once.
final class ToolkitCancellationTests: OperationTestCase {
    private let queue = OperationQueue()

    /// A modify operation whose final block records its error code.
    private func modify(_ name: String, outcome: Captured<[String]>, done: XCTestExpectation) -> CKModifyRecordsOperation {
        let operation = CKModifyRecordsOperation(recordsToSave: [note(name)])
        operation.database = database
        operation.perRecordSaveBlock = { _, result in outcome.value.append("item \(result.failureCode.map { "\($0)" } ?? "ok")") }
        operation.modifyRecordsResultBlock = { result in
            outcome.value.append("final \(result.failureCode.map { "\($0)" } ?? "ok")")
            done.fulfill()
        }
        return operation
    }

    func testCancelledBeforeItIsAddedItFinishesWithoutEvaluatingItsConditions() {
        let outcome = Captured<[String]>([])
        let done = expectation(description: "final")
        let observed = expectation(description: "observed")
        let observer = CountingObserver(finished: observed)
        let condition = ScriptedCondition()
        let operation = modify("a", outcome: outcome, done: done)
        operation.cancel()
        queue.addOperation(operation, conditions: [condition, AccountAvailable()], observers: [observer])
        wait(for: [done, observed], timeout: 10)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(outcome.value, ["item operationCancelled", "final operationCancelled"])
        XCTAssertEqual(condition.evaluationCount, 0)
        XCTAssertEqual(observer.counts(for: operation).starts, 0)
        XCTAssertEqual(observer.counts(for: operation).finishes, 1)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testCancelledWhileItsConditionsAreEvaluatedItFinishesAtOnce() {
        let outcome = Captured<[String]>([])
        let done = expectation(description: "final")
        let observed = expectation(description: "observed")
        let observer = CountingObserver(finished: observed)
        let entered = expectation(description: "evaluating")
        let gate = GateCondition(entered: entered)
        let category = uniqueCategory()
        let operation = modify("a", outcome: outcome, done: done)
        queue.addOperation(operation, conditions: [gate, MutuallyExclusive(category)], observers: [observer])
        wait(for: [entered], timeout: 10)
        operation.cancel()
        wait(for: [done, observed], timeout: 10)
        XCTAssertEqual(outcome.value, ["item operationCancelled", "final operationCancelled"])
        gate.open()
        // The category is free again: the next operation of it runs.
        let nextFinished = expectation(description: "next finished")
        let next = RecordingOperation("next")
        queue.addOperation(next, conditions: [MutuallyExclusive(category)], observers: [BlockObserver(finishHandler: { _, _ in nextFinished.fulfill() })])
        wait(for: [nextFinished], timeout: 10)
        XCTAssertEqual(next.runCount, 1)
        XCTAssertEqual(observer.counts(for: operation).starts, 0)
        XCTAssertEqual(observer.counts(for: operation).finishes, 1)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testAPlainOperationCancelledWhileItsConditionsAreEvaluatedNeverRuns() {
        let observed = expectation(description: "observed")
        let observer = CountingObserver(finished: observed)
        let entered = expectation(description: "evaluating")
        let gate = GateCondition(entered: entered)
        let operation = RecordingOperation("plain")
        queue.addOperation(operation, conditions: [gate], observers: [observer])
        wait(for: [entered], timeout: 10)
        operation.cancel()
        wait(for: [observed], timeout: 10)
        gate.open()
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(operation.runCount, 0)
        XCTAssertEqual(observer.counts(for: operation).starts, 0)
    }

    func testCancelledWhileWaitingForItsCategoryItFinishesAndTheHolderKeepsRunning() {
        let category = uniqueCategory()
        let holder = DelayOperation(interval: 1, clock: clock)
        let holderStarted = expectation(description: "holder started")
        let holderFinished = expectation(description: "holder finished")
        queue.addOperation(holder, conditions: [MutuallyExclusive(category)], observers: [BlockObserver(startHandler: { _ in holderStarted.fulfill() }, finishHandler: { _, _ in holderFinished.fulfill() })])
        wait(for: [holderStarted], timeout: 10)
        let outcome = Captured<[String]>([])
        let done = expectation(description: "final")
        let waiting = modify("a", outcome: outcome, done: done)
        queue.addOperation(waiting, conditions: [MutuallyExclusive(category)])
        waiting.cancel()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(outcome.value, ["item operationCancelled", "final operationCancelled"])
        XCTAssertFalse(holder.isFinished)
        clock.advance(by: 1)
        wait(for: [holderFinished], timeout: 10)
    }

    func testCancelledWhileRunningItFinishesOnceAndObserversHearItOnce() {
        let delay = DelayOperation(interval: 100, clock: clock)
        let started = expectation(description: "started")
        let observed = expectation(description: "observed")
        let observer = CountingObserver(finished: observed)
        queue.addOperation(delay, conditions: [ScriptedCondition()], observers: [observer, BlockObserver(startHandler: { _ in started.fulfill() })])
        wait(for: [started], timeout: 10)
        delay.cancel()
        delay.cancel()
        wait(for: [observed], timeout: 10)
        XCTAssertEqual(observer.counts(for: delay).starts, 1)
        XCTAssertEqual(observer.counts(for: delay).finishes, 1)
    }

    func testCancellingFromManyThreadsAtOnceFinishesEveryOperationExactlyOnce() {
        let count = 120
        let finals = Mutex([Int](repeating: 0, count: count))
        let finished = expectation(description: "observers")
        finished.expectedFulfillmentCount = count
        finished.assertForOverFulfill = true
        let completions = expectation(description: "completion blocks")
        completions.expectedFulfillmentCount = count
        completions.assertForOverFulfill = true
        let observer = CountingObserver(finished: finished)
        let category = uniqueCategory()
        var operations: [Operation] = []
        for index in 0..<count {
            let operation: Operation
            switch index % 4 {
            case 0:
                let modify = CKModifyRecordsOperation(recordsToSave: [note("n\(index)")])
                modify.database = database
                modify.modifyRecordsResultBlock = { _ in finals.withLock { $0[index] += 1 } }
                operation = modify
            case 1:
                operation = DelayOperation(interval: 1_000, clock: clock)
            case 2:
                operation = GroupOperation(operations: [DelayOperation(interval: 1_000, clock: clock), RecordingOperation("child")])
            default:
                operation = RecordingOperation("plain \(index)")
            }
            operation.completionBlock = { completions.fulfill() }
            var conditions: [any OperationCondition] = [ScriptedCondition()]
            if index % 5 == 0 { conditions.append(MutuallyExclusive(category)) }
            if index % 7 == 0 { conditions.append(AccountAvailable(container: database.container)) }
            queue.addOperation(operation, conditions: conditions, observers: [observer])
            operations.append(operation)
        }
        let all = operations
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for operation in all.shuffled() { operation.cancel() }
        }
        wait(for: [finished, completions], timeout: 30)
        queue.waitUntilAllOperationsAreFinished()
        for (index, operation) in operations.enumerated() {
            XCTAssertTrue(operation.isFinished)
            XCTAssertEqual(observer.counts(for: operation).finishes, 1)
            XCTAssertFalse(observer.counts(for: operation).startedAfterFinish)
            if index % 4 == 0 { XCTAssertEqual(finals.withLock { $0[index] }, 1, "final block of \(index)") }
        }
    }
}
