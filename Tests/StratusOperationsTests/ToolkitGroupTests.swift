import Stratus
import StratusToolkit
import Synchronization
import XCTest
import _StratusTestSupport

/// `GroupOperation`: a graph run as one operation, children added while it runs, errors
/// gathered, cancellation passed on without races, one finish.
final class ToolkitGroupTests: OperationTestCase {
    private let queue = OperationQueue()

    private func addObserved(_ operation: Operation, conditions: [any OperationCondition] = []) -> (CountingObserver, XCTestExpectation) {
        let finished = expectation(description: "finished")
        finished.assertForOverFulfill = true
        let observer = CountingObserver(finished: finished)
        queue.addOperation(operation, conditions: conditions, observers: [observer])
        return (observer, finished)
    }

    func testAGroupRunsItsGraphAndFinishesAfterEveryChild() {
        let log = EventLog()
        let fetch = RecordingOperation("fetch", log: log)
        let parse = RecordingOperation("parse", log: log)
        let store = RecordingOperation("store", log: log)
        parse.addDependency(fetch)
        store.addDependency(parse)
        let group = GroupOperation(operations: [store, parse, fetch])
        let after = RecordingOperation("after", log: log)
        after.addDependency(group)
        let (observer, finished) = addObserved(group)
        let afterFinished = expectation(description: "after")
        queue.addOperation(after, observers: [BlockObserver(finishHandler: { _, _ in afterFinished.fulfill() })])
        wait(for: [finished, afterFinished], timeout: 10)
        XCTAssertEqual(log.all, ["run fetch", "run parse", "run store", "run after"])
        XCTAssertEqual(observer.counts(for: group).starts, 1)
        XCTAssertEqual(observer.counts(for: group).finishes, 1)
        XCTAssertTrue(group.reportedErrors.isEmpty)
    }

    func testAnEmptyGroupFinishesAtOnce() {
        let group = GroupOperation()
        let (_, finished) = addObserved(group)
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(group.isFinished)
    }

    func testChildrenWaitForTheGroupToStart() {
        let child = RecordingOperation("child")
        let group = GroupOperation(operations: [child])
        let blocker = DelayOperation(interval: 5, clock: clock)
        group.addDependency(blocker)
        let started = expectation(description: "blocker started")
        queue.addOperation(blocker, observers: [BlockObserver(startHandler: { _ in started.fulfill() })])
        let (_, finished) = addObserved(group)
        wait(for: [started], timeout: 10)
        XCTAssertEqual(child.runCount, 0)
        clock.advance(by: 5)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(child.runCount, 1)
    }

    func testChildrenAddedWhileTheGroupRunsAreWaitedFor() {
        // The talk's fetch loop: each page's operation adds the next before it finishes.
        let pages = Atomic<Int>(0)
        let group = GroupOperation()
        @Sendable func page(_ number: Int) -> RecordingOperation {
            RecordingOperation("page \(number)") { _ in
                pages.add(1, ordering: .sequentiallyConsistent)
                if number < 5 { group.addOperation(page(number + 1)) }
            }
        }
        group.addOperation(page(1))
        let (_, finished) = addObserved(group)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(pages.load(ordering: .sequentiallyConsistent), 5)
    }

    func testACursorLoopOfQueriesInAGroupDeliversEveryRecordOnce() async throws {
        try await seed((0..<25).map { note(String(format: "n%02d", $0)) })
        let names = Mutex<[String]>([])
        let group = GroupOperation()
        let database = self.database!
        @Sendable func query(_ operation: CKQueryOperation) -> CKQueryOperation {
            operation.database = database
            operation.resultsLimit = 10
            operation.recordMatchedBlock = { recordID, _ in names.withLock { $0.append(recordID.recordName) } }
            operation.queryResultBlock = { result in
                if case .success(let cursor?) = result { group.addOperation(query(CKQueryOperation(cursor: cursor))) }
            }
            return operation
        }
        group.addOperation(query(CKQueryOperation(query: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)))))
        let finished = expectation(description: "finished")
        queue.addOperation(group, observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        await fulfillment(of: [finished], timeout: 10)
        XCTAssertEqual(names.withLock { $0 }.sorted(), (0..<25).map { String(format: "n%02d", $0) })
        XCTAssertEqual(server.requestCount, 1 + 3, "one seed, three pages")
    }

    func testOperationsProducedByAChildJoinTheGroup() {
        let produced = RecordingOperation("produced")
        let producer = RecordingOperation("producer") { $0.produceOperation(produced) }
        let group = GroupOperation(operations: [producer])
        let (_, finished) = addObserved(group)
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(produced.isFinished, "the group finished after the produced operation")
        XCTAssertEqual(produced.runCount, 1)
    }

    func testGeneratedDependenciesOfChildrenJoinTheGroup() {
        let log = EventLog()
        let setup = RecordingOperation("setup", log: log)
        let child = RecordingOperation("child", log: log)
        let group = GroupOperation()
        group.addOperation(child, conditions: [ScriptedCondition(dependency: { GeneratedDependency(setup) })])
        let (_, finished) = addObserved(group)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["run setup", "run child"])
    }

    func testAGroupGathersItsChildrensErrors() {
        server.failNextRequests(1, with: .serviceUnavailable, retryAfter: 1)
        let failing = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a")])
        failing.database = database
        let stopped = DelayOperation(interval: 0, clock: clock)
        let group = GroupOperation()
        group.maxConcurrentOperationCount = 1
        group.addOperation(failing)
        group.addOperation(stopped, conditions: [ScriptedCondition(result: .failed(SessionError(reason: "stopped")))])
        group.addOperation(RecordingOperation("fine"))
        let (observer, finished) = addObserved(group)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(group.reportedErrors.count, 2)
        XCTAssertTrue(group.reportedErrors.contains { ($0 as? CKError)?.code == .serviceUnavailable })
        XCTAssertTrue(group.reportedErrors.contains { ($0 as? SessionError) == SessionError(reason: "stopped") })
        XCTAssertEqual(observer.counts(for: group).errors.count, 2, "observers hear the gathered errors")
    }

    func testAnOperationWithNoFailedDependenciesDoesNotRunAfterAFailedGroup() {
        let group = GroupOperation()
        group.addOperation(DelayOperation(interval: 0, clock: clock), conditions: [ScriptedCondition(result: .failed(SessionError(reason: "no")))])
        let after = RecordingOperation("after")
        after.addDependency(group)
        queue.addOperation(group)
        let (_, finished) = addObserved(after, conditions: [NoFailedDependencies()])
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(after.isCancelled)
        XCTAssertEqual(after.runCount, 0)
    }

    func testASubclassCanRetryAFailedChildAndChooseWhichErrorsCount() {
        final class RetryingGroup: GroupOperation, @unchecked Sendable {
            let attempts = Atomic<Int>(0)
            let makeAttempt: @Sendable () -> Operation
            init(makeAttempt: @escaping @Sendable () -> Operation) {
                self.makeAttempt = makeAttempt
                super.init(operations: [makeAttempt()])
            }
            override func operationDidFinish(_ operation: Operation, withErrors errors: [any Error]) {
                let attempt = attempts.add(1, ordering: .sequentiallyConsistent).newValue
                if !errors.isEmpty, attempt < 3 {
                    addOperation(makeAttempt())
                } else {
                    super.operationDidFinish(operation, withErrors: errors)
                }
            }
        }
        server.failNextRequests(2, with: .zoneBusy, retryAfter: 0.5)
        let database = self.database!
        let group = RetryingGroup {
            let fetch = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
            fetch.database = database
            return fetch
        }
        let (_, finished) = addObserved(group)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(group.attempts.load(ordering: .sequentiallyConsistent), 3)
        XCTAssertTrue(group.reportedErrors.isEmpty, "the retried failures do not count")
        XCTAssertEqual(server.requestCount, 3)
    }

    // MARK: - Cancellation

    func testCancellingARunningGroupCancelsItsChildrenAndItFinishesOnce() {
        let waiting = DelayOperation(interval: 1_000, clock: clock)
        let started = expectation(description: "child started")
        let group = GroupOperation()
        group.addOperation(waiting, observers: [BlockObserver(startHandler: { _ in started.fulfill() })])
        let (observer, finished) = addObserved(group)
        wait(for: [started], timeout: 10)
        group.cancel()
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(waiting.isCancelled)
        XCTAssertTrue(waiting.isFinished)
        XCTAssertTrue(group.isCancelled)
        XCTAssertEqual(observer.counts(for: group).finishes, 1)
    }

    func testCancellingAGroupLetsNoChildRunBecauseASiblingItWaitsForWasCancelledFirst() {
        // The cancel reaches the children in no set order: when the running sibling the saves
        // wait for is cancelled first, it finishes at once, and a save must not slip through
        // before the cancel reaches it. Several rounds, since the order changes each time.
        let outcomes = EventLog()
        for round in 0..<25 {
            let group = GroupOperation()
            let holder = DelayOperation(interval: 1_000, clock: clock)
            let started = expectation(description: "holder started \(round)")
            group.addOperation(holder, observers: [BlockObserver(startHandler: { _ in started.fulfill() })])
            var saves: [CKModifyRecordsOperation] = []
            for index in 0..<8 {
                let save = CKModifyRecordsOperation(recordsToSave: [note("r\(round)-\(index)")])
                save.database = database
                save.addDependency(holder)
                save.modifyRecordsResultBlock = { result in
                    outcomes.append(result.failureCode == .operationCancelled ? "cancelled" : "ran: \(result)")
                }
                group.addOperation(save)
                saves.append(save)
            }
            let (_, finished) = addObserved(group)
            wait(for: [started], timeout: 10)
            group.cancel()
            wait(for: [finished], timeout: 10)
            XCTAssertTrue(saves.allSatisfy(\.isFinished))
        }
        XCTAssertEqual(server.requestCount, 0, "no save sent its request after its group was cancelled")
        XCTAssertEqual(outcomes.all.filter { $0 != "cancelled" }, [])
        XCTAssertEqual(outcomes.all.count, 25 * 8)
    }

    func testCancellingAGroupLetsNoChildWaitingForAQueueSlotTakeTheSlotARunningSiblingFrees() {
        // One child at a time: the saves wait only for the holder's slot. When the cancel
        // reaches the holder before them, the slot it frees must not go to a save. (A save may
        // take the slot before the holder does, and run, before the cancel: that one is fine.)
        let startedAfterCancel = EventLog()
        for round in 0..<50 {
            let group = GroupOperation()
            group.maxConcurrentOperationCount = 1
            let holder = DelayOperation(interval: 1_000, clock: clock)
            let started = expectation(description: "holder started \(round)")
            group.addOperation(holder, observers: [BlockObserver(startHandler: { _ in started.fulfill() })])
            let cancelling = Mutex(false)
            var saves: [CKModifyRecordsOperation] = []
            for index in 0..<8 {
                let save = CKModifyRecordsOperation(recordsToSave: [note("s\(round)-\(index)")])
                save.database = database
                group.addOperation(save, observers: [BlockObserver(startHandler: { operation in
                    if cancelling.withLock({ $0 }) { startedAfterCancel.append(operation.name ?? "save") }
                })])
                saves.append(save)
            }
            let (_, finished) = addObserved(group)
            wait(for: [started], timeout: 10)
            cancelling.withLock { $0 = true }
            group.cancel()
            wait(for: [finished], timeout: 10)
            XCTAssertTrue(saves.allSatisfy(\.isFinished))
        }
        XCTAssertEqual(startedAfterCancel.all, [], "no save started after its group was cancelled")
    }

    func testCancellingAGroupStopsAChildOfANestedGroupThatWaitsForASiblingOfTheNestedGroup() {
        let outcomes = EventLog()
        for round in 0..<25 {
            let outer = GroupOperation()
            let holder = DelayOperation(interval: 1_000, clock: clock)
            let started = expectation(description: "holder started \(round)")
            outer.addOperation(holder, observers: [BlockObserver(startHandler: { _ in started.fulfill() })])
            let inner = GroupOperation()
            let innerStarted = expectation(description: "inner started \(round)")
            for index in 0..<8 {
                let save = CKModifyRecordsOperation(recordsToSave: [note("n\(round)-\(index)")])
                save.database = database
                save.addDependency(holder)
                save.modifyRecordsResultBlock = { result in
                    outcomes.append(result.failureCode == .operationCancelled ? "cancelled" : "ran: \(result)")
                }
                inner.addOperation(save)
            }
            outer.addOperation(inner, observers: [BlockObserver(startHandler: { _ in innerStarted.fulfill() })])
            let (_, finished) = addObserved(outer)
            wait(for: [started, innerStarted], timeout: 10)
            outer.cancel()
            wait(for: [finished], timeout: 10)
        }
        XCTAssertEqual(server.requestCount, 0, "no save sent its request after the group around its group was cancelled")
        XCTAssertEqual(outcomes.all.filter { $0 != "cancelled" }, [])
    }

    func testAChildThatWaitsForItsOwnGroupFailsNamingTheCycleInsteadOfHangingTheGroup() {
        let group = GroupOperation()
        group.name = "sync"
        let upload = CKModifyRecordsOperation(recordsToSave: [note("a")])
        upload.name = "upload"
        upload.database = database
        upload.addDependency(group)
        let reported = Captured<CKError?>(nil)
        let done = expectation(description: "upload final block")
        upload.modifyRecordsResultBlock = { result in
            if case .failure(let error as CKError) = result { reported.value = error }
            done.fulfill()
        }
        let cleanup = RecordingOperation("cleanup")
        let prepare = RecordingOperation("prepare")
        prepare.addDependency(group)
        cleanup.addDependency(prepare)
        group.addOperation(upload)
        group.addOperation(cleanup)
        let (observer, finished) = addObserved(group)
        wait(for: [done, finished], timeout: 10)
        XCTAssertEqual(reported.value?.code, .operationCancelled)
        let cycle = reported.value?.userInfo[NSUnderlyingErrorKey] as? OperationConditionError
        XCTAssertEqual(cycle?.reason.hasPrefix("\"upload\" waits for \"sync\""), true, cycle?.reason ?? "no cycle error")
        XCTAssertEqual(server.requestCount, 0)
        XCTAssertTrue(cleanup.isCancelled, "a plain child in a cycle through another operation is cancelled")
        XCTAssertEqual(cleanup.runCount, 0)
        XCTAssertEqual(observer.counts(for: group).finishes, 1)
        XCTAssertEqual(group.reportedErrors.count, 1, "the upload's error")
    }

    func testAChildAddedAfterTheGroupWasCancelledIsCancelledAndWaitedFor() {
        let log = EventLog()
        let started = expectation(description: "stubborn child started")
        let stubborn = StubbornOperation("stubborn", started: started)
        let group = GroupOperation(operations: [stubborn])
        group.name = "group"
        let finished = expectation(description: "group finished")
        queue.addOperation(group, observers: [CountingObserver(finished: finished, log: log)])
        wait(for: [started], timeout: 10)
        group.cancel()
        XCTAssertTrue(stubborn.isCancelled)
        let late = RecordingOperation("late", log: log)
        let lateFinished = expectation(description: "late finished")
        group.addOperation(late, observers: [CountingObserver(finished: lateFinished, log: log)])
        wait(for: [lateFinished], timeout: 10)
        XCTAssertFalse(group.isFinished, "the stubborn child still runs")
        stubborn.release()
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(late.isCancelled)
        XCTAssertEqual(late.runCount, 0)
        XCTAssertEqual(log.all, ["start group", "finish late", "finish group"])
    }

    func testAChildAddedAfterTheGroupFinishedIsCancelled() {
        let group = GroupOperation()
        let (_, finished) = addObserved(group)
        wait(for: [finished], timeout: 10)
        let late = RecordingOperation("late")
        let lateFinished = expectation(description: "late finished")
        group.addOperation(late, observers: [BlockObserver(finishHandler: { _, _ in lateFinished.fulfill() })])
        wait(for: [lateFinished], timeout: 10)
        XCTAssertTrue(late.isCancelled)
        XCTAssertEqual(late.runCount, 0)
    }

    func testAGroupCancelledBeforeItStartsFinishesAfterItsCancelledChildren() {
        let child = RecordingOperation("child")
        let childFinished = expectation(description: "child finished")
        let group = GroupOperation()
        group.addOperation(child, observers: [BlockObserver(finishHandler: { _, _ in childFinished.fulfill() })])
        group.cancel()
        let (observer, finished) = addObserved(group)
        wait(for: [childFinished, finished], timeout: 10, enforceOrder: true)
        XCTAssertEqual(child.runCount, 0)
        XCTAssertEqual(observer.counts(for: group).starts, 0)
    }

    func testAGroupWhoseConditionFailsRunsNoChildAndReportsTheError() {
        let child = RecordingOperation("child")
        let group = GroupOperation(operations: [child])
        let (observer, finished) = addObserved(group, conditions: [ScriptedCondition(result: .failed(SessionError(reason: "no")))])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(child.runCount, 0)
        XCTAssertEqual(group.reportedErrors.first as? SessionError, SessionError(reason: "no"))
        XCTAssertEqual(observer.counts(for: group).starts, 0)
    }

    func testAddingAndCancellingFromManyThreadsNeverLosesAChild() {
        for round in 0..<20 {
            let group = GroupOperation()
            let holder = DelayOperation(interval: 1_000, clock: clock)
            let started = expectation(description: "started \(round)")
            group.addOperation(holder, observers: [BlockObserver(startHandler: { _ in started.fulfill() })])
            let (observer, finished) = addObserved(group)
            wait(for: [started], timeout: 10)
            let children = (0..<40).map { RecordingOperation("child \($0)") }
            let childrenFinished = expectation(description: "children \(round)")
            childrenFinished.expectedFulfillmentCount = children.count
            childrenFinished.assertForOverFulfill = true
            let childObserver = BlockObserver(finishHandler: { _, _ in childrenFinished.fulfill() })
            DispatchQueue.concurrentPerform(iterations: children.count + 1) { index in
                if index == children.count / 2 { group.cancel() }
                if index < children.count { group.addOperation(children[index], observers: [childObserver]) }
            }
            wait(for: [childrenFinished, finished], timeout: 10)
            XCTAssertEqual(observer.counts(for: group).finishes, 1)
            XCTAssertTrue(holder.isCancelled)
            XCTAssertTrue(children.allSatisfy(\.isFinished))
        }
    }

    func testNestedGroupsFinishInsideOut() {
        let log = EventLog()
        let inner = GroupOperation(operations: [RecordingOperation("leaf", log: log)])
        inner.name = "inner"
        let outer = GroupOperation()
        outer.name = "outer"
        outer.addOperation(inner, observers: [CountingObserver(log: log)])
        let finished = expectation(description: "outer")
        queue.addOperation(outer, observers: [CountingObserver(finished: finished, log: log)])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["start outer", "start inner", "run leaf", "finish inner", "finish outer"])
    }
}
