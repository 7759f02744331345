import Foundation
import Stratus
import Synchronization
import XCTest

/// Every event a send or a fetch delivers, in CloudKit's order, one at a time, and the
/// `stateUpdate`s that follow the events whose handling changed the state.
final class SyncEngineEventOrderTests: SyncEngineTestCase {
    // MARK: Send

    func testASendDeliversTheZoneChangesThenRecordBatchesOf400ThenDidSend() async throws {
        let a = notesDevice()
        let zone = CKRecordZone(zoneName: "Notes")
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(zone)])
        let ids = noteIDs(444, in: zone.zoneID)
        a.engine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord($0) })

        try await a.engine.sendChanges()

        XCTAssertEqual(a.delegate.names, ["accountChange(signIn)", "willSendChanges", "sentDatabaseChanges", "sentRecordZoneChanges", "sentRecordZoneChanges", "didSendChanges"])
        let sentZones = a.delegate.events.compactMap(\.sentDatabaseChangesPayload)
        XCTAssertEqual(sentZones.first?.savedZones.map(\.zoneID), [zone.zoneID])
        let batches = a.delegate.events.compactMap(\.sentRecordZoneChangesPayload)
        XCTAssertEqual(batches.map(\.savedRecords.count), [400, 44])
        XCTAssertEqual(batches.flatMap(\.savedRecords).map(\.recordID), ids, "the records go in the order they were added")
        XCTAssertTrue(batches.allSatisfy { $0.failedRecordSaves.isEmpty })
        XCTAssertEqual(a.delegate.batchRequests, 3, "asked until the delegate had nothing more")
        XCTAssertTrue(a.engine.state.pendingRecordZoneChanges.isEmpty)
        XCTAssertTrue(a.engine.state.pendingDatabaseChanges.isEmpty)
        XCTAssertEqual(requests(.modifyRecords), 2)
    }

    func testZoneChangesAddedDuringSentRecordZoneChangesAreSentBeforeTheNextBatch() async throws {
        let a = notesDevice()
        let notes = CKRecordZone(zoneName: "Notes")
        let extra = CKRecordZone(zoneName: "Extra")
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(notes)])
        a.engine.state.add(pendingRecordZoneChanges: noteIDs(444, in: notes.zoneID).map { .saveRecord($0) })
        let added = Mutex(false)
        a.delegate.onEvent = { event, engine in
            guard case .sentRecordZoneChanges = event, !added.withLock({ $0 }) else { return }
            added.withLock { $0 = true }
            engine.state.add(pendingDatabaseChanges: [.saveZone(extra)])
        }

        try await a.engine.sendChanges()

        XCTAssertEqual(a.delegate.names, ["accountChange(signIn)", "willSendChanges", "sentDatabaseChanges", "sentRecordZoneChanges", "sentDatabaseChanges", "sentRecordZoneChanges", "didSendChanges"])
        let sentZones = a.delegate.events.compactMap(\.sentDatabaseChangesPayload)
        XCTAssertEqual(sentZones.map { $0.savedZones.map(\.zoneID) }, [[notes.zoneID], [extra.zoneID]])
        XCTAssertEqual(a.delegate.events.compactMap(\.sentRecordZoneChangesPayload).map(\.savedRecords.count), [400, 44])
        let zones = try await a.container.privateCloudDatabase.allRecordZones().map(\.zoneID)
        XCTAssertTrue(zones.contains(extra.zoneID))
    }

    // MARK: Fetch

    func testAFetchDeliversDatabaseChangesThenEachZoneBetweenWillAndDidThenDidFetch() async throws {
        let zones = try await seedNotes(zones: ["Z1", "Z2", "Z3"], notesPerZone: 3)
        let b = notesDevice()

        try await b.engine.fetchChanges()

        let names = b.delegate.names
        XCTAssertEqual(Array(names.prefix(3)), ["accountChange(signIn)", "willFetchChanges", "fetchedDatabaseChanges"])
        XCTAssertEqual(names.last, "didFetchChanges")
        XCTAssertEqual(Array(names.dropFirst(3).dropLast()), Array(repeating: ["willFetchRecordZoneChanges", "fetchedRecordZoneChanges", "didFetchRecordZoneChanges"], count: 3).flatMap { $0 })
        let changedZones = b.delegate.events.compactMap(\.fetchedDatabaseChangesPayload).flatMap(\.modifications).map(\.zoneID)
        XCTAssertEqual(Set(changedZones), Set(zones))
        // Each zone's records come between its own will and did.
        var current: CKRecordZone.ID?
        var fetchedByZone: [CKRecordZone.ID: Int] = [:]
        for event in b.delegate.events {
            switch event {
            case .willFetchRecordZoneChanges(let will):
                XCTAssertNil(current, "a zone starts only after the previous one ended")
                current = will.zoneID
            case .fetchedRecordZoneChanges(let fetched):
                for modification in fetched.modifications {
                    XCTAssertEqual(modification.record.recordID.zoneID, current)
                    fetchedByZone[modification.record.recordID.zoneID, default: 0] += 1
                }
            case .didFetchRecordZoneChanges(let did):
                XCTAssertEqual(did.zoneID, current)
                XCTAssertNil(did.error)
                current = nil
            default:
                break
            }
        }
        XCTAssertEqual(fetchedByZone, Dictionary(uniqueKeysWithValues: zones.map { ($0, 3) }))
        XCTAssertTrue(b.engine.state.zoneIDsWithUnfetchedServerChanges.isEmpty)
    }

    func testPrioritizedZonesAreFetchedFirstInTheGivenOrder() async throws {
        let zones = try await seedNotes(zones: ["Z1", "Z2", "Z3"], notesPerZone: 1)
        let b = notesDevice()
        var options = CKSyncEngine.FetchChangesOptions()
        options.prioritizedZoneIDs = [zones[2], zones[0]]

        try await b.engine.fetchChanges(options)

        XCTAssertEqual(b.delegate.fetchedZoneOrder, [zones[2], zones[0], zones[1]])
    }

    func testTheDelegatesFetchOptionsReorderTheZonesAsTheFetchGoes() async throws {
        let zones = try await seedNotes(zones: ["Z1", "Z2", "Z3"], notesPerZone: 1)
        let b = notesDevice()
        b.delegate.fetchOptions = { context in
            var options = context.options
            options.prioritizedZoneIDs = [zones[1], zones[2]]
            return options
        }

        try await b.engine.fetchChanges()

        XCTAssertEqual(b.delegate.fetchedZoneOrder, [zones[1], zones[2], zones[0]])
        XCTAssertGreaterThanOrEqual(b.delegate.fetchOptionRequests, 3, "asked before each zone's request")
    }

    func testAFetchScopedToSomeZonesLeavesTheOthersUnfetchedForTheNextFetch() async throws {
        let zones = try await seedNotes(zones: ["Z1", "Z2", "Z3"], notesPerZone: 2)
        let b = notesDevice()

        try await b.engine.fetchChanges(.init(scope: .zoneIDs([zones[1]])))

        XCTAssertEqual(b.delegate.fetchedZoneOrder, [zones[1]])
        XCTAssertEqual(Set(b.engine.state.zoneIDsWithUnfetchedServerChanges), [zones[0], zones[2]])
        XCTAssertEqual(b.delegate.fetchedRecordIDs.count, 2)

        b.delegate.clearEvents()
        let databaseFetches = requests(.databaseChanges)
        try await b.engine.fetchChanges()

        XCTAssertEqual(Set(b.delegate.fetchedZoneOrder), [zones[0], zones[2]])
        XCTAssertFalse(b.delegate.names.contains("fetchedDatabaseChanges"), "no zone changed since the first fetch")
        XCTAssertEqual(requests(.databaseChanges), databaseFetches + 1)
        XCTAssertEqual(b.delegate.fetchedRecordIDs.count, 4)
        XCTAssertTrue(b.engine.state.zoneIDsWithUnfetchedServerChanges.isEmpty)
    }

    // MARK: One at a time, and all before returning

    func testEventsAndDelegateCallsNeverOverlapEvenWithConcurrentSyncsAndAppChanges() async throws {
        let zones = try await seedNotes(zones: ["Z1", "Z2"], notesPerZone: 30)
        let b = notesDevice()
        let overlaps = Mutex(0)
        let active = Mutex(0)
        let enter: @Sendable () async -> Void = {
            if active.withLock({ value -> Int in value += 1; return value }) > 1 { overlaps.withLock { $0 += 1 } }
            for _ in 0..<3 { await Task.yield() }
            active.withLock { $0 -= 1 }
        }
        b.delegate.onEvent = { _, _ in await enter() }
        b.delegate.onBatchRequest = { _ in await enter() }
        b.delegate.onFetchOptionsRequest = enter
        let mine = CKRecordZone(zoneName: "Mine")
        b.engine.state.add(pendingDatabaseChanges: [.saveZone(mine)])
        let engine = b.engine
        let ids = noteIDs(30, in: mine.zoneID)

        async let fetched: Void = engine.fetchChanges()
        async let sent: Void = engine.sendChanges()
        async let edits: Void = {
            for id in ids {
                engine.state.add(pendingRecordZoneChanges: [.saveRecord(id)])
                await Task.yield()
            }
        }()
        _ = try await (fetched, sent, edits)
        try await engine.sendChanges()

        XCTAssertEqual(overlaps.withLock { $0 }, 0)
        XCTAssertEqual(active.withLock { $0 }, 0)
        XCTAssertTrue(Set(b.delegate.fetchedRecordIDs.map(\.zoneID)).isSuperset(of: zones))
        XCTAssertTrue(engine.state.pendingRecordZoneChanges.isEmpty)
        XCTAssertGreaterThan(b.delegate.events.count, 15)
    }

    func testSendAndFetchReturnOnlyAfterTheDelegateHandledEveryEvent() async throws {
        _ = try await seedNotes(zones: ["Z1"], notesPerZone: 5)
        let b = notesDevice()
        let zone = CKRecordZone(zoneName: "Mine")
        let ids = noteIDs(3, in: zone.zoneID)
        let started = Mutex(0)
        let finished = Mutex<[String]>([])
        b.delegate.onEvent = { event, engine in
            started.withLock { $0 += 1 }
            if case .accountChange = event {
                // Changes added inside an event, as Apple's sample does on sign-in.
                engine.state.add(pendingDatabaseChanges: [.saveZone(zone)])
                engine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord($0) })
            }
            for _ in 0..<5 { await Task.yield() }
            finished.withLock { $0.append(ContactStore.name(of: event)) }
        }

        try await b.engine.fetchChanges()
        XCTAssertEqual(finished.withLock { $0.count }, started.withLock { $0 })
        XCTAssertEqual(finished.withLock { $0 }.filter { $0 != "stateUpdate" }.last, "didFetchChanges")
        XCTAssertEqual(b.delegate.fetchedRecordIDs.count, 5)

        try await b.engine.sendChanges()
        XCTAssertEqual(finished.withLock { $0.count }, started.withLock { $0 })
        XCTAssertEqual(finished.withLock { $0 }.filter { $0 != "stateUpdate" }.last, "didSendChanges")
        XCTAssertEqual(b.delegate.events.compactMap(\.sentRecordZoneChangesPayload).flatMap(\.savedRecords).map(\.recordID), ids)
    }

    // MARK: stateUpdate

    func testTheStateUpdateAfterAnEventHoldsThePendingChangesTheDelegateAddedInIt() async throws {
        let a = notesDevice()
        let zone = CKRecordZone(zoneName: "Notes")
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(zone)])
        let ids = noteIDs(444, in: zone.zoneID)
        a.engine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord($0) })
        let late = CKRecord.ID(recordName: "late", zoneID: zone.zoneID)
        let added = Mutex(false)
        a.delegate.onEvent = { event, engine in
            guard case .sentRecordZoneChanges = event, !added.withLock({ $0 }) else { return }
            added.withLock { $0 = true }
            engine.state.add(pendingRecordZoneChanges: [.saveRecord(late)])
        }

        try await a.engine.sendChanges()

        let events = a.delegate.events
        let firstSent = try XCTUnwrap(events.firstIndex { $0.sentRecordZoneChangesPayload != nil })
        guard case .stateUpdate(let update) = events[firstSent + 1] else {
            return XCTFail("expected a stateUpdate right after the first sentRecordZoneChanges, got \(events[firstSent + 1])")
        }
        let restored = restoredPending(update.stateSerialization)
        XCTAssertEqual(restored, ids.suffix(44).map { .saveRecord($0) } + [.saveRecord(late)],
                       "the sent 400 are gone, the rest and the change added in the handler are there")
        XCTAssertTrue(a.engine.state.pendingRecordZoneChanges.isEmpty, "the late change went out in the second batch")
        XCTAssertEqual(events.compactMap(\.sentRecordZoneChangesPayload).map(\.savedRecords.count), [400, 45])
    }

    func testEveryStateChangeOfASyncIsFollowedByAStateUpdateBeforeTheNextEvent() async throws {
        let a = notesDevice()
        let zone = CKRecordZone(zoneName: "Notes")
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(zone)])
        a.engine.state.add(pendingRecordZoneChanges: noteIDs(3, in: zone.zoneID).map { .saveRecord($0) })

        try await a.engine.sendChanges()

        // The sign-in (user recorded), each sent request (pending removed) and the send's end
        // change the state: a stateUpdate follows each of them.
        let names = a.delegate.events.map(ContactStore.name(of:))
        for event in ["accountChange(signIn)", "sentDatabaseChanges", "sentRecordZoneChanges"] {
            let index = try XCTUnwrap(names.firstIndex(of: event), event)
            XCTAssertEqual(names[index + 1], "stateUpdate", "after \(event): \(names)")
        }
        guard case .stateUpdate(let last)? = a.delegate.events.last(where: { $0.isStateUpdate }) else { return XCTFail("no stateUpdate") }
        XCTAssertEqual(restoredPending(last.stateSerialization), [])
        XCTAssertEqual(names.last, "didSendChanges", "didSendChanges changed nothing, so no stateUpdate follows it")
    }

    func testAnAppChangeOutsideAnyEventIsReportedByAStateUpdate() async throws {
        let a = notesDevice()
        try await a.engine.fetchChanges()
        a.delegate.clearEvents()
        let updated = expectation(description: "stateUpdate")
        a.delegate.onEvent = { event, _ in if event.isStateUpdate { updated.fulfill() } }
        let id = CKRecord.ID(recordName: "n", zoneID: CKRecordZone.ID(zoneName: "Notes"))

        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id)])

        await fulfillment(of: [updated], timeout: 10)
        guard case .stateUpdate(let update)? = a.delegate.events.first else { return XCTFail("no stateUpdate") }
        XCTAssertEqual(restoredPending(update.stateSerialization), [.saveRecord(id)])
    }

    // MARK: Nothing to do

    func testASendWithNothingPendingDeliversNoEvent() async throws {
        let a = notesDevice()
        try await a.engine.fetchChanges()
        a.delegate.clearEvents()

        try await a.engine.sendChanges()

        XCTAssertEqual(a.delegate.events.map(ContactStore.name(of:)), [])
        XCTAssertEqual(a.delegate.batchRequests, 0)
    }

    func testASendWithNothingPendingInItsScopeDeliversNoEvent() async throws {
        let a = notesDevice()
        try await a.engine.fetchChanges()
        let pending = CKRecord.ID(recordName: "n", zoneID: CKRecordZone.ID(zoneName: "Notes"))
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(pending)])
        a.delegate.clearEvents()

        try await a.engine.sendChanges(.init(scope: .zoneIDs([CKRecordZone.ID(zoneName: "Other")])))
        try await a.engine.sendChanges(.init(scope: .recordIDs([CKRecord.ID(recordName: "x", zoneID: pending.zoneID)])))

        XCTAssertEqual(a.delegate.names, [])
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [.saveRecord(pending)])
    }

    func testAFreshEngineWithNothingPendingOnlyReportsTheSignIn() async throws {
        let a = notesDevice()

        try await a.engine.sendChanges()

        XCTAssertEqual(a.delegate.names, ["accountChange(signIn)"])
        XCTAssertEqual(requests(.modifyRecords), 0)
        XCTAssertEqual(requests(.modifyZones), 0)
    }

    // MARK: Descriptions

    func testEveryEventDescribesWhatHappened() async throws {
        let a = notesDevice()
        let zone = CKRecordZone(zoneName: "Notes")
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(zone)])
        a.engine.state.add(pendingRecordZoneChanges: noteIDs(3, in: zone.zoneID).map { .saveRecord($0) })
        try await a.engine.sendChanges()
        let b = notesDevice()
        try await b.engine.fetchChanges()
        let user = try await b.container.userRecordID()

        var seen: Set<String> = []
        for event in a.delegate.events + b.delegate.events {
            let text = event.description
            let name = ContactStore.name(of: event)
            seen.insert(name.components(separatedBy: "(").first ?? name)
            switch event {
            case .stateUpdate: XCTAssertEqual(text, "StateUpdate")
            case .accountChange: XCTAssertEqual(text, "AccountChange(signIn currentUser=\(user.recordName))")
            case .fetchedDatabaseChanges: XCTAssertEqual(text, "FetchedDatabaseChanges(modifications=1, deletions=0)")
            case .fetchedRecordZoneChanges: XCTAssertEqual(text, "FetchedRecordZoneChanges(modifications=3, deletions=0)")
            case .sentDatabaseChanges: XCTAssertEqual(text, "SentDatabaseChanges(savedZones=1, failedZoneSaves=0, deletedZoneIDs=0, failedZoneDeletes=0)")
            case .sentRecordZoneChanges: XCTAssertEqual(text, "SentRecordZoneChanges(savedRecords=3, failedRecordSaves=0, deletedRecordIDs=0, failedRecordDeletes=0)")
            case .willFetchChanges: XCTAssertEqual(text, "WillFetchChanges(manual)")
            case .willFetchRecordZoneChanges: XCTAssertEqual(text, "WillFetchRecordZoneChanges(Notes)")
            case .didFetchRecordZoneChanges: XCTAssertEqual(text, "DidFetchRecordZoneChanges(Notes)")
            case .didFetchChanges: XCTAssertEqual(text, "DidFetchChanges(manual)")
            case .willSendChanges: XCTAssertEqual(text, "WillSendChanges(manual)")
            case .didSendChanges: XCTAssertEqual(text, "DidSendChanges(manual)")
            @unknown default: XCTFail("unknown event \(text)")
            }
        }
        XCTAssertEqual(seen.count, 12, "every event case was delivered: \(seen.sorted())")
    }

    func testFailedItemsAndFetchErrorsAreNamedInTheirDescriptions() async throws {
        let server = self.server!
        let a = notesDevice()
        try await a.engine.fetchChanges()   // signed in, subscription made
        let notes = CKRecordZone(zoneName: "Notes")

        // A zone save the server refuses.
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(notes)])
        server.failNextRequests(1, with: .quotaExceeded)
        do { try await a.engine.sendChanges() } catch {}
        let failedZone = try XCTUnwrap(a.delegate.events.compactMap(\.sentDatabaseChangesPayload).last?.failedZoneSaves.first)
        XCTAssertEqual(failedZone.description, "FailedZoneSave(Notes: \(CKError.Code.quotaExceeded.title))")

        // A record save that meets a newer server copy.
        _ = try await seedNotes(zones: ["Notes"], notesPerZone: 1)
        let id = CKRecord.ID(recordName: "n0000", zoneID: notes.zoneID)
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id)])
        do { try await a.engine.sendChanges() } catch {}
        let failedSave = try XCTUnwrap(a.delegate.events.compactMap(\.sentRecordZoneChangesPayload).last?.failedRecordSaves.first)
        XCTAssertEqual(failedSave.description, "FailedRecordSave(n0000: \(CKError.Code.serverRecordChanged.title))")

        // A zone whose fetch fails: the request after the database changes is refused.
        let armed = Mutex(true)
        a.delegate.onFetchOptionsRequest = {
            if armed.withLock({ value in defer { value = false }; return value }) { server.failNextRequests(1, with: .zoneBusy) }
        }
        do { try await a.engine.fetchChanges() } catch {}
        let did = try XCTUnwrap(a.delegate.events.last { if case .didFetchRecordZoneChanges = $0 { true } else { false } })
        XCTAssertEqual(did.description, "DidFetchRecordZoneChanges(Notes, error=\(CKError.Code.zoneBusy.title))")
    }
}
