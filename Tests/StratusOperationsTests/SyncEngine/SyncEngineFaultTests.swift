import _StratusTestSupport
import Foundation
import Stratus
import XCTest

/// The sync engine under the faults a CloudKit app meets: transient request failures (retried
/// by the engine on the clock, honouring retry-after), conflicts between devices, a zone or
/// record deleted behind the engine's back, expired change tokens, and an engine restored
/// from its serialization in the middle of a send or fetch.
final class SyncEngineFaultTests: SyncEngineTestCase {
    private typealias Device = (container: CKContainer, store: ContactStore, engine: CKSyncEngine)

    // MARK: Transient failures of a send

    func testAManualSendThatFailsTransientlyThrowsAndKeepsItsChangesPending() async throws {
        let a = try await signedInDevice()
        a.store.save("Ann", as: "ann", engine: a.engine)
        a.store.save("Bob", as: "bob", engine: a.engine)
        let server = server!
        a.store.onEvent = { event in
            if case .willSendChanges = event { server.failNextRequests(1, with: .networkFailure) }
        }

        try await assertThrows(.networkFailure) { try await a.engine.sendChanges() }

        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [.saveRecord(id("ann")), .saveRecord(id("bob"))])
        XCTAssertEqual(a.store.lastSent?.failedRecordSaves.map(\.error.code), [.networkFailure, .networkFailure])
        XCTAssertEqual(a.store.events.filter { $0 != "stateUpdate" }.suffix(3), ["willSendChanges", "sentRecordZoneChanges", "didSendChanges"])
        let before = try await serverNames()
        XCTAssertEqual(before, [:])

        a.store.onEvent = nil
        try await a.engine.sendChanges()
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [])
        let after = try await serverNames()
        XCTAssertEqual(after, ["ann": "Ann", "bob": "Bob"])
    }

    func testAnOfflineDeviceKeepsItsChangesUntilItIsBackOnline() async throws {
        let a = try await signedInDevice()
        a.store.save("Ann", as: "ann", engine: a.engine)
        server.setOffline(true, for: a.container)
        try await assertThrows(.networkUnavailable) { try await a.engine.sendChanges() }
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [.saveRecord(id("ann"))])

        server.setOffline(false, for: a.container)
        try await a.engine.sendChanges()
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [])
        let names = try await serverNames()
        XCTAssertEqual(names, ["ann": "Ann"])
    }

    func testTheEngineRetriesAFailedSendItselfAfterABackoffThatDoublesWithEachFailure() async throws {
        let (store, engine) = try await automaticEngine()
        let failures = Captured(2)
        let server = server!
        store.onEvent = { event in
            guard case .willSendChanges = event, failures.value > 0 else { return }
            failures.value -= 1
            server.failNextRequests(1, with: .networkFailure)
        }
        store.save("Ann", as: "ann", engine: engine)

        // Two failures in a row: the retry waits 5 s, then 10 s, even though the send the
        // new change scheduled (1 s) and the engine's first sync (now) were due sooner.
        try await assertThrows(.networkFailure) { try await engine.sendChanges() }
        try await assertThrows(.networkFailure) { try await engine.sendChanges() }
        XCTAssertEqual(engine.state.pendingRecordZoneChanges, [.saveRecord(id("ann"))])
        let requests = server.requestCount
        clock.advance(by: 9)
        XCTAssertEqual(clock.pendingActionCount, 1, "the retry must still wait")
        XCTAssertEqual(server.requestCount, requests)

        let sent = expectEvent("didSendChanges", from: store)
        clock.advance(by: 1)
        await fulfillment(of: [sent], timeout: 10)
        let names = try await serverNames()
        XCTAssertEqual(names, ["ann": "Ann"])
        XCTAssertEqual(engine.state.pendingRecordZoneChanges, [])
    }

    func testAScheduledSendThatFailsIsRetriedByTheEngineAfterFiveSeconds() async throws {
        let (store, engine) = try await automaticEngine()
        let firstSync = expectEvent("didFetchChanges", from: store)
        clock.advance(by: 0)
        await fulfillment(of: [firstSync], timeout: 10)
        try await waitUntilIdle(engine)

        let failures = Captured(1)
        let server = server!
        let failed = expectEvent("didSendChanges", from: store) {
            if case .willSendChanges = $0, failures.value > 0 {
                failures.value -= 1
                server.failNextRequests(1, with: .serviceUnavailable)
            }
        }
        store.save("Ann", as: "ann", engine: engine)
        clock.advance(by: 1)
        await fulfillment(of: [failed], timeout: 10)
        try await waitUntilIdle(engine)
        XCTAssertEqual(store.lastSent?.failedRecordSaves.map(\.error.code), [.serviceUnavailable])
        XCTAssertEqual(engine.state.pendingRecordZoneChanges, [.saveRecord(id("ann"))])

        let requests = server.requestCount
        clock.advance(by: 4)
        XCTAssertEqual(clock.pendingActionCount, 1, "the retry must still wait")
        XCTAssertEqual(server.requestCount, requests)
        let retried = expectEvent("didSendChanges", from: store)
        clock.advance(by: 1)
        await fulfillment(of: [retried], timeout: 10)
        let names = try await serverNames()
        XCTAssertEqual(names, ["ann": "Ann"])
        XCTAssertEqual(engine.state.pendingRecordZoneChanges, [])
    }

    func testARateLimitedSendWaitsForTheServersRetryAfterEvenWhenMoreChangesCome() async throws {
        let (store, engine) = try await automaticEngine()
        let failures = Captured(1)
        let server = server!
        store.onEvent = { event in
            guard case .willSendChanges = event, failures.value > 0 else { return }
            failures.value -= 1
            server.failNextRequests(1, with: .requestRateLimited, retryAfter: 30)
        }
        store.save("Ann", as: "ann", engine: engine)
        let error = try await assertThrows(.requestRateLimited) { try await engine.sendChanges() }
        XCTAssertEqual(error?.retryAfterSeconds, 30)

        let requests = server.requestCount
        clock.advance(by: 10)
        store.save("Bob", as: "bob", engine: engine)   // would send 1 s later, but the server said 30
        clock.advance(by: 19)
        XCTAssertEqual(clock.pendingActionCount, 1, "29 s after the failure the retry must still wait")
        XCTAssertEqual(server.requestCount, requests)

        let sent = expectEvent("didSendChanges", from: store)
        clock.advance(by: 1)
        await fulfillment(of: [sent], timeout: 10)
        let names = try await serverNames()
        XCTAssertEqual(names, ["ann": "Ann", "bob": "Bob"])
        XCTAssertEqual(engine.state.pendingRecordZoneChanges, [])
    }

    // MARK: Transient failures of a fetch

    func testAZoneBusyDuringAFetchLeavesTheZoneUnfetchedUntilTheNextFetch() async throws {
        let a = try await signedInDevice()
        for index in 0..<5 { a.store.save("Clown \(index)", as: "c\(index)", engine: a.engine) }
        try await a.engine.sendChanges()

        let b = device()
        let server = server!
        let failures = Captured(1)
        b.store.onEvent = { event in
            guard case .willFetchRecordZoneChanges = event, failures.value > 0 else { return }
            failures.value -= 1
            server.failNextRequests(1, with: .zoneBusy)
        }
        try await assertThrows(.zoneBusy) { try await b.engine.fetchChanges() }
        XCTAssertEqual(b.store.events.filter { $0 != "stateUpdate" }.suffix(4), [
            "fetchedDatabaseChanges", "willFetchRecordZoneChanges", "didFetchRecordZoneChanges(error)", "didFetchChanges",
        ])
        XCTAssertEqual(b.engine.state.zoneIDsWithUnfetchedServerChanges, [zoneID])
        XCTAssertEqual(b.store.names, [:])

        try await b.engine.fetchChanges()
        XCTAssertEqual(b.engine.state.zoneIDsWithUnfetchedServerChanges, [])
        XCTAssertEqual(b.store.names, a.store.names)
        XCTAssertEqual(b.store.names.count, 5)
    }

    func testTheEngineFetchesAgainItselfAfterAFetchFailedTransiently() async throws {
        let a = try await signedInDevice()
        for index in 0..<3 { a.store.save("Clown \(index)", as: "c\(index)", engine: a.engine) }
        try await a.engine.sendChanges()

        let b = device(automaticallySync: true)
        let server = server!
        let failures = Captured(1)
        let firstSync = expectEvent("didFetchChanges", from: b.store) {
            guard case .willFetchRecordZoneChanges = $0, failures.value > 0 else { return }
            failures.value -= 1
            server.failNextRequests(1, with: .serviceUnavailable)
        }
        clock.advance(by: 0)
        await fulfillment(of: [firstSync], timeout: 10)
        try await waitUntilIdle(b.engine)
        XCTAssertEqual(b.engine.state.zoneIDsWithUnfetchedServerChanges, [zoneID])
        XCTAssertEqual(b.store.names, [:])

        // The sign-in's zone save asked for a send 1 s later; the backoff comes first.
        clock.advance(by: 4)
        XCTAssertEqual(clock.pendingActionCount, 1, "the retry must still wait")
        let retried = expectEvent("didSendChanges", from: b.store)
        clock.advance(by: 1)
        await fulfillment(of: [retried], timeout: 10)
        XCTAssertEqual(b.engine.state.zoneIDsWithUnfetchedServerChanges, [])
        XCTAssertEqual(b.store.names, a.store.names)
        XCTAssertTrue(b.store.events.contains("didFetchRecordZoneChanges"))
    }

    // MARK: Expired change tokens

    func testAZoneTokenOlderThanTheServersHistoryIsDroppedAndTheZoneFetchedAgain() async throws {
        server.changeHistoryLimit = 0
        let a = try await signedInDevice()
        for index in 0..<20 { a.store.save("Clown \(index)", as: "c\(index)", engine: a.engine) }
        try await a.engine.sendChanges()
        let b = device()
        try await b.engine.fetchChanges()
        XCTAssertEqual(b.store.names.count, 20)
        let oldToken = try await reader().privateCloudDatabase.recordZoneChanges(inZoneWith: zoneID, since: nil).changeToken

        for index in 0..<17 { a.store.delete("c\(index)", engine: a.engine) }
        a.store.save("Renamed", as: "c17", engine: a.engine)
        try await a.engine.sendChanges()
        // The server dropped the tombstones: a fetch from before them has expired.
        do {
            _ = try await reader().privateCloudDatabase.recordZoneChanges(inZoneWith: zoneID, since: oldToken)
            XCTFail("the server kept the history; the test proves nothing")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .changeTokenExpired)
        }

        let fetched = Captured<[Int]>([])
        b.store.clearEvents()
        b.store.onEvent = { event in
            if case .fetchedRecordZoneChanges(let changes) = event { fetched.value.append(changes.modifications.count) }
        }
        try await b.engine.fetchChanges()
        XCTAssertFalse(b.store.events.contains("didFetchRecordZoneChanges(error)"))
        XCTAssertEqual(fetched.value.reduce(0, +), 3, "the zone is fetched again from the beginning")
        XCTAssertEqual(b.store.names["c17"], "Renamed")
        XCTAssertEqual(b.store.names["c19"], "Clown 19")
        // A later fetch goes on from the new token.
        a.store.save("Again", as: "c18", engine: a.engine)
        try await a.engine.sendChanges()
        fetched.value = []
        try await b.engine.fetchChanges()
        XCTAssertEqual(fetched.value, [1])
        XCTAssertEqual(b.store.names["c18"], "Again")
    }

    func testAZoneDeletedAndCreatedAgainBetweenTwoFetchesIsFetchedFromTheBeginning() async throws {
        let a = try await signedInDevice()
        for index in 0..<3 { a.store.save("Clown \(index)", as: "c\(index)", engine: a.engine) }
        try await a.engine.sendChanges()
        let b = device()
        try await b.engine.fetchChanges()
        XCTAssertEqual(b.store.names.count, 3)

        let database = reader().privateCloudDatabase
        _ = try await database.modifyRecordZones(saving: [], deleting: [zoneID])
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
        let record = CKRecord(recordType: "Contact", recordID: id("new"))
        record["name"] = "Newcomer"
        _ = try await database.save(record)

        b.store.clearEvents()
        try await b.engine.fetchChanges()
        XCTAssertFalse(b.store.events.contains("didFetchRecordZoneChanges(error)"), "\(b.store.events)")
        XCTAssertEqual(b.store.names["new"], "Newcomer")
        XCTAssertEqual(b.engine.state.zoneIDsWithUnfetchedServerChanges, [])
    }

    // MARK: Conflicts

    func testConflictWhenTheOtherDeviceSendsFirstTheClientWins() async throws {
        try await checkConflict(firstSender: 0, clientWins: true)
    }

    func testConflictWhenThisDeviceSendsFirstTheClientWins() async throws {
        try await checkConflict(firstSender: 1, clientWins: true)
    }

    func testConflictResolvedWithTheServersRecord() async throws {
        try await checkConflict(firstSender: 0, clientWins: false)
    }

    func testConflictResolvedWithTheServersRecordTheOtherWayRound() async throws {
        try await checkConflict(firstSender: 1, clientWins: false)
    }

    /// Two devices rename the same contact; `firstSender` (0: A, 1: B) sends first and wins
    /// the race; the other meets `serverRecordChanged` and resolves it its delegate's way.
    private func checkConflict(firstSender: Int, clientWins: Bool, file: StaticString = #filePath, line: UInt = #line) async throws {
        let a = try await signedInDevice()
        a.store.save("Ann", as: "ann", engine: a.engine)
        try await a.engine.sendChanges()
        let b = device()
        try await b.engine.fetchChanges()
        try await b.engine.sendChanges()   // the sign-in's zone save
        XCTAssertEqual(b.store.names, ["ann": "Ann"], file: file, line: line)

        let devices = [a, b]
        let first = devices[firstSender]
        let second = devices[1 - firstSender]
        second.store.clientWins = clientWins
        first.store.save("Ann (first)", as: "ann", engine: first.engine)
        second.store.save("Ann (second)", as: "ann", engine: second.engine)

        try await first.engine.sendChanges()
        let winner = try XCTUnwrap(first.store.lastSent?.savedRecords.first, file: file, line: line)

        second.store.clearEvents()
        let logged = server.requestLog.count
        let error = try await assertThrows(.partialFailure, file: file, line: line) { try await second.engine.sendChanges() }
        let itemError = error?.partialErrorsByItemID?[id("ann")] as? CKError
        XCTAssertEqual(itemError?.code, .serverRecordChanged, file: file, line: line)
        XCTAssertEqual(error?.partialErrorsByItemID?.count, 1, file: file, line: line)
        let failure = try XCTUnwrap(second.store.lastSent?.failedRecordSaves.first, file: file, line: line)
        XCTAssertEqual(second.store.lastSent?.failedRecordSaves.count, 1, file: file, line: line)
        XCTAssertEqual(failure.record.recordID, id("ann"), file: file, line: line)
        XCTAssertEqual(failure.error.code, .serverRecordChanged, file: file, line: line)
        let serverRecord = try XCTUnwrap(failure.error.serverRecord, "the conflict carries the server's record", file: file, line: line)
        XCTAssertEqual(serverRecord["name"] as? String, "Ann (first)", file: file, line: line)
        XCTAssertEqual(serverRecord.recordType, "Contact", file: file, line: line)
        XCTAssertEqual(serverRecord.recordChangeTag, winner.recordChangeTag, file: file, line: line)
        XCTAssertNotNil(serverRecord.recordChangeTag, file: file, line: line)
        // What failed is not sent again within the same call.
        XCTAssertEqual(server.requestLog.dropFirst(logged).filter { $0.endpoint == .modifyRecords }.count, 1, file: file, line: line)
        XCTAssertEqual(second.store.events.filter { $0 != "stateUpdate" }, ["willSendChanges", "sentRecordZoneChanges", "didSendChanges"], file: file, line: line)

        let expected: String
        if clientWins {
            XCTAssertEqual(second.engine.state.pendingRecordZoneChanges, [.saveRecord(id("ann"))], "the delegate sends its resolution again", file: file, line: line)
            try await second.engine.sendChanges()
            XCTAssertEqual(second.store.lastSent?.savedRecords.map(\.recordID), [id("ann")], file: file, line: line)
            expected = "Ann (second)"
        } else {
            XCTAssertEqual(second.engine.state.pendingRecordZoneChanges, [], file: file, line: line)
            XCTAssertEqual(second.store.names, ["ann": "Ann (first)"], file: file, line: line)
            expected = "Ann (first)"
        }
        XCTAssertEqual(second.engine.state.pendingRecordZoneChanges, [], file: file, line: line)
        try await a.engine.fetchChanges()
        try await b.engine.fetchChanges()
        let names = try await serverNames()
        XCTAssertEqual(names, ["ann": expected], file: file, line: line)
        XCTAssertEqual(a.store.names, names, file: file, line: line)
        XCTAssertEqual(b.store.names, names, file: file, line: line)
        let tag = try await reader().privateCloudDatabase.record(for: id("ann")).recordChangeTag
        XCTAssertEqual(a.store.record(for: id("ann"))?.recordChangeTag, tag, file: file, line: line)
        XCTAssertEqual(b.store.record(for: id("ann"))?.recordChangeTag, tag, file: file, line: line)
    }

    // MARK: Deleted behind the engine's back

    func testAZoneDeletedByAnotherDeviceIsCreatedAgainByTheDelegateAndTheNextSendSucceeds() async throws {
        let a = try await signedInDevice()
        a.store.save("Ann", as: "ann", engine: a.engine)
        a.store.save("Bob", as: "bob", engine: a.engine)
        try await a.engine.sendChanges()
        _ = try await reader().privateCloudDatabase.modifyRecordZones(saving: [], deleting: [zoneID])

        a.store.save("Ann Again", as: "ann", engine: a.engine)
        a.store.save("Cid", as: "cid", engine: a.engine)
        let error = try await assertThrows(.partialFailure) { try await a.engine.sendChanges() }
        XCTAssertEqual(Set((error?.partialErrorsByItemID ?? [:]).keys), [AnyHashable(id("ann")), AnyHashable(id("cid"))])
        XCTAssertEqual(a.store.lastSent?.failedRecordSaves.map(\.error.code), [.zoneNotFound, .zoneNotFound])
        XCTAssertEqual(a.engine.state.pendingDatabaseChanges, [.saveZone(CKRecordZone(zoneID: zoneID))])
        XCTAssertEqual(Set(a.engine.state.pendingRecordZoneChanges), [.saveRecord(id("ann")), .saveRecord(id("cid"))])

        a.store.clearEvents()
        try await a.engine.sendChanges()
        XCTAssertEqual(a.store.events.filter { $0 != "stateUpdate" }, ["willSendChanges", "sentDatabaseChanges", "sentRecordZoneChanges", "didSendChanges"])
        XCTAssertEqual(a.engine.state.pendingDatabaseChanges, [])
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [])
        let names = try await serverNames()
        XCTAssertEqual(names, ["ann": "Ann Again", "cid": "Cid"])
    }

    func testAnotherDeviceSeesTheZoneDeletionWipesItsContactsAndLaterFetchesTheNewZone() async throws {
        let a = try await signedInDevice()
        a.store.save("Ann", as: "ann", engine: a.engine)
        try await a.engine.sendChanges()
        let b = device()
        try await b.engine.fetchChanges()
        XCTAssertEqual(b.store.names, ["ann": "Ann"])

        a.engine.state.add(pendingDatabaseChanges: [.deleteZone(zoneID)])
        try await a.engine.sendChanges()
        let deletions = Captured<[CKDatabase.DatabaseChange.Deletion]>([])
        b.store.onEvent = { event in
            if case .fetchedDatabaseChanges(let changes) = event { deletions.value += changes.deletions }
        }
        try await b.engine.fetchChanges()
        XCTAssertEqual(deletions.value.map(\.zoneID), [zoneID])
        XCTAssertEqual(deletions.value.map(\.reason), [.deleted])
        XCTAssertEqual(b.store.names, [:])
        XCTAssertEqual(b.engine.state.zoneIDsWithUnfetchedServerChanges, [])

        // A creates the zone again through its delegate's recovery; B fetches it anew.
        a.store.save("Zed", as: "zed", engine: a.engine)
        try await assertThrows(.partialFailure) { try await a.engine.sendChanges() }
        XCTAssertEqual(a.store.lastSent?.failedRecordSaves.map(\.error.code), [.zoneNotFound])
        try await a.engine.sendChanges()
        b.store.clearEvents()
        try await b.engine.fetchChanges()
        XCTAssertFalse(b.store.events.contains("didFetchRecordZoneChanges(error)"))
        let names = try await serverNames()
        XCTAssertEqual(names, ["zed": "Zed"])
        XCTAssertEqual(b.store.names, names)
    }

    func testAZonePurgedByTheUserIsReportedAsPurgedAndWiped() async throws {
        let a = try await signedInDevice()
        a.store.save("Ann", as: "ann", engine: a.engine)
        try await a.engine.sendChanges()
        let b = device()
        try await b.engine.fetchChanges()
        XCTAssertEqual(b.store.names, ["ann": "Ann"])

        XCTAssertTrue(server.purgeZone(named: zoneID.zoneName, account: "john", containerIdentifier: identifier))
        let deletions = Captured<[CKDatabase.DatabaseChange.Deletion]>([])
        b.store.onEvent = { event in
            if case .fetchedDatabaseChanges(let changes) = event { deletions.value += changes.deletions }
        }
        try await b.engine.fetchChanges()
        XCTAssertEqual(deletions.value.map(\.reason), [.purged])
        XCTAssertEqual(b.store.names, [:])

        // A send into the purged zone fails with userDeletedZone, which the delegate (as
        // Apple's headers advise) does not answer by uploading again.
        a.store.save("Ann Again", as: "ann", engine: a.engine)
        let error = try await assertThrows(.partialFailure) { try await a.engine.sendChanges() }
        XCTAssertEqual((error?.partialErrorsByItemID?[id("ann")] as? CKError)?.code, .userDeletedZone)
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [])
        XCTAssertEqual(a.engine.state.pendingDatabaseChanges, [])
    }

    func testARecordDeletedByAnotherDeviceIsUploadedAgainByTheDelegate() async throws {
        let a = try await signedInDevice()
        a.store.save("Ann", as: "ann", engine: a.engine)
        a.store.save("Bob", as: "bob", engine: a.engine)
        try await a.engine.sendChanges()
        _ = try await reader().privateCloudDatabase.modifyRecords(saving: [], deleting: [id("ann")])

        a.store.save("Ann Again", as: "ann", engine: a.engine)
        let error = try await assertThrows(.partialFailure) { try await a.engine.sendChanges() }
        XCTAssertEqual(Array((error?.partialErrorsByItemID ?? [:]).keys), [AnyHashable(id("ann"))])
        XCTAssertEqual(a.store.lastSent?.failedRecordSaves.map(\.error.code), [.unknownItem])
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [.saveRecord(id("ann"))])

        try await a.engine.sendChanges()
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [])
        let names = try await serverNames()
        XCTAssertEqual(names, ["ann": "Ann Again", "bob": "Bob"])
    }

    // MARK: Restored engines

    func testAnEngineRestoredAfterTheFirstOfTwoBatchesSendsOnlyTheRest() async throws {
        let a = try await signedInDevice()
        let server = server!
        let failures = Captured(1)
        a.store.onEvent = { event in
            guard case .sentRecordZoneChanges = event, failures.value > 0 else { return }
            failures.value -= 1
            server.failNextRequests(1, with: .networkFailure)   // the second batch's request
        }
        for index in 0..<500 { a.store.save("Clown \(index)", as: "c\(index)", engine: a.engine) }
        try await assertThrows(.networkFailure) { try await a.engine.sendChanges() }
        let sentFirst = try await serverNames()
        XCTAssertEqual(sentFirst.count, 400)

        // The app quits; it saved the serialization as JSON with its data.
        let saved = try JSONEncoder().encode(try XCTUnwrap(a.store.serialization))
        let serialization = try JSONDecoder().decode(CKSyncEngine.State.Serialization.self, from: saved)
        a.store.onEvent = nil
        a.store.clearEvents()
        let restored = engine(on: a.container, store: a.store, serialization: serialization)
        XCTAssertEqual(restored.state.pendingRecordZoneChanges.count, 100)
        XCTAssertEqual(Set(restored.state.pendingRecordZoneChanges), Set((400..<500).map { CKSyncEngine.PendingRecordZoneChange.saveRecord(id("c\($0)")) }))

        let logged = server.requestLog.count
        try await restored.sendChanges()
        let modifies = server.requestLog.dropFirst(logged).filter { $0.endpoint == .modifyRecords }
        XCTAssertEqual(modifies.count, 1)
        XCTAssertEqual(a.store.lastSent?.savedRecords.count, 100)
        XCTAssertEqual(a.store.events.filter { $0 != "stateUpdate" }, ["willSendChanges", "sentRecordZoneChanges", "didSendChanges"], "no account change for the same user")
        XCTAssertEqual(restored.state.pendingRecordZoneChanges, [])
        let names = try await serverNames()
        XCTAssertEqual(names.count, 500)
        XCTAssertEqual(names, a.store.names)
    }

    func testAnEngineRestoredFromItsSerializationFetchesOnlyWhatChangedSince() async throws {
        let a = try await signedInDevice()
        for index in 0..<5 { a.store.save("Clown \(index)", as: "c\(index)", engine: a.engine) }
        try await a.engine.sendChanges()
        let b = device()
        try await b.engine.fetchChanges()
        let serialization = try XCTUnwrap(b.store.serialization)

        for index in 5..<8 { a.store.save("Clown \(index)", as: "c\(index)", engine: a.engine) }
        a.store.save("Renamed", as: "c0", engine: a.engine)
        try await a.engine.sendChanges()

        let fetched = Captured<[String]>([])
        b.store.clearEvents()
        b.store.onEvent = { event in
            if case .fetchedRecordZoneChanges(let changes) = event { fetched.value += changes.modifications.map(\.record.recordID.recordName) }
        }
        let restored = engine(on: b.container, store: b.store, serialization: serialization)
        try await restored.fetchChanges()
        XCTAssertEqual(Set(fetched.value), ["c0", "c5", "c6", "c7"])
        XCTAssertFalse(b.store.events.contains { $0.hasPrefix("accountChange") })
        XCTAssertEqual(b.store.names, a.store.names)
        XCTAssertEqual(b.store.names.count, 8)
    }

    // MARK: Helpers

    private var zoneID: CKRecordZone.ID { CKRecordZone.ID(zoneName: "Contacts") }

    private func id(_ name: String) -> CKRecord.ID {
        CKRecord.ID(recordName: name, zoneID: zoneID)
    }

    /// A device that has signed in (its engine has met its user and made its subscription)
    /// and created the contacts zone.
    private func signedInDevice() async throws -> Device {
        let device = device()
        try await device.engine.sendChanges()   // the sign-in adds the zone save
        XCTAssertEqual(device.engine.state.pendingDatabaseChanges, [])
        device.store.clearEvents()
        return device
    }

    /// An engine that syncs automatically on a signed-in device, restored from that device's
    /// state, with a store of its own. Its first sync is scheduled but has not run.
    private func automaticEngine() async throws -> (store: ContactStore, engine: CKSyncEngine) {
        let setup = try await signedInDevice()
        let store = ContactStore()
        let engine = engine(on: setup.container, store: store, serialization: setup.store.serialization, automaticallySync: true)
        return (store, engine)
    }

    private func engine(on container: CKContainer, store: ContactStore, serialization: CKSyncEngine.State.Serialization?, automaticallySync: Bool = false) -> CKSyncEngine {
        var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: serialization, delegate: store)
        configuration.automaticallySync = automaticallySync
        return CKSyncEngine(configuration)
    }

    /// Another device of the account, for looking at the server or changing it directly.
    private func reader() -> CKContainer {
        server.container(identifier: identifier, account: "john")
    }

    /// The contacts on the server, by record name.
    private func serverNames() async throws -> [String: String] {
        let database = reader().privateCloudDatabase
        var names: [String: String] = [:]
        var token: CKServerChangeToken?
        while true {
            let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
            for case (let recordID, .success(let modification)) in changes.modificationResultsByID {
                names[recordID.recordName] = modification.record["name"] as? String
            }
            for deletion in changes.deletions { names[deletion.recordID.recordName] = nil }
            token = changes.changeToken
            if !changes.moreComing { return names }
        }
    }

    /// Returns once whatever sync the engine is running has finished: a manual send of
    /// nothing waits its turn behind it.
    private func waitUntilIdle(_ engine: CKSyncEngine) async throws {
        try await engine.sendChanges(CKSyncEngine.SendChangesOptions(scope: .recordIDs([])))
    }

    /// An expectation fulfilled when `store` has handled an event named `name`; `also` sees
    /// every event first.
    private func expectEvent(_ name: String, from store: ContactStore, also: (@Sendable (CKSyncEngine.Event) -> Void)? = nil) -> XCTestExpectation {
        let expectation = expectation(description: name)
        expectation.assertForOverFulfill = false
        store.onEvent = { event in
            also?(event)
            if ContactStore.name(of: event) == name { expectation.fulfill() }
        }
        return expectation
    }

    /// Runs `body`, which must throw a `CKError` with `code`; returns the error.
    @discardableResult
    private func assertThrows(_ code: CKError.Code, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> Void) async throws -> CKError? {
        do {
            try await body()
            XCTFail("expected \(code)", file: file, line: line)
            return nil
        } catch let error as CKError {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            return error
        }
    }
}
