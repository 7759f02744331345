import Stratus
import Synchronization
import XCTest

/// Operations on queues: dependencies, priorities, adding twice, and what each costs.
final class SchedulingTests: OperationTestCase {
    private func fetch(_ name: String, log: EventLog, done: XCTestExpectation? = nil) -> CKFetchRecordsOperation {
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: name)])
        operation.database = database
        operation.fetchRecordsResultBlock = { _ in
            log.append(name)
            done?.fulfill()
        }
        return operation
    }

    func testDependenciesHoldWithinAndAcrossQueues() async throws {
        try await seed([note("a"), note("b"), note("c")])
        let log = EventLog()
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = 3
        let first = OperationQueue()
        let second = OperationQueue()
        let a = fetch("a", log: log, done: done)
        let b = fetch("b", log: log, done: done)
        let c = fetch("c", log: log, done: done)
        c.addDependency(b)
        b.addDependency(a)
        second.addOperation(c)
        first.addOperation(b)
        second.addOperation(a)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["a", "b", "c"])
    }

    func testADependencyCycleRunsNothingUntilItIsBroken() {
        let log = EventLog()
        let queue = OperationQueue()
        let a = fetch("a", log: log)
        let b = fetch("b", log: log)
        let sentinelDone = expectation(description: "sentinel")
        let sentinel = fetch("c", log: log, done: sentinelDone)
        a.addDependency(b)
        b.addDependency(a)
        queue.addOperations([a, b, sentinel], waitUntilFinished: false)
        wait(for: [sentinelDone], timeout: 10)
        XCTAssertEqual(log.all, ["c"])
        XCTAssertFalse(a.isReady)
        XCTAssertFalse(b.isReady)
        XCTAssertFalse(a.isExecuting || a.isFinished || b.isExecuting || b.isFinished)

        let bothDone = expectation(description: "a and b")
        bothDone.expectedFulfillmentCount = 2
        bothDone.assertForOverFulfill = true
        a.completionBlock = { bothDone.fulfill() }
        b.completionBlock = { bothDone.fulfill() }
        a.removeDependency(b)
        wait(for: [bothDone], timeout: 10)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(log.all, ["c", "a", "b"])
        XCTAssertTrue(a.isFinished && b.isFinished)
    }

    func testPriorityOrdersReadyOperationsOnASuspendedSerialQueue() {
        let log = EventLog()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
        let priorities: [(String, Operation.QueuePriority)] = [("low", .low), ("veryHigh", .veryHigh), ("normal", .normal), ("veryLow", .veryLow), ("high", .high)]
        for (name, priority) in priorities {
            let operation = fetch(name, log: log)
            operation.queuePriority = priority
            queue.addOperation(operation)
        }
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(log.all, ["veryHigh", "high", "normal", "low", "veryLow"])
    }

    func testAddingAFinishedOrQueuedOperationAgainIsIgnored() async throws {
        let calls = Atomic<Int>(0)
        let done = expectation(description: "final block")
        let operation = CKModifyRecordsOperation(recordsToSave: [note("a")])
        operation.modifyRecordsResultBlock = { _ in
            calls.add(1, ordering: .relaxed)
            done.fulfill()
        }
        database.add(operation)
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        let finished = expectation(description: "finished")
        Task.detached {
            while !operation.isFinished { await Task.yield() }
            finished.fulfill()
        }
        await fulfillment(of: [finished], timeout: 10)
        database.add(operation)
        database.container.add(operation)
        XCTAssertEqual(calls.load(ordering: .relaxed), 1)
        XCTAssertEqual(server.requestCount, 1)
    }

    func testOneHundredSingleSavesAreOneHundredRequestsAndOneModifyIsOne() async throws {
        for index in 0..<100 {
            _ = try await database.save(note("single-\(index)"))
        }
        XCTAssertEqual(server.requestCount, 100)
        let done = expectation(description: "batch")
        let batch = CKModifyRecordsOperation(recordsToSave: (0..<100).map { note("batch-\($0)") })
        batch.modifyRecordsResultBlock = { result in
            XCTAssertNil(result.failureCode)
            done.fulfill()
        }
        database.add(batch)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(server.requestCount, 101)
    }

    func testAnOperationWithNothingToDoSendsNoRequest() async {
        let done = expectation(description: "final blocks")
        done.expectedFulfillmentCount = 4
        let fetch = CKFetchRecordsOperation(recordIDs: [])
        fetch.fetchRecordsResultBlock = { result in XCTAssertNil(result.failureCode); done.fulfill() }
        let modify = CKModifyRecordsOperation()
        modify.modifyRecordsResultBlock = { _ in done.fulfill() }
        let zones = CKFetchRecordZonesOperation(recordZoneIDs: [])
        zones.fetchRecordZonesResultBlock = { _ in done.fulfill() }
        let rejected = CKModifyRecordsOperation(recordsToSave: [CKRecord(recordType: "_bad")])
        rejected.modifyRecordsResultBlock = { result in XCTAssertEqual(result.failureCode, .partialFailure); done.fulfill() }
        [fetch, modify, zones, rejected].forEach { database.add($0) }
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(server.requestCount, 0)
    }

    func testOperationsDefaultToDefaultQualityOfServiceAndConvenienceCallsToUserInitiated() async throws {
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "x")])
        XCTAssertEqual(operation.qualityOfService, .default)
        XCTAssertEqual(operation.configuration.qualityOfService, .default)
        let done = expectation(description: "done")
        operation.fetchRecordsResultBlock = { _ in done.fulfill() }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        _ = try? await database.record(for: CKRecord.ID(recordName: "x"))
        XCTAssertEqual(server.requestLog.map(\.context.qualityOfService), [.default, .userInitiated])
        XCTAssertEqual(server.requestLog.first?.context.operationID, operation.operationID)
    }

    func testOperationQualityOfServiceAndConfigurationAreOneValue() {
        let operation = CKModifyRecordsOperation()
        operation.qualityOfService = .utility
        XCTAssertEqual(operation.configuration.qualityOfService, .utility)
        operation.configuration.qualityOfService = .background
        XCTAssertEqual(operation.qualityOfService, .background)
    }

    func testGroupMergeRuleOperationThenGroupThenDefault() {
        let group = CKOperationGroup()
        group.defaultConfiguration.qualityOfService = .utility
        group.defaultConfiguration.timeoutIntervalForRequest = 10
        let operation = CKModifyRecordsOperation()
        operation.group = group
        XCTAssertEqual(operation.qualityOfService, .utility, "the group's set value")
        operation.configuration.qualityOfService = .userInteractive
        XCTAssertEqual(operation.qualityOfService, .userInteractive, "the operation's set value wins")
        operation.configuration = CKOperation.Configuration()
        XCTAssertEqual(operation.qualityOfService, .utility, "a fresh configuration sets nothing")
        let ungrouped = CKModifyRecordsOperation()
        XCTAssertEqual(ungrouped.qualityOfService, .default)
        XCTAssertEqual(ungrouped.configuration.timeoutIntervalForRequest, 60)
        XCTAssertTrue(ungrouped.configuration.allowsCellularAccess)
        XCTAssertFalse(ungrouped.configuration.isLongLived)
        XCTAssertEqual(ungrouped.configuration.timeoutIntervalForResource, 7 * 24 * 3600)
        ungrouped.qualityOfService = .userInitiated
        XCTAssertEqual(ungrouped.configuration.timeoutIntervalForResource, -1)
    }

    func testGroupQualityOfServiceReachesTheServer() async {
        let group = CKOperationGroup()
        group.defaultConfiguration.qualityOfService = .background
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "x")])
        operation.group = group
        let done = expectation(description: "done")
        operation.fetchRecordsResultBlock = { _ in done.fulfill() }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(server.requestLog.last?.context.qualityOfService, .background)
    }

    func testDeprecatedSpellingsReadAndWriteTheConfiguration() {
        let operation = CKModifyRecordsOperation()
        let legacy: any LegacyConfigurationSpellings = operation
        legacy.container = database.container
        XCTAssertTrue(operation.configuration.container === database.container)
        legacy.allowsCellularAccess = false
        XCTAssertFalse(operation.configuration.allowsCellularAccess)
        legacy.isLongLived = true
        XCTAssertTrue(operation.configuration.isLongLived)
        legacy.timeoutIntervalForRequest = 5
        XCTAssertEqual(operation.configuration.timeoutIntervalForRequest, 5)
        legacy.timeoutIntervalForResource = 50
        XCTAssertEqual(operation.configuration.timeoutIntervalForResource, 50)
        XCTAssertFalse(legacy.usesBackgroundSession)
        legacy.usesBackgroundSession = true
        XCTAssertEqual(operation.qualityOfService, .background)
        legacy.usesBackgroundSession = false
        XCTAssertEqual(operation.qualityOfService, .default)
    }

    func testDatabaseOperationWithoutADatabaseUsesTheConfigurationsContainer() async throws {
        try await seed([note("a")])
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a")])
        operation.configuration.container = database.container
        let done = expectation(description: "done")
        let fetched = Mutex(false)
        operation.perRecordResultBlock = { _, result in fetched.withLock { $0 = (try? result.get()) != nil } }
        operation.fetchRecordsResultBlock = { _ in done.fulfill() }
        let queue = OperationQueue()
        queue.addOperation(operation)
        await fulfillment(of: [done], timeout: 10)
        withExtendedLifetime(queue) {}
        XCTAssertTrue(fetched.withLock { $0 })
        XCTAssertNil(operation.database)
    }

    func testSettingTheDatabaseSetsTheConfigurationsContainer() {
        let operation = CKFetchRecordsOperation()
        operation.database = database
        XCTAssertTrue(operation.configuration.container === database.container)
        XCTAssertFalse(operation.operationID.isEmpty)
        XCTAssertNotEqual(operation.operationID, CKFetchRecordsOperation().operationID)
    }
}
