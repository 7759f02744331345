import Stratus
import StratusToolkit
import Synchronization
import XCTest
import _StratusTestSupport

/// Conditions attached with `addOperation(_:conditions:observers:)`: evaluation after the
/// dependencies, generated dependencies, the built-in conditions, and what a failure does to
/// each kind of operation.
final class ToolkitConditionTests: OperationTestCase {
    private let queue = OperationQueue()

    /// A modify operation on John's database whose blocks record what they saw.
    private func recordingModify(_ names: [String], log: EventLog, done: XCTestExpectation) -> CKModifyRecordsOperation {
        let operation = CKModifyRecordsOperation(recordsToSave: names.map { note($0) }, recordIDsToDelete: [CKRecord.ID(recordName: "gone")])
        operation.database = database
        operation.perRecordSaveBlock = { recordID, result in log.append("save \(recordID.recordName) \(result.failureCode.map { "\($0)" } ?? "ok")") }
        operation.perRecordDeleteBlock = { recordID, result in log.append("delete \(recordID.recordName) \(result.failureCode.map { "\($0)" } ?? "ok")") }
        operation.modifyRecordsResultBlock = { result in
            log.append("final \(result.failureCode.map { "\($0)" } ?? "ok")")
            done.fulfill()
        }
        return operation
    }

    // MARK: - Evaluation

    func testASatisfiedConditionLetsTheOperationRunAfterItWasEvaluated() {
        let log = EventLog()
        let condition = ScriptedCondition("ok", log: log)
        let finished = expectation(description: "finished")
        let operation = RecordingOperation("work", log: log)
        queue.addOperation(operation, conditions: [condition], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["evaluate ok", "run work"])
        XCTAssertEqual(condition.evaluationCount, 1)
    }

    func testConditionsAreEvaluatedOnlyAfterEveryDependencyHasFinished() {
        let log = EventLog()
        let dependency = RecordingOperation("dependency", log: log)
        let operation = RecordingOperation("work", log: log)
        operation.addDependency(dependency)
        let finished = expectation(description: "finished")
        queue.addOperation(operation, conditions: [ScriptedCondition("ok", log: log)], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        XCTAssertTrue(log.all.isEmpty, "nothing runs while the dependency waits")
        queue.addOperation(dependency)
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["run dependency", "evaluate ok", "run work"])
    }

    func testTheEvaluatorIsARealDependencyAndReadinessIsNotOverridden() {
        let gateEntered = expectation(description: "evaluating")
        let gate = GateCondition(entered: gateEntered)
        let operation = RecordingOperation("work")
        let finished = expectation(description: "finished")
        queue.addOperation(operation, conditions: [gate], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [gateEntered], timeout: 10)
        XCTAssertEqual(operation.dependencies.count, 1, "the hidden evaluator")
        XCTAssertFalse(operation.isReady)
        XCTAssertFalse(operation.dependencies[0].isFinished)
        gate.open()
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(operation.runCount, 1)
    }

    func testOperationsThatWaitForEachOtherFailNamingTheCycleInsteadOfHanging() {
        let fetch = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a")])
        fetch.name = "fetch"
        fetch.database = database
        let save = RecordingOperation("save")
        let merge = RecordingOperation("merge")
        fetch.addDependency(merge)
        merge.addDependency(save)
        save.addDependency(fetch)
        let reported = Captured<CKError?>(nil)
        fetch.fetchRecordsResultBlock = { result in
            if case .failure(let error as CKError) = result { reported.value = error }
        }
        let finished = expectation(description: "every operation finished")
        finished.expectedFulfillmentCount = 3
        let observer = CountingObserver(finished: finished)
        queue.addOperation(fetch, observers: [observer])
        queue.addOperation(merge, observers: [observer])
        queue.addOperation(save, observers: [observer])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(reported.value?.code, .operationCancelled)
        let cycle = reported.value?.userInfo[NSUnderlyingErrorKey] as? OperationConditionError
        XCTAssertEqual(cycle?.reason, "\"fetch\" waits for \"merge\" waits for \"save\" waits for \"fetch\": it would never run")
        XCTAssertEqual(server.requestCount, 0)
        XCTAssertEqual([merge.runCount, save.runCount], [1, 1], "the rest of the cycle runs once it is broken")
    }

    func testALongChainOfOperationsAddedBeforeAnyFinishesRunsInOrder() {
        // Looking for a cycle as each one is added must neither exhaust a thread's stack nor
        // grow with the length of the chain behind it.
        let count = 2_000
        let gate = StubbornOperation("gate")
        let log = EventLog()
        let finished = expectation(description: "chain finished")
        finished.expectedFulfillmentCount = count
        let observer = CountingObserver(finished: finished)
        var previous: Operation = gate
        var chain: [RecordingOperation] = []
        for index in 0..<count {
            let link = RecordingOperation("link \(index)") { _ in log.append("\(index)") }
            link.addDependency(previous)
            queue.addOperation(link, observers: [observer])
            chain.append(link)
            previous = link
        }
        queue.addOperation(gate)
        gate.release()
        wait(for: [finished], timeout: 60)
        XCTAssertEqual(log.all, (0..<count).map(String.init))
    }

    func testAllConditionsAreEvaluatedAndTheFirstFailureInOrderIsReported() {
        let first = ScriptedCondition("first", result: .failed(SessionError(reason: "first")))
        let second = ScriptedCondition("second", result: .failed(SessionError(reason: "second")))
        let operation = DelayOperation(interval: 0, clock: clock)
        let finished = expectation(description: "finished")
        queue.addOperation(operation, conditions: [ScriptedCondition("ok"), first, second], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(first.evaluationCount, 1)
        XCTAssertEqual(second.evaluationCount, 1)
        XCTAssertEqual(operation.reportedErrors.compactMap { $0 as? SessionError }, [SessionError(reason: "first")])
    }

    // MARK: - Failure, by kind of operation

    func testAFailedConditionReachesACloudKitOperationsFinalAndPerItemBlocksWithoutARequest() {
        server.signOut(database.container)
        let log = EventLog()
        let done = expectation(description: "final")
        let observed = expectation(description: "observer heard the finish")
        let observer = CountingObserver(finished: observed)
        let operation = recordingModify(["a", "b"], log: log, done: done)
        queue.addOperation(operation, conditions: [AccountAvailable()], observers: [observer])
        wait(for: [done, observed], timeout: 10, enforceOrder: true)
        XCTAssertEqual(log.all, ["save a notAuthenticated", "save b notAuthenticated", "delete gone notAuthenticated", "final notAuthenticated"])
        XCTAssertEqual(server.requestCount, 0, "a stopped operation sends nothing")
        XCTAssertFalse(operation.isCancelled, "stopped by a condition, not cancelled")
        XCTAssertEqual(observer.counts(for: operation).starts, 0, "it never started its work")
        XCTAssertEqual(observer.counts(for: operation).finishes, 1)
        XCTAssertEqual((operation.reportedErrors.first as? CKError)?.code, .notAuthenticated)
    }

    func testTheAccountConditionSaysWhyInItsMessage() {
        server.signOut(database.container)
        let result = Captured<Result<Void, any Error>?>(nil)
        let done = expectation(description: "final")
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a")])
        operation.database = database
        operation.fetchRecordsResultBlock = { outcome in
            result.value = outcome
            done.fulfill()
        }
        queue.addOperation(operation, conditions: [AccountAvailable()])
        wait(for: [done], timeout: 10)
        guard case .failure(let error as CKError)? = result.value else { return XCTFail("expected a CKError") }
        XCTAssertEqual(error.code, .notAuthenticated)
        XCTAssertTrue(error.localizedDescription.contains("no iCloud account"), error.localizedDescription)
        XCTAssertTrue(error.localizedDescription.contains("AccountAvailable"), error.localizedDescription)
    }

    func testTheAccountConditionChecksTheContainerOfTheCloudKitOperationsDatabase() {
        // The app's own container has no account signed in; CKContainer.default() has one.
        let own = server.container(identifier: "iCloud.com.example.own", account: nil)
        let code = Captured<CKError.Code?>(nil)
        let done = expectation(description: "final")
        let operation = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        operation.database = own.privateCloudDatabase
        operation.fetchRecordZonesResultBlock = { result in
            code.value = result.failureCode
            done.fulfill()
        }
        queue.addOperation(operation, conditions: [AccountAvailable()])
        wait(for: [done], timeout: 10)
        XCTAssertEqual(code.value, .notAuthenticated)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testTheAccountConditionRefusesToGuessTheContainerOfAnOperationThatHasNone() {
        let child = RecordingOperation("child")
        let group = GroupOperation(operations: [child])
        group.name = "sync"
        let finished = expectation(description: "finished")
        let observer = CountingObserver(finished: finished)
        queue.addOperation(group, conditions: [AccountAvailable()], observers: [observer])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(child.runCount, 0, "the group did not run on a guessed account")
        guard let error = group.reportedErrors.first as? OperationConditionError else {
            return XCTFail("expected the condition's refusal, got \(group.reportedErrors)")
        }
        XCTAssertEqual(error.conditionName, "AccountAvailable")
        XCTAssertTrue(error.reason.contains("\"sync\""), error.reason)
        XCTAssertTrue(error.reason.contains("AccountAvailable(container:)"), error.reason)
    }

    func testTheAccountConditionChecksTheContainerItWasGivenForAnyOperation() {
        let own = server.container(identifier: "iCloud.com.example.own", account: nil)
        let child = RecordingOperation("child")
        let group = GroupOperation(operations: [child])
        let finished = expectation(description: "finished")
        queue.addOperation(group, conditions: [AccountAvailable(container: own)], observers: [CountingObserver(finished: finished)])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(child.runCount, 0)
        XCTAssertEqual((group.reportedErrors.first as? CKError)?.code, .notAuthenticated)
    }

    func testATemporarilyUnavailableAccountFailsWithAccountTemporarilyUnavailable() {
        server.setAccountStatus(.temporarilyUnavailable, for: database.container)
        let code = Captured<CKError.Code?>(nil)
        let done = expectation(description: "final")
        let operation = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        operation.database = database
        operation.fetchRecordZonesResultBlock = { result in
            code.value = result.failureCode
            done.fulfill()
        }
        queue.addOperation(operation, conditions: [AccountAvailable()])
        wait(for: [done], timeout: 10)
        XCTAssertEqual(code.value, .accountTemporarilyUnavailable)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testARestrictedAccountFailsWithNotAuthenticatedAndSaysRestricted() async {
        server.setAccountStatus(.restricted, for: database.container)
        let result = await AccountAvailable(container: database.container).evaluate(for: BlockOperation {})
        guard case .failed(let error as CKError) = result else { return XCTFail("expected a CKError") }
        XCTAssertEqual(error.code, .notAuthenticated)
        XCTAssertTrue(error.localizedDescription.contains("restricted"), error.localizedDescription)
    }

    func testAnAvailableAccountLetsTheCloudKitOperationSendItsRequest() {
        let log = EventLog()
        let done = expectation(description: "final")
        let operation = recordingModify(["a"], log: log, done: done)
        queue.addOperation(operation, conditions: [AccountAvailable()])
        wait(for: [done], timeout: 10)
        XCTAssertEqual(log.all, ["save a ok", "delete gone ok", "final ok"])
        XCTAssertEqual(server.requestCount, 1)
    }

    func testAnyOtherErrorReachesACloudKitOperationInsideOperationCancelled() {
        let result = Captured<Result<Void, any Error>?>(nil)
        let done = expectation(description: "final")
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a")])
        operation.database = database
        operation.fetchRecordsResultBlock = { outcome in
            result.value = outcome
            done.fulfill()
        }
        queue.addOperation(operation, conditions: [ScriptedCondition("custom", result: .failed(SessionError(reason: "nope")))])
        wait(for: [done], timeout: 10)
        guard case .failure(let error as CKError)? = result.value else { return XCTFail("expected a CKError") }
        XCTAssertEqual(error.code, .operationCancelled)
        XCTAssertEqual(error.userInfo[NSUnderlyingErrorKey] as? SessionError, SessionError(reason: "nope"))
        XCTAssertTrue(error.localizedDescription.contains("did not run"), error.localizedDescription)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testAPlainOperationWhoseConditionFailsIsCancelledAndNeverRuns() {
        let operation = RecordingOperation("plain")
        let finished = expectation(description: "finished")
        let observer = CountingObserver(finished: finished)
        queue.addOperation(operation, conditions: [ScriptedCondition(result: .failed(SessionError(reason: "no")))], observers: [observer])
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(operation.isCancelled)
        XCTAssertTrue(operation.isFinished)
        XCTAssertEqual(operation.runCount, 0)
        XCTAssertEqual(observer.counts(for: operation).starts, 0)
        XCTAssertEqual(observer.counts(for: operation).finishes, 1)
        XCTAssertEqual(observer.counts(for: operation).errors, [], "a plain operation reports no errors")
    }

    func testADelayOperationWhoseConditionFailsFinishesAtOnceWithTheError() {
        let operation = DelayOperation(interval: 100, clock: clock)
        let finished = expectation(description: "finished")
        queue.addOperation(operation, conditions: [ScriptedCondition(result: .failed(SessionError(reason: "no")))], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(operation.reportedErrors.compactMap { $0 as? SessionError }, [SessionError(reason: "no")])
        XCTAssertFalse(operation.isCancelled)
    }

    // MARK: - Generated dependencies

    func testAGeneratedDependencyGoesOnTheSameQueueAndRunsFirst() {
        let log = EventLog()
        let otherQueue = OperationQueue()
        let onQueue = Captured(false)
        let condition = ScriptedCondition("needs setup", log: log, dependency: {
            GeneratedDependency(RecordingOperation("setup", log: log) { _ in onQueue.value = OperationQueue.current === otherQueue })
        })
        let finished = expectation(description: "finished")
        let operation = RecordingOperation("work", log: log)
        otherQueue.addOperation(operation, conditions: [condition], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(log.all, ["run setup", "evaluate needs setup", "run work"])
        XCTAssertTrue(onQueue.value)
        XCTAssertTrue(operation.dependencies.contains { $0.name == "setup" }, "the generated dependency is a dependency of the operation")
    }

    func testAThreeDeepChainOfGeneratedDependenciesRunsInOrder() {
        // The talk: "save favourite" needs "is a developer", which needs "logged in".
        let log = EventLog()
        let session = Session()
        let done = expectation(description: "final")
        let save = recordingModify(["favourite"], log: log, done: done)
        queue.addOperation(save, conditions: [IsDeveloper(session: session, log: log, loginSucceeds: true)])
        wait(for: [done], timeout: 10)
        XCTAssertEqual(log.all, ["run login", "run check developer", "save favourite ok", "delete gone ok", "final ok"])
        XCTAssertEqual(server.requestCount, 1)
    }

    func testAFailureDeepInTheChainStopsEveryOperationAfterIt() {
        let log = EventLog()
        let session = Session()
        let done = expectation(description: "final")
        let save = recordingModify(["favourite"], log: log, done: done)
        queue.addOperation(save, conditions: [IsDeveloper(session: session, log: log, loginSucceeds: false)])
        wait(for: [done], timeout: 10)
        XCTAssertEqual(log.all, ["run login", "save favourite operationCancelled", "delete gone operationCancelled", "final operationCancelled"],
                       "the developer check is cancelled by its failed condition; the save is stopped by its own")
        XCTAssertEqual(server.requestCount, 0)
        queue.waitUntilAllOperationsAreFinished()
        let check = save.dependencies.first { $0.name == "check developer" }
        XCTAssertEqual(check?.isCancelled, true)
        guard let error = save.reportedErrors.first as? CKError else { return XCTFail("expected a CKError") }
        XCTAssertEqual(error.userInfo[NSUnderlyingErrorKey] as? SessionError, SessionError(reason: "not a developer"))
    }

    // MARK: - Dependency conditions

    func testNoCancelledDependenciesFailsWhenADependencyWasCancelled() {
        let dependency = RecordingOperation("fetch")
        dependency.cancel()
        let operation = DelayOperation(interval: 0, clock: clock)
        operation.addDependency(dependency)
        let finished = expectation(description: "finished")
        queue.addOperation(dependency)
        queue.addOperation(operation, conditions: [NoCancelledDependencies()], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        guard let error = operation.reportedErrors.first as? OperationConditionError else { return XCTFail("expected the condition's error") }
        XCTAssertEqual(error.conditionName, "NoCancelledDependencies")
        XCTAssertTrue(error.reason.contains("\"fetch\""), error.reason)
    }

    func testNoCancelledDependenciesPassesWhenNoneWasCancelled() {
        let dependency = RecordingOperation("fetch")
        let operation = RecordingOperation("work")
        operation.addDependency(dependency)
        let finished = expectation(description: "finished")
        queue.addOperation(dependency)
        queue.addOperation(operation, conditions: [NoCancelledDependencies()], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(operation.runCount, 1)
    }

    func testNoFailedDependenciesFailsWhenACloudKitDependencyReportedAnError() {
        server.failNextRequests(1, with: .serviceUnavailable, retryAfter: 1)
        let fetch = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a")])
        fetch.database = database
        let operation = RecordingOperation("work")
        operation.addDependency(fetch)
        let finished = expectation(description: "finished")
        queue.addOperation(fetch)
        queue.addOperation(operation, conditions: [NoFailedDependencies()], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(operation.isCancelled, "a plain operation is cancelled")
        XCTAssertEqual(operation.runCount, 0)
        XCTAssertEqual((fetch.reportedErrors.first as? CKError)?.code, .serviceUnavailable)
    }

    func testAModifyThatEndsInAPartialFailureCountsAsAFailedDependency() async throws {
        _ = try await database.save(note("a"))
        let save = CKModifyRecordsOperation(recordsToSave: [note("a"), note("b")])   // a stale copy of "a"
        save.isAtomic = false
        save.database = database
        let operation = RecordingOperation("work")
        operation.addDependency(save)
        let finished = expectation(description: "finished")
        queue.addOperation(save)
        queue.addOperation(operation, conditions: [NoFailedDependencies()], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        await fulfillment(of: [finished], timeout: 10)
        XCTAssertEqual((save.reportedErrors.first as? CKError)?.code, .partialFailure)
        XCTAssertEqual(operation.runCount, 0)
    }

    func testEveryOperationWithPerItemResultsReportsItsPartialFailure() {
        let fetchRecords = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "missing")])
        let fetchZones = CKFetchRecordZonesOperation(recordZoneIDs: [CKRecordZone.ID(zoneName: "missing")])
        let fetchSubscriptions = CKFetchSubscriptionsOperation(subscriptionIDs: ["missing"])
        let modifyZones = CKModifyRecordZonesOperation(recordZonesToSave: nil, recordZoneIDsToDelete: [CKRecordZone.ID(zoneName: "missing")])
        let modifySubscriptions = CKModifySubscriptionsOperation(subscriptionsToSave: nil, subscriptionIDsToDelete: ["missing"])
        let operations: [CKDatabaseOperation] = [fetchRecords, fetchZones, fetchSubscriptions, modifyZones, modifySubscriptions]
        for operation in operations {
            operation.database = database
            queue.addOperation(operation)
        }
        queue.waitUntilAllOperationsAreFinished()
        for operation in operations {
            XCTAssertEqual((operation.reportedErrors.first as? CKError)?.code, .partialFailure, "\(type(of: operation))")
        }
    }

    func testNoFailedDependenciesCarriesTheDependenciesErrors() {
        let failing = DelayOperation(interval: 0, clock: clock)
        let operation = DelayOperation(interval: 0, clock: clock)
        operation.addDependency(failing)
        let finished = expectation(description: "finished")
        queue.addOperation(failing, conditions: [ScriptedCondition(result: .failed(SessionError(reason: "first")))])
        queue.addOperation(operation, conditions: [NoFailedDependencies()], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        guard let error = operation.reportedErrors.first as? OperationConditionError else { return XCTFail("expected the condition's error") }
        XCTAssertEqual(error.conditionName, "NoFailedDependencies")
        XCTAssertEqual(error.underlyingErrors.compactMap { $0 as? SessionError }, [SessionError(reason: "first")])
    }

    func testNoFailedDependenciesPassesAfterASuccessfulCloudKitDependency() {
        let save = CKModifyRecordsOperation(recordsToSave: [note("a")])
        save.database = database
        let operation = RecordingOperation("work")
        operation.addDependency(save)
        let finished = expectation(description: "finished")
        queue.addOperation(save)
        queue.addOperation(operation, conditions: [NoFailedDependencies()], observers: [BlockObserver(finishHandler: { _, _ in finished.fulfill() })])
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(operation.runCount, 1)
        XCTAssertTrue(save.reportedErrors.isEmpty)
    }

    // MARK: - Misuse

    func testAddingAnOperationTwiceIsRefusedInsteadOfCrashing() {
        let operation = RecordingOperation("once")
        let finished = expectation(description: "finished")
        finished.assertForOverFulfill = true
        let observer = BlockObserver(finishHandler: { _, _ in finished.fulfill() })
        queue.isSuspended = true
        queue.addOperation(operation, observers: [observer])
        queue.addOperation(operation, observers: [observer])
        XCTAssertEqual(queue.operationCount, 1)
        queue.isSuspended = false
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(operation.runCount, 1)
    }
}
