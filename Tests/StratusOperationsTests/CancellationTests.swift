import Stratus
import Synchronization
import XCTest
import _StratusTestSupport

/// Cancelling takes effect between requests (cloudkit-api.md §11, design.md).
final class CancellationTests: OperationTestCase {
    /// A modify operation whose blocks record what they saw.
    private func recordingModify(_ names: [String], log: EventLog, done: XCTestExpectation) -> CKModifyRecordsOperation {
        let operation = CKModifyRecordsOperation(recordsToSave: names.map { note($0) }, recordIDsToDelete: [CKRecord.ID(recordName: "gone")])
        operation.perRecordSaveBlock = { recordID, result in log.append("save \(recordID.recordName) \(result.failureCode.map { "\($0)" } ?? "ok")") }
        operation.perRecordDeleteBlock = { recordID, result in log.append("delete \(recordID.recordName) \(result.failureCode.map { "\($0)" } ?? "ok")") }
        operation.modifyRecordsResultBlock = { result in
            log.append("final \(result.failureCode.map { "\($0)" } ?? "ok")")
            done.fulfill()
        }
        return operation
    }

    func testCancelledBeforeItStartsSendsNothingAndReportsCancelledToEveryItem() async {
        let log = EventLog()
        let done = expectation(description: "final")
        let operation = recordingModify(["a", "b"], log: log, done: done)
        operation.cancel()
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["save a operationCancelled", "save b operationCancelled", "delete gone operationCancelled", "final operationCancelled"])
        XCTAssertEqual(server.requestCount, 0)
    }

    func testCancelledWhileWaitingForADependencySendsNothing() {
        let log = EventLog()
        let done = expectation(description: "final")
        let gate = BlockOperation {}
        let operation = recordingModify(["a"], log: log, done: done)
        operation.addDependency(gate)
        database.add(operation)
        operation.cancel()
        // A queue of its own, held until the gate is done.
        let gateQueue = OperationQueue()
        gateQueue.addOperation(gate)
        wait(for: [done], timeout: 10)
        gateQueue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(log.all.last, "final operationCancelled")
        XCTAssertEqual(server.requestCount, 0)
    }

    func testCancelledAfterTheRequestWasSentReportsTheServersRealResults() async throws {
        server.delayNextRequests(1, by: 5)
        let log = EventLog()
        let done = expectation(description: "final")
        let operation = recordingModify(["a"], log: log, done: done)
        database.add(operation)
        while server.requestLog.isEmpty { await Task.yield() }   // the request is on its way
        operation.cancel()
        clock.advance(by: 5)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["save a ok", "delete gone ok", "final ok"])
        let saved = try await database.record(for: CKRecord.ID(recordName: "a"))
        XCTAssertEqual(saved["text"] as? String, "text")
    }

    func testCancellingTheTaskAfterTheRequestWasSentReturnsWhatTheServerDid() async throws {
        server.delayNextRequests(1, by: 5)
        let database = self.database!
        let task = Task { try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "late"))) }
        while server.requestLog.isEmpty { await Task.yield() }
        task.cancel()
        clock.advance(by: 5)
        let saved = try await task.value
        XCTAssertNotNil(saved.recordChangeTag, "the save happened, so it is not reported as cancelled")
        let fetched = try await database.record(for: CKRecord.ID(recordName: "late"))
        XCTAssertEqual(fetched.recordChangeTag, saved.recordChangeTag)
    }

    func testCancellingTheTaskBeforeTheRequestIsSentThrowsOperationCancelled() async throws {
        let database = self.database!
        database.operationQueue.isSuspended = true
        let task = Task { try await database.save(CKRecord(recordType: "Note")) }
        while database.operationQueue.operationCount == 0 { await Task.yield() }
        task.cancel()
        database.operationQueue.isSuspended = false
        do {
            _ = try await task.value
            XCTFail("expected operationCancelled")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .operationCancelled)
        }
        XCTAssertEqual(server.requestCount, 0)
    }

    func testAnAlreadyCancelledTaskSendsNothing() async {
        let database = self.database!
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await database.save(CKRecord(recordType: "Note"))
        }
        do {
            _ = try await task.value
            XCTFail("expected operationCancelled")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .operationCancelled)
        }
        XCTAssertEqual(server.requestCount, 0)
    }

    func testACancelRacingTheRequestEndsEachOperationExactlyOnce() async throws {
        let rounds = 100 * stressScale
        let finals = Atomic<Int>(0)
        let done = expectation(description: "every final block")
        done.expectedFulfillmentCount = rounds
        done.assertForOverFulfill = true
        var operations: [CKModifyRecordsOperation] = []
        for index in 0..<rounds {
            let operation = CKModifyRecordsOperation(recordsToSave: [note("race-\(index)")])
            operation.modifyRecordsResultBlock = { result in
                let code = result.failureCode
                XCTAssertTrue(code == nil || code == .operationCancelled, "\(String(describing: code))")
                finals.add(1, ordering: .relaxed)
                done.fulfill()
            }
            operations.append(operation)
        }
        let ops = operations
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: rounds) { ops[$0].cancel() }
        }
        for operation in operations { database.add(operation) }
        await fulfillment(of: [done], timeout: 30)
        XCTAssertEqual(finals.load(ordering: .relaxed), rounds)
        XCTAssertLessThanOrEqual(server.requestCount, rounds)
    }
}
