import Stratus
import XCTest

/// Request counting and the server's fault injection.
final class FaultTests: ServerTestCase {
    func testEveryConvenienceCallIsOneRequest() async throws {
        let database = device("john").privateCloudDatabase
        XCTAssertEqual(server.requestCount, 0)
        for index in 0..<5 {
            _ = try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n\(index)")))
        }
        XCTAssertEqual(server.requestCount, 5)
        let many = (0..<5).map { CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "m\($0)")) }
        _ = try await database.modifyRecords(saving: many, deleting: [])
        XCTAssertEqual(server.requestCount, 6)
        _ = try await database.records(for: many.map(\.recordID))
        _ = try await database.allRecordZones()
        XCTAssertEqual(server.requestCount, 8)
        _ = try await database.records(for: [])
        _ = try await database.modifyRecords(saving: [], deleting: [])
        XCTAssertEqual(server.requestCount, 8, "nothing to do costs no request")
    }

    func testInjectedFailuresFailTheNextRequestsInOrderThenStop() async throws {
        let database = device("john").privateCloudDatabase
        server.failNextRequests(2, with: .zoneBusy, retryAfter: 0.05)
        let first = await assertThrowsCKError(.zoneBusy) { try await database.save(CKRecord(recordType: "Note")) }
        XCTAssertEqual(first?.retryAfterSeconds, 0.05)
        let second = await assertThrowsCKError(.zoneBusy) { try await database.allRecordZones() }
        XCTAssertEqual(second?.retryAfterSeconds, 0.05)
        _ = try await database.allRecordZones()
        XCTAssertEqual(server.requestCount, 3, "failed requests count as handled")
    }

    func testRetryAfterIsAttachedOnlyToRetryableCodes() async throws {
        let database = device("john").privateCloudDatabase
        server.failNextRequests(1, with: .quotaExceeded, retryAfter: 5)
        let error = await assertThrowsCKError(.quotaExceeded) { try await database.allRecordZones() }
        XCTAssertNil(error?.retryAfterSeconds)
        for code in [CKError.Code.serviceUnavailable, .requestRateLimited, .networkFailure] {
            server.failNextRequests(1, with: code, retryAfter: 3)
            let retryable = await assertThrowsCKError(code) { try await database.allRecordZones() }
            XCTAssertEqual(retryable?.retryAfterSeconds, 3)
            clock.advance(by: 3)
        }
    }

    func testInjectedFailureOfASaveStoresNothing() async throws {
        let database = device("john").privateCloudDatabase
        server.failNextRequests(1, with: .serviceUnavailable, retryAfter: 1)
        await assertThrowsCKError(.serviceUnavailable) { try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n"))) }
        await assertThrowsCKError(.unknownItem) { try await database.record(for: CKRecord.ID(recordName: "n")) }
    }

    func testBatchCallsThrowInjectedWholeRequestFailures() async {
        let database = device("john").privateCloudDatabase
        server.failNextRequests(1, with: .networkFailure)
        await assertThrowsCKError(.networkFailure) { try await database.records(for: [CKRecord.ID(recordName: "a")]) }
        server.failNextRequests(1, with: .networkFailure)
        await assertThrowsCKError(.networkFailure) {
            try await database.modifyRecords(saving: [CKRecord(recordType: "Note")], deleting: [], atomically: false)
        }
    }

    func testRateLimitAnswersExcessRequestsWithRetryAfterOnTheServersClock() async throws {
        let database = device("john").privateCloudDatabase
        server.rateLimit(requestsPerSecond: 2)
        _ = try await database.allRecordZones()
        _ = try await database.allRecordZones()
        let limited = await assertThrowsCKError(.requestRateLimited) { try await database.allRecordZones() }
        let wait = try XCTUnwrap(limited?.retryAfterSeconds)
        XCTAssertGreaterThan(wait, 0)
        XCTAssertLessThanOrEqual(wait, 0.5)
        clock.advance(by: wait)
        _ = try await database.allRecordZones()
        server.rateLimit(requestsPerSecond: nil)
        for _ in 0..<10 { _ = try await database.allRecordZones() }
    }
}
