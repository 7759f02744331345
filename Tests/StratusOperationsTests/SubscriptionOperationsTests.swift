import Stratus
import XCTest

/// `CKFetchSubscriptionsOperation`, `CKModifySubscriptionsOperation` and the subscription
/// convenience methods of `CKDatabase` against the embedded server.
final class SubscriptionOperationsTests: OperationTestCase {
    private func parties(_ id: String = "parties", options: CKQuerySubscription.Options = [.firesOnRecordCreation]) -> CKQuerySubscription {
        let subscription = CKQuerySubscription(recordType: "Party", predicate: NSPredicate(format: "attendees > %@", 10), subscriptionID: id, options: options)
        subscription.notificationInfo = CKSubscription.NotificationInfo(alertBody: "A big party!")
        return subscription
    }

    private func everything(_ id: String = "everything") -> CKDatabaseSubscription {
        let subscription = CKDatabaseSubscription(subscriptionID: id)
        let info = CKSubscription.NotificationInfo()
        info.shouldSendContentAvailable = true
        subscription.notificationInfo = info
        return subscription
    }

    private func describe<Value>(_ result: Result<Value, any Error>) -> String {
        result.failureCode.map { "\($0)" } ?? "ok"
    }

    // MARK: - Operations

    func testModifyCallsEverySaveBlockThenEveryDeleteBlockInOrderThenTheResultBlockOnce() async throws {
        _ = try await database.save(everything("old"))
        let log = EventLog()
        let done = expectation(description: "final")
        let operation = CKModifySubscriptionsOperation(subscriptionsToSave: [parties("a"), everything("b")], subscriptionIDsToDelete: ["old", "never"])
        operation.perSubscriptionSaveBlock = { id, result in log.callback("save \(id) \(self.describe(result))") }
        operation.perSubscriptionDeleteBlock = { id, result in log.callback("delete \(id) \(self.describe(result))") }
        operation.modifySubscriptionsResultBlock = { result in
            log.callback("final \(self.describe(result))")
            if case .failure(let error as CKError) = result {
                XCTAssertEqual(error.partialErrorsByItemID?.keys.map { $0.base as? String }, ["never"])
            }
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["save a ok", "save b ok", "delete old ok", "delete never unknownItem", "final partialFailure"])
        XCTAssertEqual(log.overlapCount, 0)
    }

    func testFetchReportsAnUnknownIDAsUnknownItemAndAPartialFailureKeyedByTheIDString() async throws {
        _ = try await database.save(parties())
        let log = EventLog()
        let done = expectation(description: "final")
        let operation = CKFetchSubscriptionsOperation(subscriptionIDs: ["parties", "missing"])
        operation.perSubscriptionResultBlock = { id, result in
            log.callback("fetch \(id) \(self.describe(result))")
            if case .success(let subscription) = result {
                XCTAssertTrue(subscription is CKQuerySubscription)
                XCTAssertEqual((subscription as? CKQuerySubscription)?.recordType, "Party")
            }
        }
        operation.fetchSubscriptionsResultBlock = { result in
            log.callback("final \(self.describe(result))")
            if case .failure(let error as CKError) = result {
                XCTAssertEqual((error.partialErrorsByItemID?["missing"] as? CKError)?.code, .unknownItem)
            }
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["fetch parties ok", "fetch missing unknownItem", "final partialFailure"])
    }

    func testTheLegacyFetchBlockGetsTheFetchedSubscriptionsAndPartialErrorsKeyedBySubscriptionIDString() async throws {
        _ = try await database.save(parties())
        let done = expectation(description: "final")
        let operation = CKFetchSubscriptionsOperation(subscriptionIDs: ["parties", "missing"])
        (operation as any LegacyFetchSubscriptionsBlocks).fetchSubscriptionCompletionBlock = { subscriptions, error in
            XCTAssertEqual(subscriptions?.keys.sorted(), ["parties"])
            let partial = (error as? CKError)?.partialErrorsByItemID
            XCTAssertEqual((error as? CKError)?.code, .partialFailure)
            XCTAssertEqual((partial?[AnyHashable("missing")] as? CKError)?.code, .unknownItem)
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
    }

    func testTheLegacyModifyBlockGetsTheSavedSubscriptionsAndDeletedIDs() async throws {
        _ = try await database.save(everything("old"))
        let done = expectation(description: "final")
        let operation = CKModifySubscriptionsOperation(subscriptionsToSave: [parties()], subscriptionIDsToDelete: ["old"])
        (operation as any LegacyModifySubscriptionsBlocks).modifySubscriptionsCompletionBlock = { saved, deleted, error in
            XCTAssertEqual(saved?.map(\.subscriptionID), ["parties"])
            XCTAssertEqual(deleted, ["old"])
            XCTAssertNil(error)
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
    }

    func testFetchAllSubscriptionsOperationReturnsEverySubscriptionAsItsSubclass() async throws {
        _ = try await database.save(CKRecordZone(zoneName: "Notes"))
        let zone = CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: "Notes"), subscriptionID: "notes")
        zone.recordType = "Note"
        zone.notificationInfo = everything().notificationInfo
        _ = try await database.modifySubscriptions(saving: [parties(), zone, everything()], deleting: [])
        let all = try await database.allSubscriptions()
        XCTAssertEqual(all.map(\.subscriptionID), ["everything", "notes", "parties"])
        XCTAssertEqual(all.map(\.subscriptionType), [.database, .recordZone, .query])
        let fetchedZone = try XCTUnwrap(all[1] as? CKRecordZoneSubscription)
        XCTAssertEqual(fetchedZone.zoneID.zoneName, "Notes")
        XCTAssertEqual(fetchedZone.recordType, "Note")
        XCTAssertTrue(all[0] is CKDatabaseSubscription)
        XCTAssertEqual(all[0].notificationInfo?.shouldSendContentAvailable, true)
    }

    func testSavingAnExistingIDReplacesTheSubscriptionAndEachAnswerIsAFreshObject() async throws {
        let original = parties()
        let saved = try await database.save(original)
        XCTAssertFalse(saved === original)
        let replacement = parties(options: [.firesOnRecordDeletion, .firesOnce])
        replacement.notificationInfo = CKSubscription.NotificationInfo(alertBody: "Gone", soundName: "sad.aiff")
        _ = try await database.save(replacement)
        let answer = try await database.subscription(for: "parties")
        let fetched = try XCTUnwrap(answer as? CKQuerySubscription)
        XCTAssertEqual(fetched.querySubscriptionOptions, [.firesOnRecordDeletion, .firesOnce])
        XCTAssertEqual(fetched.notificationInfo?.alertBody, "Gone")
        XCTAssertEqual(fetched.notificationInfo?.soundName, "sad.aiff")
        fetched.notificationInfo?.alertBody = "changed locally"
        let again = try await database.subscription(for: "parties")
        XCTAssertEqual(again.notificationInfo?.alertBody, "Gone")
        let all = try await database.allSubscriptions()
        XCTAssertEqual(all.count, 1)
    }

    func testACancelledOperationSendsNothingAndReportsOperationCancelledToEveryItem() async {
        let log = EventLog()
        let done = expectation(description: "final")
        let operation = CKModifySubscriptionsOperation(subscriptionsToSave: [parties()], subscriptionIDsToDelete: ["old"])
        operation.perSubscriptionSaveBlock = { id, result in log.append("save \(id) \(self.describe(result))") }
        operation.perSubscriptionDeleteBlock = { id, result in log.append("delete \(id) \(self.describe(result))") }
        operation.modifySubscriptionsResultBlock = { result in
            log.append("final \(self.describe(result))")
            done.fulfill()
        }
        operation.cancel()
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["save parties operationCancelled", "delete old operationCancelled", "final operationCancelled"])
        XCTAssertEqual(server.requestCount, 0)
    }

    func testAPredicateOutsideCloudKitsSubsetFailsOnlyThatSubscriptionAndTheRestAreSent() async throws {
        let unsupported = CKQuerySubscription(recordType: "Party", predicate: NSPredicate(format: "name ENDSWITH %@", "x"), subscriptionID: "bad")
        unsupported.notificationInfo = CKSubscription.NotificationInfo(alertBody: "x")
        let (saves, _) = try await database.modifySubscriptions(saving: [unsupported, parties()], deleting: [])
        XCTAssertEqual(saves["bad"]?.failureCode, .invalidArguments)
        XCTAssertEqual(saves["parties"]?.failureCode, nil)
        XCTAssertEqual(server.requestCount, 1)
        await assertThrows(.invalidArguments) { try await self.database.save(unsupported) }
        XCTAssertEqual(server.requestCount, 1, "a subscription refused by the client sends nothing")
    }

    func testAWholeRequestFailureReachesEveryItemAndTheFinalBlock() async throws {
        server.failNextRequests(1, with: .serviceUnavailable, retryAfter: 3)
        let log = EventLog()
        let done = expectation(description: "final")
        let operation = CKFetchSubscriptionsOperation(subscriptionIDs: ["a", "b"])
        operation.perSubscriptionResultBlock = { id, result in log.append("fetch \(id) \(self.describe(result))") }
        operation.fetchSubscriptionsResultBlock = { result in
            log.append("final \(self.describe(result))")
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["fetch a serviceUnavailable", "fetch b serviceUnavailable", "final serviceUnavailable"])
    }

    // MARK: - Convenience methods

    func testEachConvenienceCallIsOneRequest() async throws {
        _ = try await database.save(parties())
        XCTAssertEqual(server.requestCount, 1)
        _ = try await database.subscription(for: "parties")
        _ = try await database.subscriptions(for: ["parties", "missing"])
        _ = try await database.allSubscriptions()
        _ = try await database.modifySubscriptions(saving: [everything()], deleting: [])
        try await database.deleteSubscription(withID: "everything")
        XCTAssertEqual(server.requestCount, 6)
        XCTAssertEqual(server.requestLog.map(\.endpoint), [.modifySubscriptions, .lookupSubscriptions, .lookupSubscriptions, .listSubscriptions, .modifySubscriptions, .modifySubscriptions])
        XCTAssertTrue(server.requestLog.allSatisfy { $0.context.qualityOfService == .userInitiated })
    }

    func testSingleItemCallsThrowTheItemsErrorAndBatchCallsReportItPerItem() async throws {
        await assertThrows(.unknownItem) { try await self.database.subscription(for: "missing") }
        await assertThrows(.unknownItem) { try await self.database.deleteSubscription(withID: "missing") }
        let noInfo = CKDatabaseSubscription(subscriptionID: "silent")
        await assertThrows(.invalidArguments) { try await self.database.save(noInfo) }
        let results = try await database.subscriptions(for: ["missing"])
        XCTAssertEqual(results["missing"]?.failureCode, .unknownItem)
        let publicDatabase = database.container.publicCloudDatabase
        await assertThrows(.badDatabase) { try await publicDatabase.save(self.everything()) }
    }

    func testTheCompletionFormsDeliverTheSameResults() async throws {
        let saved = expectation(description: "saved")
        database.save(parties()) { subscription, error in
            XCTAssertEqual(subscription?.subscriptionID, "parties")
            XCTAssertNil(error)
            saved.fulfill()
        }
        await fulfillment(of: [saved], timeout: 10)

        let fetched = expectation(description: "fetched")
        database.fetch(withSubscriptionID: "parties") { subscription, error in
            XCTAssertTrue(subscription is CKQuerySubscription)
            XCTAssertNil(error)
            fetched.fulfill()
        }
        let all = expectation(description: "all")
        database.fetchAllSubscriptions { subscriptions, error in
            XCTAssertEqual(subscriptions?.map(\.subscriptionID), ["parties"])
            XCTAssertNil(error)
            all.fulfill()
        }
        let batch = expectation(description: "batch")
        database.fetch(withSubscriptionIDs: ["parties", "missing"]) { result in
            let results = try? result.get()
            XCTAssertEqual(results?["missing"]?.failureCode, .unknownItem)
            XCTAssertNotNil(try? results?["parties"]?.get())
            batch.fulfill()
        }
        await fulfillment(of: [fetched, all, batch], timeout: 10)

        let modified = expectation(description: "modified")
        database.modifySubscriptions(saving: [everything()], deleting: ["missing"]) { result in
            let (saves, deletes) = (try? result.get()) ?? ([:], [:])
            XCTAssertNotNil(try? saves["everything"]?.get())
            XCTAssertEqual(deletes["missing"]?.failureCode, .unknownItem)
            modified.fulfill()
        }
        await fulfillment(of: [modified], timeout: 10)

        let deleted = expectation(description: "deleted")
        database.delete(withSubscriptionID: "parties") { subscriptionID, error in
            XCTAssertEqual(subscriptionID, "parties")
            XCTAssertNil(error)
            deleted.fulfill()
        }
        await fulfillment(of: [deleted], timeout: 10)
        let missing = expectation(description: "missing")
        database.fetch(withSubscriptionID: "parties") { subscription, error in
            XCTAssertNil(subscription)
            XCTAssertEqual((error as? CKError)?.code, .unknownItem)
            missing.fulfill()
        }
        await fulfillment(of: [missing], timeout: 10)
    }

    func testANoAccountDeviceGetsNotAuthenticated() async {
        let guest = server.container(identifier: identifier, account: nil)
        await assertThrows(.notAuthenticated) { try await guest.publicCloudDatabase.allSubscriptions() }
    }

    @available(*, deprecated)
    func testTheTalksLegacySubscriptionSavesAsAQuerySubscription() async throws {
        let legacy = CKSubscription(recordType: "Party", predicate: NSPredicate(format: "attendees > %@", 10), subscriptionID: "legacy", options: [.firesOnRecordCreation, .firesOnRecordUpdate])
        XCTAssertEqual(legacy.subscriptionType, .query)
        XCTAssertEqual(legacy.subscriptionOptions, [.firesOnRecordCreation, .firesOnRecordUpdate])
        let info = CKNotificationInfo()
        info.alertLocalizationKey = "NEW_PARTY_ALERT_KEY"
        info.shouldBadge = true
        legacy.notificationInfo = info
        let saved = try await database.save(legacy)
        let query = try XCTUnwrap(saved as? CKQuerySubscription)
        XCTAssertEqual(query.querySubscriptionOptions, [.firesOnRecordCreation, .firesOnRecordUpdate])
        XCTAssertEqual(query.recordType, "Party")
        let zoneless = CKSubscription(zoneID: CKRecordZone.ID(zoneName: "Nowhere"), options: [])
        zoneless.notificationInfo = info
        await assertThrows(.zoneNotFound) { try await self.database.save(zoneless) }
    }

    private func assertThrows<T>(_ code: CKError.Code, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> T) async {
        do {
            _ = try await body()
            XCTFail("expected \(code)", file: file, line: line)
        } catch {
            XCTAssertEqual((error as? CKError)?.code, code, "\(error)", file: file, line: line)
        }
    }
}
