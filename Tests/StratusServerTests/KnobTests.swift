@_spi(Testing) import Stratus
import _StratusTestSupport
import XCTest

/// The server's test knobs take any value without crashing or growing without end.
final class KnobTests: ServerTestCase {
    func testHugeCountsOfInjectedFailuresAndDelaysCostNothing() async throws {
        let database = device("john").privateCloudDatabase
        server.failNextRequests(Int.max, with: .zoneBusy, retryAfter: 1)
        server.failNextRequests(-5, with: .internalError)
        await assertThrowsCKError(.zoneBusy) { try await database.allRecordZones() }
        await assertThrowsCKError(.zoneBusy) { try await database.allRecordZones() }
        server.delayNextRequests(Int.max, by: 0)
        server.delayNextRequests(Int.min, by: 5)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testNonsenseRetryAfterValuesAreDroppedOrClamped() async throws {
        let database = device("john").privateCloudDatabase
        server.failNextRequests(1, with: .serviceUnavailable, retryAfter: .infinity)
        let infinite = await assertThrowsCKError(.serviceUnavailable) { try await database.allRecordZones() }
        XCTAssertEqual(infinite?.retryAfterSeconds, CloudServer.longestKnobInterval)
        server.failNextRequests(1, with: .serviceUnavailable, retryAfter: 1e300)
        let huge = await assertThrowsCKError(.serviceUnavailable) { try await database.allRecordZones() }
        XCTAssertEqual(huge?.retryAfterSeconds, CloudServer.longestKnobInterval)
        server.failNextRequests(1, with: .serviceUnavailable, retryAfter: .nan)
        let nan = await assertThrowsCKError(.serviceUnavailable) { try await database.allRecordZones() }
        XCTAssertNil(nan?.retryAfterSeconds)
        server.failNextRequests(1, with: .serviceUnavailable, retryAfter: -3)
        let negative = await assertThrowsCKError(.serviceUnavailable) { try await database.allRecordZones() }
        XCTAssertNil(negative?.retryAfterSeconds)
    }

    func testNonsenseDelaysAreClampedOrZero() async throws {
        let phone = device("john")
        let context = rawContext(phone.privateCloudDatabase)
        server.delayNextRequests(1, by: .nan)
        _ = try await server.listZones(context)      // answered at once: NaN counts as zero
        server.delayNextRequests(1, by: .infinity)
        let answered = Captured(false)
        let server = self.server!
        let slow = Task {
            _ = try await server.listZones(context)
            answered.value = true
        }
        while server.requestLog.count < 2 { await Task.yield() }
        clock.advance(by: CloudServer.longestKnobInterval - 1)
        XCTAssertFalse(answered.value)
        clock.advance(by: 1)
        try await slow.value
        XCTAssertTrue(answered.value, "an infinite delay is clamped to one year")
        withExtendedLifetime(phone) {}
    }

    func testNonsenseRateLimitsLiftTheLimit() async throws {
        let database = device("john").privateCloudDatabase
        server.rateLimit(requestsPerSecond: .nan)
        server.rateLimit(requestsPerSecond: .infinity)
        for _ in 0..<5 { _ = try await database.allRecordZones() }
        server.rateLimit(requestsPerSecond: 1)
        _ = try await database.allRecordZones()
        await assertThrowsCKError(.requestRateLimited) { try await database.allRecordZones() }
    }

    func testTheRequestLogKeepsTheNewestRequestsUpToItsLimit() async throws {
        XCTAssertEqual(server.requestLogLimit, CloudServer.defaultRequestLogLimit)
        server.requestLogLimit = 3
        let database = device("john").privateCloudDatabase
        for _ in 0..<10 { _ = try await database.allRecordZones() }
        _ = try await database.records(for: [CKRecord.ID(recordName: "last")])
        XCTAssertEqual(server.requestLog.map(\.endpoint), [.listZones, .listZones, .lookupRecords])
        XCTAssertEqual(server.requestCount, 11, "the count still counts every request")
        server.requestLogLimit = -1
        XCTAssertEqual(server.requestLog, [])
    }

    func testDevicesAreForgottenWhenTheirLastContainerObjectGoes() async throws {
        let before = server.registeredDeviceCount
        for index in 0..<100 {
            let phone = device("user-\(index % 3)")
            _ = try await phone.privateCloudDatabase.allRecordZones()
        }
        let released = expectation(description: "devices released")
        let server = self.server!
        Task.detached {
            while server.registeredDeviceCount > before { await Task.yield() }
            released.fulfill()
        }
        await fulfillment(of: [released], timeout: 10)
        XCTAssertEqual(server.registeredDeviceCount, before)
        let kept = device("john")
        XCTAssertEqual(server.registeredDeviceCount, before + 1)
        _ = kept
    }
}
