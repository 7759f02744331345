@_spi(Testing) import Stratus
import StratusToolkit
import XCTest
import _StratusTestSupport

/// The retry recipe: transient failures are retried after the wait they ask for, on the
/// shared clock; after a partial failure only the transient items are sent again.
final class RecipeRetryTests: RecipeTestCase {
    func testSaveRetryingWaitsEachRetryAfterOnTheClockBeforeSendingAgain() async throws {
        server.failNextRequests(2, with: .zoneBusy, retryAfter: 3)
        let (events, continuation) = AsyncStream.makeStream(of: RetryEvent.self)
        var policy = RetryPolicy(seed: 1)
        policy.onRetry = { continuation.yield($0) }
        let start = server.requestCount
        let record = note("favourite")
        let database = self.database!
        let save = Task { try await database.saveRetrying(record, policy: policy) }
        var iterator = events.makeAsyncIterator()

        let first = await iterator.next()
        XCTAssertEqual(first?.wait, .seconds(3))
        XCTAssertEqual(first?.attempt, 1)
        XCTAssertEqual(first?.error.code, .zoneBusy)
        XCTAssertEqual(server.requestCount - start, 1)
        clock.advance(by: 2.9)
        XCTAssertEqual(server.requestCount - start, 1, "nothing is sent before the retry-after has passed")
        clock.advance(by: 0.1)

        let second = await iterator.next()
        XCTAssertEqual(second?.attempt, 2)
        XCTAssertEqual(server.requestCount - start, 2)
        clock.advance(by: 3)

        let saved = try await save.value
        XCTAssertEqual(server.requestCount - start, 3)
        XCTAssertNotNil(saved.recordChangeTag)
        try await assertEachSavedRecordWrittenOnce([record.recordID: .success(saved)])
    }

    func testWithoutARetryAfterTheWaitIsTheSeededJitteredBackoff() async throws {
        server.failNextRequests(3, with: .networkFailure)
        let policy = drivingPolicy(RetryPolicy(maximumAttempts: 4, seed: 99))
        _ = try await database.saveRetrying(note("a"), policy: policy)
        let waits = retries.value.map(\.wait)
        XCTAssertEqual(waits, policy.backoffSchedule(3).map { .seconds($0) })
        let schedule = policy.backoffSchedule(3)
        XCTAssertEqual(schedule, RetryPolicy(seed: 99).backoffSchedule(3), "the same seed waits the same")
        XCTAssertNotEqual(schedule, RetryPolicy(seed: 100).backoffSchedule(3), "another seed waits otherwise")
        for (index, wait) in schedule.enumerated() {
            let base = pow(2, Double(index))
            XCTAssertLessThanOrEqual(wait, base)
            XCTAssertGreaterThanOrEqual(wait, base / 2, "jitter takes at most half")
        }
    }

    func testEveryTransientCodeIsRetriedAndOthersAreNot() {
        let policy = RetryPolicy()
        for code in [CKError.Code.networkUnavailable, .networkFailure, .serviceUnavailable, .zoneBusy, .requestRateLimited, .accountTemporarilyUnavailable] {
            XCTAssertTrue(policy.retries(CKError(code)), "\(code)")
        }
        for code in [CKError.Code.notAuthenticated, .serverResponseLost, .serverRecordChanged, .quotaExceeded, .limitExceeded, .partialFailure, .batchRequestFailed, .permissionFailure] {
            XCTAssertFalse(policy.retries(CKError(code)), "\(code)")
        }
        XCTAssertTrue(RetryPolicy(retriesNotAuthenticated: true).retries(CKError(.notAuthenticated)))
        XCTAssertTrue(RetryPolicy(isIdempotent: true).retries(CKError(.serverResponseLost)))
    }

    func testGivesUpAfterTheAttemptLimitWithTheLastError() async throws {
        server.failNextRequests(10, with: .serviceUnavailable, retryAfter: 1)
        let start = server.requestCount
        do {
            _ = try await database.saveRetrying(note("a"), policy: drivingPolicy(RetryPolicy(maximumAttempts: 3)))
            XCTFail("expected serviceUnavailable")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .serviceUnavailable)
        }
        XCTAssertEqual(server.requestCount - start, 3)
        XCTAssertEqual(retries.value.count, 2)
        XCTAssertTrue(server.recordedWrites.isEmpty)
    }

    func testAFailureThatIsNotTransientIsNotRetried() async throws {
        server.failNextRequests(1, with: .quotaExceeded)
        let start = server.requestCount
        await XCTAssertThrowsErrorAsync { try await self.database.saveRetrying(self.note("a"), policy: self.drivingPolicy()) }
        XCTAssertEqual(server.requestCount - start, 1)
        XCTAssertTrue(retries.value.isEmpty)
    }

    func testServerResponseLostIsRetriedOnlyForWorkDeclaredIdempotent() async throws {
        server.failNextRequests(1, with: .serverResponseLost)
        await XCTAssertThrowsErrorAsync { try await self.database.saveRetrying(self.note("a"), policy: self.drivingPolicy()) }
        server.failNextRequests(1, with: .serverResponseLost)
        var policy = RetryPolicy(seed: 3)
        policy.isIdempotent = true
        let record = note("b")
        let saved = try await database.saveRetrying(record, policy: drivingPolicy(policy))
        try await assertEachSavedRecordWrittenOnce([record.recordID: .success(saved)])
    }

    func testASaveRetriedAfterItsResponseWasLostInThePublicDatabaseEndsSavedAndIsWrittenOnce() async throws {
        let service = ItemFaultService(server: server)
        let publicDatabase = publicDatabase(through: service)
        var policy = RetryPolicy(seed: 3)
        policy.isIdempotent = true
        let created = note("poster", "first")
        let edited = try await publicDatabase.saveRetrying(created, policy: drivingPolicy(policy))
        edited["text"] = "second"
        let fresh = note("flyer")

        service.loseResponses(of: 1)
        let results = try await publicDatabase.modifyRecordsRetrying(saving: [edited, fresh], deleting: [], policy: drivingPolicy(policy))

        XCTAssertEqual(retries.value.map(\.error.code), [.serverResponseLost])
        XCTAssertEqual(service.sentTokens.value.suffix(2).count, 2)
        XCTAssertEqual(service.sentTokens.value.suffix(2).first, service.sentTokens.value.last, "resent with its own bytes")
        let poster = try XCTUnwrap(try results.saveResults[edited.recordID]?.get(), "the update ends saved, not as a conflict")
        XCTAssertEqual(poster["text"] as? String, "second")
        XCTAssertNotNil(try results.saveResults[fresh.recordID]?.get(), "the new record ends saved, not as a conflict")
        XCTAssertEqual(writesByName["poster"]?.count, 2, "created once, edited once")
        XCTAssertEqual(writesByName["poster"]?.last?.changeTag, poster.recordChangeTag)
        try await assertEachSavedRecordWrittenOnce([fresh.recordID: results.saveResults[fresh.recordID] ?? .failure(CKError(.internalError))], in: publicDatabase)
    }

    func testNotAuthenticatedIsRetriedOnlyWhenAskedOnceTheAccountChanges() async throws {
        let container = database.container
        server.signOut(container)
        await XCTAssertThrowsErrorAsync { try await self.database.saveRetrying(self.note("a"), policy: self.drivingPolicy()) }

        let (events, continuation) = AsyncStream.makeStream(of: RetryEvent.self)
        var policy = RetryPolicy(seed: 1, retriesNotAuthenticated: true)
        policy.onRetry = { continuation.yield($0) }
        let record = note("b")
        let database = self.database!
        let save = Task { try await database.saveRetrying(record, policy: policy) }
        var iterator = events.makeAsyncIterator()
        let event = await iterator.next()
        XCTAssertEqual(event?.wait, .accountChange)
        XCTAssertEqual(event?.error.code, .notAuthenticated)
        server.signIn(container, as: "john")
        let saved = try await save.value
        try await assertEachSavedRecordWrittenOnce([record.recordID: .success(saved)])
    }

    func testAccountTemporarilyUnavailableWaitsForAccountChangedThenRetries() async throws {
        let container = database.container
        server.setAccountStatus(.temporarilyUnavailable, for: container)
        let (events, continuation) = AsyncStream.makeStream(of: RetryEvent.self)
        var policy = RetryPolicy(seed: 1)
        policy.onRetry = { continuation.yield($0) }
        let start = server.requestCount
        let record = note("a")
        let database = self.database!
        let save = Task { try await database.saveRetrying(record, policy: policy) }
        var iterator = events.makeAsyncIterator()
        let event = await iterator.next()
        XCTAssertEqual(event?.wait, .accountChange)
        clock.advance(by: 3_600)
        XCTAssertEqual(server.requestCount - start, 1, "time alone does not end the wait")
        // Another device's change is not this container's.
        let other = server.container(identifier: identifier, account: "john")
        server.setAccountStatus(.available, for: other)
        XCTAssertEqual(server.requestCount - start, 1)
        server.setAccountStatus(.available, for: container)
        let saved = try await save.value
        XCTAssertEqual(server.requestCount - start, 2)
        try await assertEachSavedRecordWrittenOnce([record.recordID: .success(saved)])
    }

    func testAfterAPartialFailureOnlyTheTransientItemsAreSentAgainAfterTheLargestRetryAfter() async throws {
        let service = ItemFaultService(server: server)
        service.failItem("b", with: .zoneBusy, retryAfter: 2)
        service.failItem("d", with: .requestRateLimited, retryAfter: 5)
        service.failItem("e", with: .permissionFailure)
        let records = ["a", "b", "c", "d", "e"].map { note($0) }
        let results = try await database(through: service).modifyRecordsRetrying(
            saving: records, deleting: [], atomically: false, policy: drivingPolicy()
        )
        XCTAssertEqual(service.sentModifies.value, [["a", "b", "c", "d", "e"].filter { !["b", "d", "e"].contains($0) }, ["b", "d"]])
        XCTAssertEqual(retries.value.map(\.wait), [.seconds(5)])
        XCTAssertEqual(retries.value.first?.recordIDs.map(\.recordName), ["b", "d"])
        XCTAssertEqual(results.saveResults.count, 5)
        for name in ["a", "b", "c", "d"] {
            XCTAssertNotNil(try? results.saveResults[CKRecord.ID(recordName: name)]?.get(), name)
        }
        XCTAssertEqual(results.saveResults[CKRecord.ID(recordName: "e")]?.failureCode, .permissionFailure)
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testEachRetryCarriesFreshClientChangeTokenDataSoTheServerAppliesIt() async throws {
        let service = ItemFaultService(server: server)
        service.failItem("b", times: 2, with: .zoneBusy, retryAfter: 1)
        let records = [note("a"), note("b")]
        let results = try await database(through: service).modifyRecordsRetrying(saving: records, deleting: [], atomically: false, policy: drivingPolicy())
        let tokens = service.sentTokens.value
        XCTAssertEqual(tokens.count, 3)
        XCTAssertEqual(Set(tokens.compactMap { $0 }).count, 3, "every request carries its own bytes")
        // With the first request's bytes, the server would answer b's retry as a repeat of
        // that request, which saved a in the same zone, and b would never be saved.
        XCTAssertNotNil(try? results.saveResults[CKRecord.ID(recordName: "b")]?.get())
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testInAnAtomicZoneTheFailedItemIsRetriedWithItsBatchRequestFailedCompanions() async throws {
        let zoneID = try await zone("Party")
        let service = ItemFaultService(server: server)
        service.failItem("z2", with: .zoneBusy, retryAfter: 1)
        let records = [record("z1", in: zoneID), record("z2", in: zoneID), record("z3", in: zoneID), record("d1")]
        let results = try await database(through: service).modifyRecordsRetrying(saving: records, deleting: [], policy: drivingPolicy())
        XCTAssertEqual(service.sentModifies.value, [["d1"], ["z1", "z2", "z3"]])
        for record in records { XCTAssertNotNil(try? results.saveResults[record.recordID]?.get(), record.recordID.recordName) }
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testCompanionsOfAFailureThatIsNotTransientAreNotRetried() async throws {
        let zoneID = try await zone("Party")
        let service = ItemFaultService(server: server)
        service.failItem("z1", with: .permissionFailure)
        service.failItem("d1", with: .zoneBusy, retryAfter: 1)
        let records = [record("z1", in: zoneID), record("z2", in: zoneID), record("d1")]
        let results = try await database(through: service).modifyRecordsRetrying(saving: records, deleting: [], policy: drivingPolicy())
        XCTAssertEqual(results.saveResults[records[0].recordID]?.failureCode, .permissionFailure)
        XCTAssertEqual(results.saveResults[records[1].recordID]?.failureCode, .batchRequestFailed)
        XCTAssertNotNil(try? results.saveResults[records[2].recordID]?.get())
        XCTAssertEqual(service.sentModifies.value, [[], ["d1"]])
        try await assertEachSavedRecordWrittenOnce(results.saveResults)
    }

    func testATimedOutRequestIsResentWithTheSameBytesSoItsLateArrivalIsNotAppliedAgain() async throws {
        let service = ItemFaultService(server: server)
        let flakyDatabase = database(through: service)
        server.delayNextRequests(1, by: 120)
        let record = note("late")
        let operation = RetryModifyRecordsOperation(database: flakyDatabase, recordsToSave: [record], policy: drivingPolicy())
        // An overwriting save: sent twice and applied twice, it would be written twice.
        operation.savePolicy = .changedKeys
        operation.makeOperation = { saves, deletes in
            let attempt = CKModifyRecordsOperation(recordsToSave: saves, recordIDsToDelete: deletes)
            attempt.configuration.timeoutIntervalForRequest = 10
            return attempt
        }
        let results = Captured<[CKRecord.ID: Result<CKRecord, any Error>]>([:])
        let done = expectation(description: "finished")
        operation.perRecordSaveBlock = { recordID, result in results.value[recordID] = result }
        operation.modifyRecordsResultBlock = { _ in done.fulfill() }
        OperationQueue().addOperation(operation)
        while server.requestLog.isEmpty { await Task.yield() }
        clock.advance(by: 10)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(retries.value.first?.error.code, .networkFailure)
        XCTAssertEqual(service.sentTokens.value.count, 2)
        XCTAssertEqual(service.sentTokens.value[0], service.sentTokens.value[1], "a request that may have landed is resent with its own bytes")
        clock.advance(by: 120)
        while service.completedModifies.value < 2 { await Task.yield() }
        try await assertEachSavedRecordWrittenOnce(results.value)
    }

    func testTheFactoryBuildsAFreshOperationPerAttemptWithOnlyThePendingItems() async throws {
        let service = ItemFaultService(server: server)
        service.failItem("b", with: .zoneBusy, retryAfter: 1)
        let built = Captured<[[String]]>([])
        let operation = RetryModifyRecordsOperation(database: database(through: service), recordsToSave: [note("a"), note("b")], policy: drivingPolicy())
        operation.isAtomic = false
        operation.makeOperation = { saves, _ in
            built.value.append(saves.map(\.recordID.recordName))
            return CKModifyRecordsOperation()
        }
        let done = expectation(description: "finished")
        let final = Captured<Result<Void, any Error>?>(nil)
        operation.modifyRecordsResultBlock = { result in
            final.value = result
            done.fulfill()
        }
        OperationQueue().addOperation(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(built.value, [["a", "b"], ["b"]])
        if case .failure(let error)? = final.value { XCTFail("expected success, got \(error)") }
    }

    func testCancellingDuringAWaitEndsItAndReportsCancelledWithoutSendingAgain() async throws {
        server.failNextRequests(1, with: .zoneBusy, retryAfter: 100)
        let waiting = expectation(description: "waiting")
        var policy = RetryPolicy(seed: 1)
        policy.onRetry = { _ in waiting.fulfill() }
        let operation = RetryModifyRecordsOperation(database: database, recordsToSave: [note("a")], policy: policy)
        let done = expectation(description: "finished")
        let final = Captured<Result<Void, any Error>?>(nil)
        operation.modifyRecordsResultBlock = { result in
            final.value = result
            done.fulfill()
        }
        let start = server.requestCount
        OperationQueue().addOperation(operation)
        await fulfillment(of: [waiting], timeout: 10)
        operation.cancel()
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(final.value?.failureCode, .operationCancelled)
        XCTAssertEqual(server.requestCount - start, 1)
        XCTAssertTrue(server.recordedWrites.isEmpty)
        XCTAssertEqual(clock.pendingActionCount, 0, "the wait's timer was cancelled")
    }
}
