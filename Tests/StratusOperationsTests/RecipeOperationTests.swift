@_spi(Testing) import Stratus
import StratusToolkit
import Synchronization
import XCTest
import _StratusTestSupport

/// The contract every recipe operation keeps on any `OperationQueue`: finishing exactly once,
/// after its final block; cancelled before it starts, it sends nothing and finishes at once.
final class RecipeOperationTests: RecipeTestCase {
    private func recipes() -> [(String, RecipeOperation, (@escaping (Result<Void, any Error>) -> Void) -> Void)] {
        let retry = RetryModifyRecordsOperation(database: database, recordsToSave: [note("r")])
        let batch = BatchModifyOperation(database: database, recordsToSave: [note("b")])
        let conflict = ConflictResolvingSaveOperation(database: database, recordsToSave: [note("c")])
        let query = QueryAllOperation(database: database, query: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)))
        return [
            ("retry", retry, { block in retry.modifyRecordsResultBlock = block }),
            ("batch", batch, { block in batch.modifyRecordsResultBlock = block }),
            ("conflict", conflict, { block in conflict.modifyRecordsResultBlock = block }),
            ("query", query, { block in query.queryResultBlock = block }),
        ]
    }

    func testCancelledBeforeStartingEachRecipeSendsNothingAndFinishesAtOnceWithCancelled() async throws {
        let start = server.requestCount
        for (name, operation, setFinal) in recipes() {
            let outcome = Captured<Result<Void, any Error>?>(nil)
            let sawFinishedInFinalBlock = Captured<Bool?>(nil)
            setFinal { [unowned operation] result in
                outcome.value = result
                sawFinishedInFinalBlock.value = operation.isFinished
            }
            operation.cancel()
            let queue = OperationQueue()
            queue.addOperation(operation)
            while !operation.isFinished { await Task.yield() }
            XCTAssertEqual(outcome.value?.failureCode, .operationCancelled, name)
            XCTAssertEqual(sawFinishedInFinalBlock.value, false, "\(name): the final block runs before isFinished")
        }
        XCTAssertEqual(server.requestCount, start)
        XCTAssertTrue(server.recordedWrites.isEmpty)
    }

    func testACancelledModifyRecipeReportsEveryItemCancelled() async throws {
        let operation = BatchModifyOperation(database: database, recordsToSave: [note("a"), note("b")], recordIDsToDelete: [CKRecord.ID(recordName: "c")])
        let log = EventLog()
        operation.perRecordSaveBlock = { recordID, result in log.append("\(recordID.recordName) \(result.failureCode.map { "\($0.rawValue)" } ?? "ok")") }
        operation.perRecordDeleteBlock = { recordID, result in log.append("\(recordID.recordName) \(result.failureCode.map { "\($0.rawValue)" } ?? "ok")") }
        operation.modifyRecordsResultBlock = { result in log.append("final \(result.failureCode.map { "\($0.rawValue)" } ?? "ok")") }
        operation.cancel()
        operation.start()
        XCTAssertTrue(operation.isFinished)
        let cancelled = CKError.Code.operationCancelled.rawValue
        XCTAssertEqual(log.all, ["a \(cancelled)", "b \(cancelled)", "c \(cancelled)", "final \(cancelled)"])
    }

    func testEachRecipeFinishesOnceAndADependentSeesItsResults() async throws {
        for (name, operation, setFinal) in recipes() {
            let calls = Captured(0)
            setFinal { _ in calls.value += 1 }
            let dependent = BlockOperation {}
            let seenByDependent = Captured<Int?>(nil)
            dependent.addExecutionBlock { seenByDependent.value = calls.value }
            dependent.addDependency(operation)
            let queue = OperationQueue()
            queue.addOperation(operation)
            queue.addOperation(dependent)
            while !dependent.isFinished { await Task.yield() }
            XCTAssertEqual(seenByDependent.value, 1, name)
            XCTAssertTrue(operation.isFinished, name)
            XCTAssertFalse(operation.isExecuting, name)
        }
    }

    func testBlocksAreReleasedOnceTheRecipeFinishes() async throws {
        final class Witness: Sendable {}
        weak var witness: Witness?
        let operation = RetryModifyRecordsOperation(database: database, recordsToSave: [note("a")])
        do {
            let strong = Witness()
            witness = strong
            operation.perRecordSaveBlock = { _, _ in _ = strong }
        }
        let done = expectation(description: "finished")
        operation.completionBlock = { done.fulfill() }
        OperationQueue().addOperation(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertNil(witness, "a block and what it captures do not outlive the operation's run")
        XCTAssertNil(operation.perRecordSaveBlock)
    }

    func testAFactoryOrMergeThatCapturesItsOperationDoesNotKeepItAlive() async throws {
        weak var weakRetry: RetryOperation?
        weak var weakSave: ConflictResolvingSaveOperation?
        do {
            let database = self.database!
            let retry = RetryOperation(database: database) { _ in CKFetchRecordZonesOperation.fetchAllRecordZonesOperation() }
            let save = ConflictResolvingSaveOperation(database: database, recordsToSave: [note("a")])
            let retryBox = UncheckedSendable(retry)
            let saveBox = UncheckedSendable(save)
            save.merge = { server, _, _ in
                _ = saveBox.value
                return server
            }
            save.makeOperation = { saves, deletes in
                _ = saveBox.value
                _ = retryBox.value
                return CKModifyRecordsOperation(recordsToSave: saves, recordIDsToDelete: deletes)
            }
            weakRetry = retry
            weakSave = save
            let done = expectation(description: "both finished")
            done.expectedFulfillmentCount = 2
            retry.retryResultBlock = { _ in done.fulfill() }
            save.modifyRecordsResultBlock = { _ in done.fulfill() }
            let queue = OperationQueue()
            queue.addOperation(retry)
            queue.addOperation(save)
            await fulfillment(of: [done], timeout: 10)
            while !(retry.isFinished && save.isFinished) { await Task.yield() }
        }
        for _ in 0..<100 where weakRetry != nil || weakSave != nil { await Task.yield() }
        XCTAssertNil(weakRetry)
        XCTAssertNil(weakSave)
    }

    func testRecipesCancelledAtRandomMomentsEachFinishExactlyOnce() async throws {
        var generator = SeededGenerator(seed: 11)
        let count = 60 * stressScale
        let finals = Tally(count)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 8
        server.failNextRequests(count / 3, with: .zoneBusy, retryAfter: 1)
        var operations: [RecipeOperation] = []
        for index in 0..<count {
            let operation: RecipeOperation
            switch index % 3 {
            case 0:
                let retry = RetryModifyRecordsOperation(database: database, recordsToSave: [note("s\(index)")], policy: drivingPolicy())
                retry.modifyRecordsResultBlock = { _ in finals.bump(index) }
                operation = retry
            case 1:
                let batch = BatchModifyOperation(database: database, recordsToSave: [note("b\(index)")], retry: drivingPolicy())
                batch.modifyRecordsResultBlock = { _ in finals.bump(index) }
                operation = batch
            default:
                let query = QueryAllOperation(database: database, query: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)), retry: drivingPolicy())
                query.queryResultBlock = { _ in finals.bump(index) }
                operation = query
            }
            if Bool.random(using: &generator) { operation.cancel() }
            operations.append(operation)
            queue.addOperation(operation)
            if Int.random(in: 0..<4, using: &generator) == 0 { operations.randomElement(using: &generator)?.cancel() }
        }
        for operation in operations.shuffled(using: &generator).prefix(count / 4) { operation.cancel() }
        while !operations.allSatisfy(\.isFinished) { await Task.yield() }
        XCTAssertEqual(finals.counts, Array(repeating: 1, count: count), "every recipe calls its final block exactly once")
        let saved = server.recordedWrites.filter { !$0.isDeletion }
        XCTAssertEqual(saved.count, Set(saved.map(\.recordID.recordName)).count, "no record is written twice")
    }

    func testARecipeCancelledWhileItsDependencyIsUnfinishedFinishesAtOnceWithCancelled() async throws {
        let blocker = BlockOperation {}
        let operation = BatchModifyOperation(database: database, recordsToSave: [note("a")])
        let outcome = Captured<Result<Void, any Error>?>(nil)
        operation.modifyRecordsResultBlock = { outcome.value = $0 }
        operation.addDependency(blocker)
        let queue = OperationQueue()
        queue.addOperation(operation)
        operation.cancel()
        while !operation.isFinished { await Task.yield() }
        XCTAssertEqual(outcome.value?.failureCode, .operationCancelled)
        XCTAssertFalse(blocker.isFinished, "the dependency is left alone")
        XCTAssertTrue(server.recordedWrites.isEmpty)
        queue.addOperation(blocker)
    }

    func testStartingTwiceIsIgnored() async throws {
        let operation = QueryAllOperation(database: database, query: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)))
        let calls = Captured(0)
        operation.queryResultBlock = { _ in calls.value += 1 }
        operation.start()
        operation.start()
        while !operation.isFinished { await Task.yield() }
        XCTAssertEqual(calls.value, 1)
    }
}

/// Counts per index, bumped from any thread.
private final class Tally: Sendable {
    private let storage: Mutex<[Int]>

    init(_ count: Int) {
        storage = Mutex(Array(repeating: 0, count: count))
    }

    func bump(_ index: Int) {
        storage.withLock { $0[index] += 1 }
    }

    var counts: [Int] { storage.withLock { $0 } }
}
