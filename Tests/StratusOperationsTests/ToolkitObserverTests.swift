import Stratus
import StratusToolkit
import Synchronization
import XCTest
import _StratusTestSupport

/// Observers: start, produced operations and finish, each once and in order; the block and
/// timeout observers; producing operations onto the producer's queue.
final class ToolkitObserverTests: OperationTestCase {
    private let queue = OperationQueue()

    func testABlockObserverHearsStartThenFinishOnceForAPlainOperation() {
        let log = EventLog()
        let finished = expectation(description: "finished")
        let operation = RecordingOperation("plain", log: log)
        let observer = BlockObserver(
            startHandler: { log.append("start \($0.name ?? "")") },
            finishHandler: { operation, errors in
                log.append("finish \(operation.name ?? "") \(errors.count)")
                finished.fulfill()
            }
        )
        queue.addOperation(operation, observers: [observer])
        wait(for: [finished], timeout: 10)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(log.all, ["start plain", "run plain", "finish plain 0"])
    }

    func testObserversOfACloudKitOperationHearTheFinishAfterItsFinalBlockReturned() {
        let log = EventLog()
        let finished = expectation(description: "finished")
        let operation = CKModifyRecordsOperation(recordsToSave: [note("a")])
        operation.database = database
        operation.modifyRecordsResultBlock = { _ in log.append("final block") }
        let observer = BlockObserver(
            startHandler: { _ in log.append("start") },
            finishHandler: { finishedOperation, errors in
                log.append("finish \(finishedOperation.isFinished) \(errors.count)")
                finished.fulfill()
            }
        )
        queue.addOperation(operation, observers: [observer])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["start", "final block", "finish true 0"])
    }

    func testAnObserverHearsTheErrorsAnOperationFinishedWith() {
        server.failNextRequests(1, with: .zoneBusy, retryAfter: 2)
        let errors = Captured<[String]>([])
        let finished = expectation(description: "finished")
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a")])
        operation.database = database
        queue.addOperation(operation, observers: [BlockObserver(finishHandler: { _, reported in
            errors.value = reported.compactMap { ($0 as? CKError).map { "\($0.code)" } }
            finished.fulfill()
        })])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(errors.value, ["zoneBusy"])
    }

    func testEveryObserverOfAnOperationHearsEachEventOnce() {
        let finished = expectation(description: "finished")
        finished.expectedFulfillmentCount = 3
        finished.assertForOverFulfill = true
        let observers = (0..<3).map { _ in CountingObserver(finished: finished) }
        let operation = GroupOperation(operations: [RecordingOperation("a"), RecordingOperation("b")])
        queue.addOperation(operation, conditions: [ScriptedCondition()], observers: observers)
        wait(for: [finished], timeout: 10)
        for observer in observers {
            XCTAssertEqual(observer.counts(for: operation).starts, 1)
            XCTAssertEqual(observer.counts(for: operation).finishes, 1)
        }
    }

    func testAnOperationCancelledBeforeItStartsIsNeverReportedAsStarted() {
        let finished = expectation(description: "finished")
        let observer = CountingObserver(finished: finished)
        let operation = DelayOperation(interval: 10, clock: clock)
        operation.cancel()
        queue.addOperation(operation, observers: [observer])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(observer.counts(for: operation).starts, 0)
        XCTAssertEqual(observer.counts(for: operation).finishes, 1)
    }

    // MARK: - Produced operations

    func testAProducedOperationGoesOnTheProducersQueueAndObserversHearIt() {
        let log = EventLog()
        let producerQueue = OperationQueue()
        let onQueue = Captured(false)
        let producedFinished = expectation(description: "produced finished")
        let produced = RecordingOperation("produced", log: log) { _ in onQueue.value = OperationQueue.current === producerQueue }
        let producer = RecordingOperation("producer", log: log) { operation in
            operation.produceOperation(produced, observers: [BlockObserver(finishHandler: { _, _ in producedFinished.fulfill() })])
        }
        let producerFinished = expectation(description: "producer finished")
        let observer = CountingObserver(finished: producerFinished, log: log)
        producerQueue.addOperation(producer, observers: [observer])
        wait(for: [producerFinished, producedFinished], timeout: 10)
        XCTAssertTrue(onQueue.value)
        XCTAssertEqual(observer.counts(for: producer).produced, 1)
        XCTAssertTrue(log.all.contains("produce producer -> produced"))
        XCTAssertEqual(produced.runCount, 1)
    }

    func testACloudKitOperationProducesFromItsFinalBlockOntoItsQueue() {
        let producerQueue = OperationQueue()
        let onQueue = Captured(false)
        let producedFinished = expectation(description: "produced finished")
        let operation = CKModifyRecordsOperation(recordsToSave: [note("a")])
        operation.database = database
        operation.modifyRecordsResultBlock = { [unowned operation] _ in
            let produced = RecordingOperation("next") { _ in onQueue.value = OperationQueue.current === producerQueue }
            operation.produceOperation(produced, observers: [BlockObserver(finishHandler: { _, _ in producedFinished.fulfill() })])
        }
        producerQueue.addOperation(operation)
        wait(for: [producedFinished], timeout: 10)
        XCTAssertTrue(onQueue.value, "the final block runs on no queue; the toolkit remembers the producer's")
    }

    func testAProducedOperationKeepsItsOwnConditions() {
        let producedFinished = expectation(description: "produced finished")
        let produced = RecordingOperation("produced")
        let producer = RecordingOperation("producer") { operation in
            operation.produceOperation(produced, conditions: [ScriptedCondition(result: .failed(SessionError(reason: "no")))],
                                       observers: [BlockObserver(finishHandler: { _, _ in producedFinished.fulfill() })])
        }
        queue.addOperation(producer)
        wait(for: [producedFinished], timeout: 10)
        XCTAssertEqual(produced.runCount, 0)
        XCTAssertTrue(produced.isCancelled)
    }

    // MARK: - Timeout observer

    func testATimeoutObserverCancelsAnOperationStillRunningWhenTheIntervalHasPassed() {
        let timeoutClock = ManualClock()
        let started = expectation(description: "started")
        let finished = expectation(description: "finished")
        let operation = DelayOperation(interval: 100, clock: timeoutClock)
        queue.addOperation(operation, observers: [
            TimeoutObserver(timeout: 5, clock: timeoutClock),
            BlockObserver(startHandler: { _ in started.fulfill() }, finishHandler: { _, _ in finished.fulfill() }),
        ])
        wait(for: [started], timeout: 10)
        timeoutClock.advance(by: 4.9)
        XCTAssertFalse(operation.isCancelled, "not before the interval")
        XCTAssertFalse(operation.isFinished)
        timeoutClock.advance(by: 0.1)
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(operation.isCancelled)
        XCTAssertEqual(timeoutClock.pendingActionCount, 0, "the delay's own timer was stopped too")
    }

    func testATimeoutObserverLeavesAnOperationThatFinishedInTimeAlone() {
        let timeoutClock = ManualClock()
        let finished = expectation(description: "finished")
        let operation = DelayOperation(interval: 2, clock: timeoutClock)
        let started = expectation(description: "started")
        queue.addOperation(operation, observers: [
            TimeoutObserver(timeout: 5, clock: timeoutClock),
            BlockObserver(startHandler: { _ in started.fulfill() }, finishHandler: { _, _ in finished.fulfill() }),
        ])
        wait(for: [started], timeout: 10)
        timeoutClock.advance(by: 2)
        wait(for: [finished], timeout: 10)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(timeoutClock.pendingActionCount, 0, "the timeout's timer is stopped at the finish")
        timeoutClock.advance(by: 10)
        XCTAssertFalse(operation.isCancelled)
    }

    func testATimeoutAfterACloudKitOperationFinishedDoesNotMarkItCancelled() {
        let done = expectation(description: "final")
        let operation = CKModifyRecordsOperation(recordsToSave: [note("a")])
        operation.database = database
        operation.modifyRecordsResultBlock = { _ in done.fulfill() }
        queue.addOperation(operation)
        wait(for: [done], timeout: 10)
        queue.waitUntilAllOperationsAreFinished()
        operation.cancel()
        XCTAssertFalse(operation.isCancelled, "a finished operation stays as it finished")
    }

    func testOneTimeoutObserverTimesEachOperationItWatches() {
        let timeoutClock = ManualClock()
        let timeout = TimeoutObserver(timeout: 5, clock: timeoutClock)
        let started = expectation(description: "started")
        started.expectedFulfillmentCount = 2
        let finished = expectation(description: "finished")
        finished.expectedFulfillmentCount = 2
        let observer = BlockObserver(startHandler: { _ in started.fulfill() }, finishHandler: { _, _ in finished.fulfill() })
        let short = DelayOperation(interval: 1, clock: timeoutClock)
        let long = DelayOperation(interval: 100, clock: timeoutClock)
        queue.addOperation(short, observers: [timeout, observer])
        queue.addOperation(long, observers: [timeout, observer])
        wait(for: [started], timeout: 10)
        timeoutClock.advance(by: 5)
        wait(for: [finished], timeout: 10)
        XCTAssertFalse(short.isCancelled)
        XCTAssertTrue(long.isCancelled)
    }
}
