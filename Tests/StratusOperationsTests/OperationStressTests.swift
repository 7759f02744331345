import Stratus
import Synchronization
import XCTest
import _StratusTestSupport

/// Many operations, random dependencies and cancellations, several queues: each operation
/// finishes exactly once and calls its final block exactly once.
final class OperationStressTests: OperationTestCase {
    func testThousandsOfOperationsWithRandomDependenciesAndCancellationsEachFinishOnce() {
        let count = 1_000 * stressScale
        var generator = SeededGenerator(seed: 2015)
        let queues = (0..<3).map { index -> OperationQueue in
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = index + 1
            return queue
        }
        let finals = expectation(description: "final blocks")
        finals.expectedFulfillmentCount = count
        finals.assertForOverFulfill = true
        let completions = expectation(description: "completion blocks")
        completions.expectedFulfillmentCount = count
        completions.assertForOverFulfill = true
        let finalCounts = Mutex([Int](repeating: 0, count: count))

        var operations: [CKOperation] = []
        for index in 0..<count {
            let operation: CKOperation
            switch index % 3 {
            case 0:
                let modify = CKModifyRecordsOperation(recordsToSave: [note("stress-\(index)")])
                modify.modifyRecordsResultBlock = { _ in
                    finalCounts.withLock { $0[index] += 1 }
                    finals.fulfill()
                }
                operation = modify
            case 1:
                let fetch = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "stress-\(index - 1)")])
                fetch.fetchRecordsResultBlock = { _ in
                    finalCounts.withLock { $0[index] += 1 }
                    finals.fulfill()
                }
                operation = fetch
            default:
                let zones = CKFetchRecordZonesOperation(recordZoneIDs: [.default])
                zones.fetchRecordZonesResultBlock = { _ in
                    finalCounts.withLock { $0[index] += 1 }
                    finals.fulfill()
                }
                operation = zones
            }
            operation.configuration.container = database.container
            operation.completionBlock = { completions.fulfill() }
            if index > 0 {
                for _ in 0..<Int.random(in: 0...2, using: &generator) {
                    operation.addDependency(operations[Int.random(in: 0..<index, using: &generator)])
                }
            }
            operations.append(operation)
        }
        // The queues hold still while operations are added and some cancelled, so a cancelled
        // operation has never started: it must send nothing.
        let cancelled = Set((0..<count).filter { _ in Int.random(in: 0..<5, using: &generator) == 0 })
        queues.forEach { $0.isSuspended = true }
        for (index, operation) in operations.enumerated() {
            queues[index % queues.count].addOperation(operation)
            if cancelled.contains(index) { operation.cancel() }
        }
        queues.forEach { $0.isSuspended = false }
        wait(for: [finals, completions], timeout: 120)
        queues.forEach { $0.waitUntilAllOperationsAreFinished() }
        XCTAssertEqual(finalCounts.withLock { $0 }, [Int](repeating: 1, count: count))
        XCTAssertTrue(operations.allSatisfy(\.isFinished))
        XCTAssertLessThanOrEqual(server.requestCount, count - cancelled.count)
    }
}

/// Nothing an operation touches outlives it: not the operation, its queue, or what its
/// blocks captured.
final class OperationLeakTests: OperationTestCase {
    private final class Canary: Sendable {}

    func testOperationQueueAndCapturedObjectsAreReleased() {
        let weakOperation = Weak<CKModifyRecordsOperation>()
        let weakQueue = Weak<OperationQueue>()
        let weakCanary = Weak<Canary>()
        let done = expectation(description: "final block")
        let completed = expectation(description: "completion block")
        do {
            let queue = OperationQueue()
            let canary = Canary()
            let operation = CKModifyRecordsOperation(recordsToSave: [note("leak")])
            operation.configuration.container = database.container
            operation.perRecordSaveBlock = { _, _ in _ = canary; _ = operation }
            operation.modifyRecordsResultBlock = { _ in
                _ = canary
                _ = operation.operationID
                done.fulfill()
            }
            operation.completionBlock = { _ = operation; completed.fulfill() }
            weakOperation.value = operation
            weakQueue.value = queue
            weakCanary.value = canary
            queue.addOperation(operation)
            wait(for: [done, completed], timeout: 10)
            queue.waitUntilAllOperationsAreFinished()
        }
        let released = expectation(description: "released")
        DispatchQueue.global().async {
            while weakOperation.value != nil || weakQueue.value != nil || weakCanary.value != nil { sched_yield() }
            released.fulfill()
        }
        wait(for: [released], timeout: 10)
    }

    func testACancelledOperationReleasesItsBlocks() {
        let weakCanary = Weak<Canary>()
        let weakOperation = Weak<CKFetchRecordsOperation>()
        let done = expectation(description: "final block")
        do {
            let canary = Canary()
            let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "x")])
            operation.fetchRecordsResultBlock = { _ in
                _ = canary
                _ = operation
                done.fulfill()
            }
            weakCanary.value = canary
            weakOperation.value = operation
            operation.cancel()
            database.add(operation)
            wait(for: [done], timeout: 10)
        }
        let released = expectation(description: "released")
        DispatchQueue.global().async {
            while weakOperation.value != nil || weakCanary.value != nil { sched_yield() }
            released.fulfill()
        }
        wait(for: [released], timeout: 10)
    }
}

/// A weak reference that threads may read while the test waits for an object to go away.
final class Weak<Object: AnyObject>: @unchecked Sendable {
    weak var value: Object?
}

extension OperationStressTests {
    /// Foundation on Linux crashes now and then when an operation is cancelled while a
    /// dependency on another queue has not finished, and that dependency finishes after the
    /// cancelled operation is gone; a cancelled CKOperation lets go of such dependencies first.
    func testCancellingOperationsWhoseDependenciesRunOnOtherQueuesNeverCrashes() {
        let count = 3_000 * stressScale
        let finals = expectation(description: "final blocks")
        finals.expectedFulfillmentCount = count
        finals.assertForOverFulfill = true
        let queues = (OperationQueue(), OperationQueue())
        for _ in 0..<count {
            let gate = BlockOperation {}
            let operation = CKFetchRecordZonesOperation(recordZoneIDs: [.default])
            operation.configuration.container = database.container
            operation.fetchRecordZonesResultBlock = { _ in finals.fulfill() }
            operation.addDependency(gate)
            queues.0.addOperation(operation)
            queues.1.addOperation(gate)
            operation.cancel()
        }
        wait(for: [finals], timeout: 120)
        queues.0.waitUntilAllOperationsAreFinished()
        queues.1.waitUntilAllOperationsAreFinished()
    }
}
