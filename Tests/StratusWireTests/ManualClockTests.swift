import Foundation
import Synchronization
import StratusWire
import XCTest

final class ManualClockTests: XCTestCase {
    private final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    func testTimeStandsStillUntilAdvanced() {
        let clock = ManualClock()
        XCTAssertEqual(clock.now, ManualClock.defaultStart)
        clock.advance(by: 2.5)
        XCTAssertEqual(clock.now, ManualClock.defaultStart.addingTimeInterval(2.5))
    }

    func testScheduledActionsDoNotRunBeforeTheirDeadline() {
        let clock = ManualClock()
        let log = Log()
        clock.schedule(after: 5) { log.append("five") }
        clock.advance(by: 4.999)
        XCTAssertEqual(log.all, [])
        clock.advance(by: 0.001)
        XCTAssertEqual(log.all, ["five"])
    }

    func testActionsRunInDeadlineOrderThenInSchedulingOrder() {
        let clock = ManualClock()
        let log = Log()
        clock.schedule(after: 3) { log.append("c") }
        clock.schedule(after: 1) { log.append("a1") }
        clock.schedule(after: 1) { log.append("a2") }
        clock.schedule(after: 2) { log.append("b") }
        clock.advance(by: 10)
        XCTAssertEqual(log.all, ["a1", "a2", "b", "c"])
    }

    func testClockReadsEachActionsDeadlineWhileItRuns() {
        let clock = ManualClock()
        let seen = Mutex<[TimeInterval]>([])
        for delay in [1.0, 2.0] {
            clock.schedule(after: delay) { seen.withLock { $0.append(clock.now.timeIntervalSince(ManualClock.defaultStart)) } }
        }
        clock.advance(by: 5)
        XCTAssertEqual(seen.withLock { $0 }, [1, 2])
        XCTAssertEqual(clock.now, ManualClock.defaultStart.addingTimeInterval(5))
    }

    func testActionScheduledDuringAdvanceRunsInTheSameAdvanceWhenDue() {
        let clock = ManualClock()
        let log = Log()
        clock.schedule(after: 1) {
            log.append("first")
            clock.schedule(after: 1) { log.append("second") }
            clock.schedule(after: 10) { log.append("late") }
        }
        clock.advance(by: 3)
        XCTAssertEqual(log.all, ["first", "second"])
        XCTAssertEqual(clock.pendingActionCount, 1)
    }

    func testCancelledTimerNeverRuns() {
        let clock = ManualClock()
        let log = Log()
        let timer = clock.schedule(after: 1) { log.append("cancelled") }
        timer.cancel()
        clock.advance(by: 2)
        XCTAssertEqual(log.all, [])
        XCTAssertTrue(timer.isCancelled)
        XCTAssertEqual(clock.pendingActionCount, 0)
    }

    func testWeCannotTimeTravelIntoThePast() {
        let clock = ManualClock()
        clock.advance(by: 10)
        let later = clock.now
        clock.advance(to: ManualClock.defaultStart)
        clock.advance(by: -5)
        XCTAssertEqual(clock.now, later)
    }

    func testPastDeadlineRunsAtTheNextAdvanceNotWhenScheduled() {
        let clock = ManualClock()
        let log = Log()
        clock.schedule(at: .distantPast) { log.append("overdue") }
        XCTAssertEqual(log.all, [])
        clock.advance(by: 0)
        XCTAssertEqual(log.all, ["overdue"])
    }

    func testSystemClockRunsItsTimers() {
        let clock = SystemClock()
        let fired = expectation(description: "timer fired")
        clock.schedule(after: 0.01) { fired.fulfill() }
        wait(for: [fired], timeout: 5)
    }

    func testSystemClockSkipsCancelledTimers() {
        let clock = SystemClock()
        let later = expectation(description: "later timer fired")
        let cancelled = Mutex(false)
        clock.schedule(after: 0.01) { cancelled.withLock { $0 = true } }.cancel()
        clock.schedule(after: 0.02) { later.fulfill() }
        wait(for: [later], timeout: 5)
        XCTAssertFalse(cancelled.withLock { $0 })
    }
}

extension ManualClockTests {
    func testCancelledActionsDoNotPileUpOnAClockThatIsNeverAdvanced() {
        let clock = ManualClock()
        for _ in 0..<10_000 {
            clock.schedule(after: 60) {}.cancel()
        }
        XCTAssertEqual(clock.pendingActionCount, 0)
        XCTAssertLessThan(clock.storedActionCount, 200)
    }
}
