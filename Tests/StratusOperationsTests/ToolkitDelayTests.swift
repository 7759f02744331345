import Stratus
import StratusToolkit
import XCTest
import _StratusTestSupport

/// `DelayOperation`: waits on a clock, finishes early when cancelled.
final class ToolkitDelayTests: XCTestCase {
    private let queue = OperationQueue()
    private let clock = ManualClock()

    private func addObserved(_ operation: Operation) -> (started: XCTestExpectation, finished: XCTestExpectation) {
        let started = expectation(description: "started")
        let finished = expectation(description: "finished")
        queue.addOperation(operation, observers: [BlockObserver(startHandler: { _ in started.fulfill() }, finishHandler: { _, _ in finished.fulfill() })])
        return (started, finished)
    }

    func testADelayWaitsItsIntervalOnTheClock() {
        let delay = DelayOperation(interval: 5, clock: clock)
        let (started, finished) = addObserved(delay)
        wait(for: [started], timeout: 10)
        clock.advance(by: 4.999)
        XCTAssertFalse(delay.isFinished)
        clock.advance(by: 0.001)
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(delay.isFinished)
        XCTAssertFalse(delay.isCancelled)
        XCTAssertTrue(delay.reportedErrors.isEmpty)
    }

    func testAnIntervalCountsFromTheStartNotFromCreation() {
        let delay = DelayOperation(interval: 5, clock: clock)
        clock.advance(by: 100)
        let (started, finished) = addObserved(delay)
        wait(for: [started], timeout: 10)
        clock.advance(by: 4)
        XCTAssertFalse(delay.isFinished)
        clock.advance(by: 1)
        wait(for: [finished], timeout: 10)
    }

    func testADelayUntilADateFinishesWhenTheClockReachesIt() {
        let delay = DelayOperation(until: clock.now.addingTimeInterval(60), clock: clock)
        let (started, finished) = addObserved(delay)
        wait(for: [started], timeout: 10)
        clock.advance(by: 59)
        XCTAssertFalse(delay.isFinished)
        clock.advance(by: 1)
        wait(for: [finished], timeout: 10)
    }

    func testADelayOfZeroOrADatePassedFinishesAtOnce() {
        let zero = DelayOperation(interval: 0, clock: clock)
        let negative = DelayOperation(interval: -3, clock: clock)
        let past = DelayOperation(until: clock.now.addingTimeInterval(-1), clock: clock)
        let expectations = [zero, negative, past].flatMap { delay -> [XCTestExpectation] in
            let (started, finished) = addObserved(delay)
            return [started, finished]
        }
        wait(for: expectations, timeout: 10)
        XCTAssertEqual(clock.pendingActionCount, 0)
    }

    func testCancellingAWaitingDelayFinishesItEarly() {
        let delay = DelayOperation(interval: 1_000, clock: clock)
        let (started, finished) = addObserved(delay)
        wait(for: [started], timeout: 10)
        delay.cancel()
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(delay.isCancelled)
        XCTAssertEqual(clock.pendingActionCount, 0, "its timer is stopped")
    }

    func testADelayCancelledBeforeItStartsFinishesWithoutWaitingForItsDependencies() {
        let delay = DelayOperation(interval: 1_000, clock: clock)
        let blocker = DelayOperation(interval: 1_000, clock: clock)
        delay.addDependency(blocker)
        let finished = expectation(description: "finished")
        queue.addOperation(delay, observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        delay.cancel()
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(delay.dependencies.isEmpty, "the unfinished dependency was dropped")
        XCTAssertFalse(blocker.isFinished)
    }

    func testAnOperationThatDependsOnADelayRunsAfterIt() {
        let delay = DelayOperation(interval: 3, clock: clock)
        let work = RecordingOperation("work")
        work.addDependency(delay)
        let (started, delayFinished) = addObserved(delay)
        let workFinished = expectation(description: "work finished")
        queue.addOperation(work, observers: [BlockObserver(finishHandler: { _, _ in workFinished.fulfill() })])
        wait(for: [started], timeout: 10)
        XCTAssertEqual(work.runCount, 0)
        clock.advance(by: 3)
        wait(for: [delayFinished, workFinished], timeout: 10)
        XCTAssertEqual(work.runCount, 1)
    }

    func testCancelRacingTheTimerFinishesTheDelayOnce() {
        let count = 200
        let finished = expectation(description: "finished")
        finished.expectedFulfillmentCount = count
        finished.assertForOverFulfill = true
        let started = expectation(description: "started")
        started.expectedFulfillmentCount = count
        let delays = (0..<count).map { _ in DelayOperation(interval: 1, clock: clock) }
        for delay in delays {
            queue.addOperation(delay, observers: [BlockObserver(startHandler: { _ in started.fulfill() }, finishHandler: { _, _ in finished.fulfill() })])
        }
        wait(for: [started], timeout: 10)
        let manualClock = clock
        DispatchQueue.concurrentPerform(iterations: 2) { side in
            if side == 0 { manualClock.advance(by: 1) } else { delays.forEach { $0.cancel() } }
        }
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(delays.allSatisfy(\.isFinished))
    }
}
