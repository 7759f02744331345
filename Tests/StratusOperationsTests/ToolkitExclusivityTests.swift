import Stratus
import StratusToolkit
import Synchronization
import XCTest
import _StratusTestSupport

/// Mutual exclusivity by category: one operation of a category at a time, across queues, in
/// the order added, and no deadlock with several categories, dependencies or groups.
final class ToolkitExclusivityTests: OperationTestCase {
    /// Delays that stay running until the clock moves, named `name0`, `name1`, …
    private func delays(_ count: Int, named name: String = "op") -> [DelayOperation] {
        (0..<count).map { index in
            let delay = DelayOperation(interval: 1, clock: clock)
            delay.name = "\(name)\(index)"
            return delay
        }
    }

    private func starts(_ log: EventLog) -> [String] {
        log.all.filter { $0.hasPrefix("start ") }
    }

    func testAtMostOneOperationOfACategoryRunsAtATimeAcrossTwoQueuesInTheOrderAdded() {
        let category = uniqueCategory()
        let queues = [OperationQueue(), OperationQueue()]
        let log = EventLog()
        let finished = expectation(description: "all finished")
        finished.expectedFulfillmentCount = 6
        let observer = CountingObserver(finished: finished, log: log)
        let operations = delays(6)
        let started = operations.map { expectation(description: "start \($0.name ?? "")") }
        for (index, operation) in operations.enumerated() {
            let startObserver = BlockObserver(startHandler: { _ in started[index].fulfill() })
            queues[index % 2].addOperation(operation, conditions: [MutuallyExclusive(category)], observers: [observer, startObserver])
        }
        for index in operations.indices {
            wait(for: [started[index]], timeout: 10)
            XCTAssertEqual(starts(log).count, index + 1, "only \(operations[index].name ?? "") runs")
            clock.advance(by: 1)
        }
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(starts(log), operations.map { "start \($0.name ?? "")" })
        XCTAssertEqual(observer.maxConcurrent, 1)
    }

    func testOperationsOfDifferentCategoriesRunTogether() {
        let log = EventLog()
        let bothStarted = expectation(description: "both started")
        bothStarted.expectedFulfillmentCount = 2
        let observer = BlockObserver(startHandler: { _ in bothStarted.fulfill() })
        let operations = delays(2)
        let queue = OperationQueue()
        queue.addOperation(operations[0], conditions: [MutuallyExclusive(uniqueCategory() + "a")], observers: [observer, CountingObserver(log: log)])
        queue.addOperation(operations[1], conditions: [MutuallyExclusive(uniqueCategory() + "b")], observers: [observer, CountingObserver(log: log)])
        wait(for: [bothStarted], timeout: 10)
        clock.advance(by: 1)
        queue.waitUntilAllOperationsAreFinished()
    }

    func testATypeNamesACategory() {
        enum AlertPresentation {}
        XCTAssertEqual(MutuallyExclusive<AlertPresentation>().category, MutuallyExclusive<AlertPresentation>().category)
        XCTAssertNotEqual(MutuallyExclusive<AlertPresentation>().category, MutuallyExclusive<Int>().category)
        XCTAssertEqual(MutuallyExclusive("photos").mutualExclusivityCategory, "photos")
    }

    func testACancelledOperationInTheLineDoesNotLetTheNextOneOvertake() {
        // The talk's sample chained each operation to the previous one only; cancelling the
        // middle one let the third run beside the first.
        let category = uniqueCategory()
        let queue = OperationQueue()
        let log = EventLog()
        let finished = expectation(description: "all finished")
        finished.expectedFulfillmentCount = 3
        let observer = CountingObserver(finished: finished, log: log)
        let operations = delays(3)
        let firstStarted = expectation(description: "first started")
        let middleFinished = expectation(description: "middle finished")
        let thirdStarted = expectation(description: "third started")
        queue.addOperation(operations[0], conditions: [MutuallyExclusive(category)], observers: [observer, BlockObserver(startHandler: { _ in firstStarted.fulfill() })])
        queue.addOperation(operations[1], conditions: [MutuallyExclusive(category)], observers: [observer, BlockObserver(finishHandler: { _, _ in middleFinished.fulfill() })])
        queue.addOperation(operations[2], conditions: [MutuallyExclusive(category)], observers: [observer, BlockObserver(startHandler: { _ in thirdStarted.fulfill() })])
        wait(for: [firstStarted], timeout: 10)
        operations[1].cancel()
        wait(for: [middleFinished], timeout: 10)
        XCTAssertEqual(observer.counts(for: operations[2]).starts, 0, "the third waits for the first")
        XCTAssertFalse(operations[0].isFinished)
        clock.advance(by: 1)
        wait(for: [thirdStarted], timeout: 10)
        clock.advance(by: 1)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(observer.maxConcurrent, 1)
        XCTAssertEqual(starts(log), ["start op0", "start op2"])
    }

    func testOperationsWithTwoCategoriesInOppositeOrdersNeverDeadlock() {
        let (a, b) = (uniqueCategory() + "a", uniqueCategory() + "b")
        let queues = [OperationQueue(), OperationQueue()]
        let count = 200
        let finished = expectation(description: "all finished")
        finished.expectedFulfillmentCount = count
        finished.assertForOverFulfill = true
        let observer = CountingObserver(finished: finished)
        let running = Mutex<[String: Int]>([:])
        let overlaps = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let categories = index % 3 == 0 ? [a, b] : index % 3 == 1 ? [b, a] : [index % 2 == 0 ? a : b]
            let operation = RecordingOperation("op\(index)") { _ in
                running.withLock { running in
                    for category in categories {
                        running[category, default: 0] += 1
                        if running[category, default: 0] > 1 { overlaps.add(1, ordering: .relaxed) }
                    }
                }
                running.withLock { running in
                    for category in categories { running[category, default: 0] -= 1 }
                }
            }
            queues[index % 2].addOperation(operation, conditions: categories.map { MutuallyExclusive($0) }, observers: [observer])
        }
        wait(for: [finished], timeout: 30)
        XCTAssertEqual(overlaps.load(ordering: .relaxed), 0)
    }

    func testAnOperationThatDependsOnALaterOneOfItsCategoryDoesNotDeadlock() {
        let category = uniqueCategory()
        let queue = OperationQueue()
        let log = EventLog()
        let finished = expectation(description: "both finished")
        finished.expectedFulfillmentCount = 2
        let observer = CountingObserver(finished: finished, log: log)
        let save = RecordingOperation("save", log: log)
        let fetch = RecordingOperation("fetch", log: log)
        save.addDependency(fetch)
        queue.addOperation(save, conditions: [MutuallyExclusive(category)], observers: [observer])
        queue.addOperation(fetch, conditions: [MutuallyExclusive(category)], observers: [observer])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all.filter { $0.hasPrefix("run") }, ["run fetch", "run save"])
    }

    func testATransitiveWaitOnALaterOperationIsSortedFirst() {
        // save waits for transform, which waits for fetch; in between, another operation of the
        // category that fetch itself waits for.
        let category = uniqueCategory()
        let queue = OperationQueue()
        let log = EventLog()
        let finished = expectation(description: "all finished")
        finished.expectedFulfillmentCount = 3
        let observer = CountingObserver(finished: finished, log: log)
        let save = RecordingOperation("save", log: log)
        let transform = RecordingOperation("transform", log: log)
        let prepare = RecordingOperation("prepare", log: log)
        let fetch = RecordingOperation("fetch", log: log)
        save.addDependency(transform)
        transform.addDependency(fetch)
        fetch.addDependency(prepare)
        queue.addOperation(save, conditions: [MutuallyExclusive(category)], observers: [observer])
        queue.addOperation(prepare, conditions: [MutuallyExclusive(category)], observers: [observer])
        queue.addOperation(fetch, conditions: [MutuallyExclusive(category)], observers: [observer])
        queue.addOperation(transform)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all.filter { $0.hasPrefix("run") }, ["run prepare", "run fetch", "run transform", "run save"])
    }

    func testAGeneratedDependencyOfTheSameCategoryRunsFirst() {
        let category = uniqueCategory()
        let log = EventLog()
        let queue = OperationQueue()
        let finished = expectation(description: "finished")
        let condition = ScriptedCondition("alert first", category: category, dependency: {
            GeneratedDependency(RecordingOperation("alert", log: log), conditions: [MutuallyExclusive(category)])
        })
        queue.addOperation(RecordingOperation("work", log: log), conditions: [condition], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["run alert", "run work"])
    }

    func testAFailedConditionGivesUpTheCategoryAtOnce() {
        let category = uniqueCategory()
        let queue = OperationQueue()
        let finished = expectation(description: "second finished")
        let second = RecordingOperation("second")
        queue.addOperation(RecordingOperation("first"), conditions: [MutuallyExclusive(category), ScriptedCondition(result: .failed(SessionError(reason: "no")))])
        queue.addOperation(second, conditions: [MutuallyExclusive(category)], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(second.runCount, 1)
    }

    func testASerialQueueOfExclusiveOperationsDoesNotWaitOnItself() {
        let category = uniqueCategory()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let finished = expectation(description: "all finished")
        finished.expectedFulfillmentCount = 10
        let observer = CountingObserver(finished: finished)
        var previous: Operation?
        for index in 0..<10 {
            let operation = RecordingOperation("op\(index)")
            if index % 3 == 2, let previous { operation.addDependency(previous) }
            queue.addOperation(operation, conditions: [MutuallyExclusive(category)], observers: [observer])
            previous = operation
        }
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(observer.maxConcurrent, 1)
    }

    func testAGroupHoldingACategoryRunsItsChildrenOfThatCategoryOneAtATime() {
        let category = uniqueCategory()
        let queue = OperationQueue()
        let log = EventLog()
        let children = (0..<3).map { RecordingOperation("child\($0)", log: log) }
        let group = GroupOperation()
        group.name = "group"
        let childObserver = CountingObserver()
        for child in children { group.addOperation(child, conditions: [MutuallyExclusive(category)], observers: [childObserver]) }
        let outsider = RecordingOperation("outsider", log: log)
        let finished = expectation(description: "all finished")
        finished.expectedFulfillmentCount = 2
        let observer = BlockObserver(finishHandler: { _, _ in finished.fulfill() })
        queue.addOperation(group, conditions: [MutuallyExclusive(category)], observers: [observer])
        queue.addOperation(outsider, conditions: [MutuallyExclusive(category)], observers: [observer])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all.last, "run outsider", "the outsider waits for the whole group")
        XCTAssertEqual(log.all.count, 4)
        XCTAssertEqual(childObserver.maxConcurrent, 1)
    }

    func testALockOrderInversionBetweenGroupsIsRefusedInsteadOfWaitingForever() {
        // One running group holds A and gets a child needing B; the other holds B and gets a
        // child needing A. The claim that closes the cycle is refused with an error.
        let (a, b) = (uniqueCategory() + "a", uniqueCategory() + "b")
        let queue = OperationQueue()
        let started = [expectation(description: "first group running"), expectation(description: "second group running")]
        let holders = started.enumerated().map { StubbornOperation("holder \($0.offset)", started: $0.element) }
        let groups = holders.map { GroupOperation(operations: [$0]) }
        let finished = expectation(description: "both groups finished")
        finished.expectedFulfillmentCount = 2
        let observer = BlockObserver(finishHandler: { _, _ in finished.fulfill() })
        queue.addOperation(groups[0], conditions: [MutuallyExclusive(a)], observers: [observer])
        queue.addOperation(groups[1], conditions: [MutuallyExclusive(b)], observers: [observer])
        wait(for: started, timeout: 10)
        let children = [DelayOperation(interval: 0, clock: clock), DelayOperation(interval: 0, clock: clock)]
        children[0].name = "needs B"
        children[1].name = "needs A"
        groups[0].addOperation(children[0], conditions: [MutuallyExclusive(b)])
        groups[1].addOperation(children[1], conditions: [MutuallyExclusive(a)])
        holders.forEach { $0.release() }
        wait(for: [finished], timeout: 10)
        let refused = children.filter { !$0.reportedErrors.isEmpty }
        XCTAssertEqual(refused.count, 1, "exactly one claim closes the cycle")
        XCTAssertTrue(children.allSatisfy(\.isFinished))
        guard let error = refused.first?.reportedErrors.first as? OperationConditionError else { return XCTFail("expected a condition error") }
        XCTAssertTrue(error.reason.contains("would never end"), error.reason)
        XCTAssertTrue(error.conditionName.hasPrefix("MutuallyExclusive"), error.conditionName)
        XCTAssertEqual(groups.flatMap(\.reportedErrors).count, 1, "its group reports it")
    }

    func testTwoGroupsWhoseChildrenNeedEachOthersCategoriesTakeTurns() {
        // A group with categories runs as one operation and holds its children's categories
        // too, so the crossed needs of these two groups never meet.
        let (a, b) = (uniqueCategory() + "a", uniqueCategory() + "b")
        let queue = OperationQueue()
        let log = EventLog()
        let first = GroupOperation(operations: [])
        first.addOperation(RecordingOperation("first's child", log: log), conditions: [MutuallyExclusive(b)])
        let second = GroupOperation(operations: [])
        second.addOperation(RecordingOperation("second's child", log: log), conditions: [MutuallyExclusive(a)])
        let finished = expectation(description: "both groups finished")
        finished.expectedFulfillmentCount = 2
        let observer = BlockObserver(finishHandler: { _, _ in finished.fulfill() })
        queue.addOperation(first, conditions: [MutuallyExclusive(a)], observers: [observer])
        queue.addOperation(second, conditions: [MutuallyExclusive(b)], observers: [observer])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["run first's child", "run second's child"], "neither child was refused; the groups took turns")
        XCTAssertTrue(first.reportedErrors.isEmpty && second.reportedErrors.isEmpty)
    }
}
