import Foundation
import Stratus
import Synchronization
import XCTest
import _StratusTestSupport

/// The engine's state: how pending changes combine, untracked changes, the batches built from
/// pending changes, the scopes, and serializations that survive JSON and restore an engine
/// that goes on where the last one stopped.
final class SyncEngineStateTests: SyncEngineTestCase {
    private let notes = CKRecordZone.ID(zoneName: "Notes")
    private func id(_ name: String) -> CKRecord.ID { CKRecord.ID(recordName: name, zoneID: notes) }

    // MARK: Pending changes

    func testARepeatedSaveKeepsItsFirstPlace() {
        let state = notesDevice().engine.state
        state.add(pendingRecordZoneChanges: [.saveRecord(id("a")), .saveRecord(id("b"))])
        state.add(pendingRecordZoneChanges: [.saveRecord(id("a"))])
        XCTAssertEqual(state.pendingRecordZoneChanges, [.saveRecord(id("a")), .saveRecord(id("b"))])
    }

    func testTheLastChangeOfARecordWinsAndMovesToTheEnd() {
        let state = notesDevice().engine.state
        state.add(pendingRecordZoneChanges: [.saveRecord(id("a")), .saveRecord(id("b")), .deleteRecord(id("a"))])
        XCTAssertEqual(state.pendingRecordZoneChanges, [.saveRecord(id("b")), .deleteRecord(id("a"))], "save then delete: the delete")
        state.add(pendingRecordZoneChanges: [.deleteRecord(id("c")), .saveRecord(id("c"))])
        XCTAssertEqual(state.pendingRecordZoneChanges, [.saveRecord(id("b")), .deleteRecord(id("a")), .saveRecord(id("c"))], "delete then save: the save")
        state.add(pendingRecordZoneChanges: [.saveRecord(id("a"))])
        XCTAssertEqual(state.pendingRecordZoneChanges, [.saveRecord(id("b")), .saveRecord(id("c")), .saveRecord(id("a"))])
    }

    func testZoneChangesCombineAlikeAndASaveTakesTheNewZoneInPlace() throws {
        let state = notesDevice().engine.state
        let first = CKRecordZone(zoneID: notes)
        let other = CKRecordZone(zoneName: "Other")
        let second = CKRecordZone(zoneID: notes)
        state.add(pendingDatabaseChanges: [.saveZone(first), .saveZone(other), .saveZone(second)])
        XCTAssertEqual(state.pendingDatabaseChanges, [.saveZone(first), .saveZone(other)])
        guard case .saveZone(let kept)? = state.pendingDatabaseChanges.first else { return XCTFail("no zone save") }
        XCTAssertTrue(kept === second, "the later zone object replaces the earlier one in its place")

        state.add(pendingDatabaseChanges: [.deleteZone(notes)])
        XCTAssertEqual(state.pendingDatabaseChanges, [.saveZone(other), .deleteZone(notes)], "save then delete: the delete")
        state.add(pendingDatabaseChanges: [.deleteZone(other.zoneID), .saveZone(other)])
        XCTAssertEqual(state.pendingDatabaseChanges, [.deleteZone(notes), .saveZone(other)], "delete then save: the save")
    }

    func testRemovingTakesOutOnlyThatChange() {
        let state = notesDevice().engine.state
        state.add(pendingRecordZoneChanges: [.saveRecord(id("a")), .deleteRecord(id("b"))])
        state.remove(pendingRecordZoneChanges: [.deleteRecord(id("a")), .saveRecord(id("b"))])
        XCTAssertEqual(state.pendingRecordZoneChanges, [.saveRecord(id("a")), .deleteRecord(id("b"))], "not the other kind of change")
        state.remove(pendingRecordZoneChanges: [.saveRecord(id("a")), .saveRecord(id("unknown"))])
        XCTAssertEqual(state.pendingRecordZoneChanges, [.deleteRecord(id("b"))])

        state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes)), .deleteZone(CKRecordZone.ID(zoneName: "Old"))])
        state.remove(pendingDatabaseChanges: [.deleteZone(notes)])
        XCTAssertEqual(state.pendingDatabaseChanges.count, 2)
        state.remove(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        XCTAssertEqual(state.pendingDatabaseChanges, [.deleteZone(CKRecordZone.ID(zoneName: "Old"))], "any zone object with the ID removes the save")
    }

    func testAChangeReAddedWhileItsRequestIsOnItsWayStaysPending() async throws {
        let a = notesDevice()
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        try await a.engine.sendChanges()
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("a"))])
        server.delayNextRequests(1, by: 5)
        let engine = a.engine
        let sending = Task { try await engine.sendChanges() }
        while requests(.modifyRecords) == 0 { await Task.yield() }   // the save is on its way

        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("a"))])   // edited again
        clock.advance(by: 5)
        try await sending.value

        XCTAssertEqual(a.delegate.events.compactMap(\.sentRecordZoneChangesPayload).flatMap(\.savedRecords).map(\.recordID), [id("a")],
                       "one send does not send the same record twice")
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [.saveRecord(id("a"))], "the edit made during the request is still to send")
        try await a.engine.sendChanges()
        XCTAssertTrue(a.engine.state.pendingRecordZoneChanges.isEmpty)
    }

    // MARK: Untracked changes

    func testUntrackedChangesMakeTheEngineAskForBatchesAndAreClearedOnceTheDelegateHasNoMore() async throws {
        let a = notesDevice()
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        try await a.engine.sendChanges()
        let outbox = Mutex([CKRecord(recordType: "Note", recordID: id("u1")), CKRecord(recordType: "Note", recordID: id("u2"))])
        a.delegate.batchProvider = { _, _ in
            let records = outbox.withLock { records in defer { records = [] }; return records }
            return records.isEmpty ? nil : CKSyncEngine.RecordZoneChangeBatch(recordsToSave: records)
        }
        a.delegate.clearEvents()

        a.engine.state.hasPendingUntrackedChanges = true
        XCTAssertTrue(a.engine.state.pendingRecordZoneChanges.isEmpty)
        try await a.engine.sendChanges()

        XCTAssertEqual(a.delegate.names, ["willSendChanges", "sentRecordZoneChanges", "didSendChanges"])
        XCTAssertEqual(a.delegate.events.compactMap(\.sentRecordZoneChangesPayload).first?.savedRecords.map(\.recordID), [id("u1"), id("u2")])
        XCTAssertEqual(a.delegate.batchRequests, 2, "asked until it returned nil")
        XCTAssertFalse(a.engine.state.hasPendingUntrackedChanges)

        a.delegate.clearEvents()
        try await a.engine.sendChanges()
        XCTAssertEqual(a.delegate.batchRequests, 0, "cleared: nothing more to ask for")
        XCTAssertEqual(a.delegate.names, [])
    }

    func testUntrackedChangesStayFlaggedWhenTheSendFailed() async throws {
        let a = notesDevice()
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        try await a.engine.sendChanges()
        _ = try await a.container.privateCloudDatabase.save(CKRecord(recordType: "Note", recordID: id("taken")))
        a.delegate.batchProvider = { _, _ in
            CKSyncEngine.RecordZoneChangeBatch(recordsToSave: [CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "taken", zoneID: CKRecordZone.ID(zoneName: "Notes")))])
        }
        a.engine.state.hasPendingUntrackedChanges = true

        do {
            try await a.engine.sendChanges()
            XCTFail("the save of a stale record fails")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .partialFailure)
            XCTAssertEqual((error.partialErrorsByItemID?[id("taken")] as? CKError)?.code, .serverRecordChanged)
        }
        XCTAssertTrue(a.engine.state.hasPendingUntrackedChanges, "the app's changes are not all sent")
    }

    // MARK: Batches built from pending changes

    func testABatchTakesAtMost400ChangesInTheGivenOrder() async throws {
        let changes: [CKSyncEngine.PendingRecordZoneChange] = (0..<450).map { index in
            index.isMultiple(of: 3) ? .deleteRecord(id("r\(index)")) : .saveRecord(id("r\(index)"))
        }
        let made = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { CKRecord(recordType: "Note", recordID: $0) }
        let batch = try XCTUnwrap(made)
        let taken = Array(changes.prefix(400))
        XCTAssertEqual(batch.recordsToSave.map(\.recordID), taken.compactMap { if case .saveRecord(let id) = $0 { id } else { nil } })
        XCTAssertEqual(batch.recordIDsToDelete, taken.compactMap { if case .deleteRecord(let id) = $0 { id } else { nil } })
        XCTAssertFalse(batch.atomicByZone)
    }

    func testABatchStopsBefore2MBOfRecordData() async throws {
        let big = Data(repeating: 7, count: 700_000)
        let records = (0..<5).map { index -> CKRecord in
            let record = CKRecord(recordType: "Note", recordID: id("big\(index)"))
            record["blob"] = big
            return record
        }
        let byID = Dictionary(uniqueKeysWithValues: records.map { ($0.recordID, $0) })
        let made = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: records.map { .saveRecord($0.recordID) }) { byID[$0] }
        let batch = try XCTUnwrap(made)
        XCTAssertEqual(batch.recordsToSave.map(\.recordID), [id("big0"), id("big1")], "a third 700 KB record would pass 2 MB")

        let huge = CKRecord(recordType: "Note", recordID: id("huge"))
        huge["blob"] = Data(repeating: 1, count: 2_500_000)
        let madeAlone = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: [.saveRecord(huge.recordID), .saveRecord(id("small"))]) { id in
            id == huge.recordID ? huge : CKRecord(recordType: "Note", recordID: id)
        }
        let alone = try XCTUnwrap(madeAlone)
        XCTAssertEqual(alone.recordsToSave.map(\.recordID), [huge.recordID], "a record too large for any request goes alone")
    }

    func testTheEnginesBatchesOfLargeRecordsAreAcceptedByTheServer() async throws {
        let a = notesDevice()
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        for index in 0..<5 {
            let record = CKRecord(recordType: "Note", recordID: id("big\(index)"))
            record["blob"] = Data(repeating: UInt8(index), count: 700_000)
            a.delegate.keep(record)
            a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(record.recordID)])
        }

        try await a.engine.sendChanges()

        let batches = a.delegate.events.compactMap(\.sentRecordZoneChangesPayload)
        XCTAssertEqual(batches.map(\.savedRecords.count), [2, 2, 1])
        XCTAssertTrue(batches.allSatisfy { $0.failedRecordSaves.isEmpty })
    }

    func testSavesWithoutARecordAreSkippedAndDoNotCountTowardTheLimit() async throws {
        let asked = Mutex<[CKRecord.ID]>([])
        let missing: Set<CKRecord.ID> = [id("b"), id("r0")]
        let changes: [CKSyncEngine.PendingRecordZoneChange] = [.saveRecord(id("a")), .saveRecord(id("b")), .deleteRecord(id("c")), .saveRecord(id("d"))]
            + (0..<400).map { .saveRecord(id("r\($0)")) }
        let made = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { recordID in
            asked.withLock { $0.append(recordID) }
            return missing.contains(recordID) ? nil : CKRecord(recordType: "Note", recordID: recordID)
        }
        let batch = try XCTUnwrap(made)
        XCTAssertEqual(Array(batch.recordsToSave.prefix(3).map(\.recordID)), [id("a"), id("d"), id("r1")])
        XCTAssertEqual(batch.recordIDsToDelete, [id("c")])
        XCTAssertEqual(batch.recordsToSave.count + batch.recordIDsToDelete.count, 400)
        XCTAssertFalse(asked.withLock { $0 }.contains(id("c")), "a delete needs no record")
    }

    func testNoBatchWhenNothingIsLeftToSend() async {
        let empty = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: []) { CKRecord(recordType: "Note", recordID: $0) }
        XCTAssertNil(empty)
        let allMissing = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: [.saveRecord(id("a")), .saveRecord(id("b"))]) { _ in nil }
        XCTAssertNil(allMissing)
    }

    func testASaveWhoseRecordIsGoneStaysPendingUntilTheAppRemovesIt() async throws {
        let a = notesDevice()
        let zone = CKRecordZone(zoneName: "Notes")
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(zone)])
        let ghost = CKRecord.ID(recordName: "ghost", zoneID: zone.zoneID)
        let bozo = CKRecord.ID(recordName: "bozo", zoneID: zone.zoneID)
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(ghost), .saveRecord(bozo)])
        a.delegate.batchProvider = { _, engine in
            await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: engine.state.pendingRecordZoneChanges) { id in
                id == ghost ? nil : CKRecord(recordType: "Note", recordID: id)
            }
        }

        try await a.engine.sendChanges()

        XCTAssertEqual(a.delegate.events.compactMap(\.sentRecordZoneChangesPayload).flatMap(\.savedRecords).map(\.recordID), [bozo])
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [.saveRecord(ghost)], "returning nil does not remove the change")
        a.engine.state.remove(pendingRecordZoneChanges: [.saveRecord(ghost)])
        XCTAssertTrue(a.engine.state.pendingRecordZoneChanges.isEmpty)
    }

    // MARK: Scopes

    func testSendScopesContainTheirRecordsAndPendingChanges() {
        let other = CKRecordZone.ID(zoneName: "Other")
        let inNotes = id("a")
        let inOther = CKRecord.ID(recordName: "a", zoneID: other)
        typealias Scope = CKSyncEngine.SendChangesOptions.Scope
        let cases: [(Scope, notes: Bool, other: Bool)] = [
            (.all, true, true),
            (.allExcluding([notes]), false, true),
            (.zoneIDs([notes]), true, false),
            (.recordIDs([inOther]), false, true),
            (.zoneIDs([]), false, false),
            (.allExcluding([]), true, true),
        ]
        for (scope, containsNotes, containsOther) in cases {
            XCTAssertEqual(scope.contains(inNotes), containsNotes, "\(scope)")
            XCTAssertEqual(scope.contains(inOther), containsOther, "\(scope)")
            XCTAssertEqual(scope.contains(.saveRecord(inNotes)), containsNotes, "\(scope)")
            XCTAssertEqual(scope.contains(.deleteRecord(inOther)), containsOther, "\(scope)")
        }
        XCTAssertFalse(Scope.recordIDs([inOther]).contains(CKRecord.ID(recordName: "b", zoneID: other)), "only the records named")
    }

    func testFetchScopesContainTheirZones() {
        let other = CKRecordZone.ID(zoneName: "Other")
        typealias Scope = CKSyncEngine.FetchChangesOptions.Scope
        XCTAssertTrue(Scope.all.contains(notes))
        XCTAssertFalse(Scope.allExcluding([notes]).contains(notes))
        XCTAssertTrue(Scope.allExcluding([notes]).contains(other))
        XCTAssertTrue(Scope.zoneIDs([notes]).contains(notes))
        XCTAssertFalse(Scope.zoneIDs([notes]).contains(other))
        XCTAssertFalse(Scope.zoneIDs([notes]).contains(CKRecordZone.ID(zoneName: "Notes", ownerName: "_someoneElse")), "zones are told apart by owner too")
    }

    func testASendScopedToAZoneSendsOnlyThatZonesChanges() async throws {
        let a = notesDevice()
        let other = CKRecordZone.ID(zoneName: "Other")
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes)), .saveZone(CKRecordZone(zoneID: other))])
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("a")), .saveRecord(CKRecord.ID(recordName: "b", zoneID: other))])

        try await a.engine.sendChanges(.init(scope: .zoneIDs([notes])))

        XCTAssertEqual(a.delegate.events.compactMap(\.sentDatabaseChangesPayload).flatMap(\.savedZones).map(\.zoneID), [notes])
        XCTAssertEqual(a.delegate.events.compactMap(\.sentRecordZoneChangesPayload).flatMap(\.savedRecords).map(\.recordID), [id("a")])
        XCTAssertEqual(a.engine.state.pendingDatabaseChanges, [.saveZone(CKRecordZone(zoneID: other))])
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [.saveRecord(CKRecord.ID(recordName: "b", zoneID: other))])
    }

    // MARK: Serialization

    /// What an app persists, as Apple's sample keeps it: the serialization inside its own JSON.
    private struct AppData: Codable {
        var stateSerialization: CKSyncEngine.State.Serialization?
        var note: String
    }

    private func throughJSON(_ serialization: CKSyncEngine.State.Serialization) throws -> CKSyncEngine.State.Serialization {
        let data = try JSONEncoder().encode(AppData(stateSerialization: serialization, note: "kept"))
        let decoded = try JSONDecoder().decode(AppData.self, from: data)
        XCTAssertEqual(decoded.note, "kept")
        return try XCTUnwrap(decoded.stateSerialization)
    }

    func testASerializationSurvivesJSONWithEverythingTheStateHolds() async throws {
        let a = notesDevice()
        let other = CKRecordZone.ID(zoneName: "Other")
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes)), .deleteZone(other)])
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("b")), .deleteRecord(id("a")), .saveRecord(CKRecord.ID(recordName: "c", zoneID: other))])
        a.engine.state.hasPendingUntrackedChanges = true
        try await a.engine.fetchChanges()   // its stateUpdates carry everything added before
        let serialization = try XCTUnwrap(a.delegate.lastSerialization)
        let original = restoredState(try throughJSON(serialization))

        XCTAssertEqual(original.pendingDatabaseChanges, a.engine.state.pendingDatabaseChanges)
        XCTAssertEqual(original.pendingRecordZoneChanges, a.engine.state.pendingRecordZoneChanges)
        XCTAssertTrue(original.hasPendingUntrackedChanges)
        // Sorted keys: an unsorted JSON object's key order may differ between two encodings of one value.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let first = try encoder.encode(AppData(stateSerialization: try throughJSON(serialization), note: ""))
        let second = try encoder.encode(AppData(stateSerialization: try throughJSON(try throughJSON(serialization)), note: ""))
        XCTAssertEqual(first, second, "encoding is stable across round trips")
    }

    func testAnEngineRestoredFromASerializationTakenMidSendSendsWhatWasLeft() async throws {
        let server = self.server!
        let a = device()
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: a.store.zoneID))])
        for index in 0..<444 { a.store.save("Clown \(index)", as: String(format: "c%04d", index), engine: a.engine) }
        let captured = Mutex<CKSyncEngine.State.Serialization?>(nil)
        let sawBatch = Mutex(false)
        let container = a.container
        let armed = Mutex(true)
        a.store.onEvent = { event in
            guard armed.withLock({ $0 }) else { return }
            switch event {
            case .sentRecordZoneChanges:
                // The app is killed after the first batch: its requests stop reaching the server.
                sawBatch.withLock { $0 = true }
                server.setOffline(true, for: container)
            case .stateUpdate(let update) where sawBatch.withLock({ $0 }):
                captured.withLock { $0 = $0 ?? update.stateSerialization }
            default:
                break
            }
        }
        do {
            try await a.engine.sendChanges()
            XCTFail("the second batch cannot reach the server")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .networkUnavailable)
        }
        armed.withLock { $0 = false }
        let saved = try throughJSON(try XCTUnwrap(captured.withLock { $0 }))
        XCTAssertEqual(restoredPending(saved).count, 44)

        // The app starts again, with its data and the serialization it saved.
        a.store.clearEvents()
        let relaunched = device(store: a.store, serialization: saved)
        try await relaunched.engine.sendChanges()

        XCTAssertEqual(a.store.events.filter { $0 != "stateUpdate" }, ["willSendChanges", "sentRecordZoneChanges", "didSendChanges"], "no account change, no zone save: it goes on")
        XCTAssertEqual(a.store.lastSent?.savedRecords.count, 44)
        XCTAssertEqual(a.store.lastSent?.failedRecordSaves.count, 0)
        XCTAssertTrue(relaunched.engine.state.pendingRecordZoneChanges.isEmpty)
        let reader = device()
        try await reader.engine.fetchChanges()
        XCTAssertEqual(reader.store.names.count, 444)
    }

    func testAnEngineRestoredFromASerializationTakenMidFetchFetchesOnlyWhatItHadNotYet() async throws {
        let zones = try await seedNotes(zones: ["Z1", "Z2"], notesPerZone: 5)
        let b = notesDevice()
        let captured = Mutex<CKSyncEngine.State.Serialization?>(nil)
        let sawZone = Mutex(false)
        b.delegate.onEvent = { event, _ in
            switch event {
            case .fetchedRecordZoneChanges: sawZone.withLock { $0 = true }
            case .stateUpdate(let update) where sawZone.withLock({ $0 }): captured.withLock { $0 = $0 ?? update.stateSerialization }
            default: break
            }
        }
        var options = CKSyncEngine.FetchChangesOptions()
        options.prioritizedZoneIDs = [zones[0]]
        try await b.engine.fetchChanges(options)
        let saved = try throughJSON(try XCTUnwrap(captured.withLock { $0 }))
        XCTAssertEqual(restoredState(saved).zoneIDsWithUnfetchedServerChanges, [zones[1]])

        let relaunched = notesDevice(serialization: saved)
        let zoneFetches = requests(.recordChanges)
        try await relaunched.engine.fetchChanges()

        XCTAssertEqual(relaunched.delegate.names, ["willFetchChanges", "willFetchRecordZoneChanges", "fetchedRecordZoneChanges", "didFetchRecordZoneChanges", "didFetchChanges"])
        XCTAssertEqual(relaunched.delegate.fetchedZoneOrder, [zones[1]])
        XCTAssertEqual(Set(relaunched.delegate.fetchedRecordIDs), Set(noteIDs(5, in: zones[1])))
        XCTAssertEqual(requests(.recordChanges), zoneFetches + 1)

        // Its tokens are kept too: the next fetch brings only what changed since.
        try await seedNotes(zones: ["Z1"], notesPerZone: 1, prefix: "new")
        relaunched.delegate.clearEvents()
        try await relaunched.engine.fetchChanges()
        XCTAssertEqual(relaunched.delegate.fetchedRecordIDs, [CKRecord.ID(recordName: "new0000", zoneID: zones[0])])
    }

    // MARK: Damaged serializations

    /// The blob inside a serialization's JSON (a base64 string).
    private func blob(of serialization: CKSyncEngine.State.Serialization) throws -> Data {
        let json = try JSONEncoder().encode([serialization])
        let strings = try JSONDecoder().decode([String].self, from: json)
        return try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(strings.first)))
    }

    private func decode(blob: Data) throws -> CKSyncEngine.State.Serialization {
        try decode(json: try JSONEncoder().encode([blob.base64EncodedString()]))
    }

    private func decode(json: Data) throws -> CKSyncEngine.State.Serialization {
        let decoded = try JSONDecoder().decode([CKSyncEngine.State.Serialization].self, from: json)
        guard decoded.count == 1 else { throw CKError(.internalError) }
        return decoded[0]
    }

    private func assertDecodingError(_ body: @autoclosure () throws -> CKSyncEngine.State.Serialization, _ message: String, line: UInt = #line) {
        XCTAssertThrowsError(try body(), message, line: line) { error in
            XCTAssertTrue(error is DecodingError, "\(message): \(type(of: error)) \(error)", line: line)
        }
    }

    private func sampleSerialization() async throws -> CKSyncEngine.State.Serialization {
        let a = notesDevice()
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("a")), .deleteRecord(id("b"))])
        try await a.engine.fetchChanges()   // its stateUpdates carry everything added before
        return try XCTUnwrap(a.delegate.lastSerialization)
    }

    func testTheSampleBlobDecodes() async throws {
        let valid = try blob(of: try await sampleSerialization())
        XCTAssertEqual(restoredPending(try decode(blob: valid)), [.saveRecord(id("a")), .deleteRecord(id("b"))])
    }

    func testTruncatedSerializationsAreDecodingErrors() async throws {
        let valid = try blob(of: try await sampleSerialization())
        for length in [0, 1, 3, 4, 5, 6, valid.count / 2, valid.count - 1] {
            assertDecodingError(try decode(blob: valid.prefix(length)), "blob cut to \(length) bytes")
        }
        let json = try JSONEncoder().encode([try await sampleSerialization()])
        for length in [0, 1, json.count / 2, json.count - 1] {
            assertDecodingError(try decode(json: json.prefix(length)), "JSON cut to \(length) bytes")
        }
    }

    func testEveryFlippedByteIsADecodingError() async throws {
        let valid = try blob(of: try await sampleSerialization())
        for index in valid.indices {
            var damaged = valid
            damaged[index] ^= 0xFF
            assertDecodingError(try decode(blob: damaged), "byte \(index) flipped")
        }
    }

    func testAForeignMagicOrVersionIsADecodingError() async throws {
        let valid = try blob(of: try await sampleSerialization())
        var magic = valid
        magic.replaceSubrange(magic.startIndex..<magic.startIndex + 4, with: Data("KSKE".utf8))
        assertDecodingError(try decode(blob: magic), "wrong magic")
        for version: UInt8 in [0, 2, 255] {
            var other = valid
            other[other.startIndex + 4] = version
            assertDecodingError(try decode(blob: other), "version \(version)")
        }
        let body = valid.dropFirst(5)
        assertDecodingError(try decode(blob: Data("SKSE".utf8) + Data([1]) + Data("{}".utf8)), "a body without the state's fields")
        let emptyZone = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\"Notes\"", with: "\"\"")
        assertDecodingError(try decode(blob: Data("SKSE".utf8) + Data([1]) + Data(emptyZone.utf8)), "a zone without a name")
        XCTAssertNoThrow(try decode(blob: Data("SKSE".utf8) + Data([1]) + body), "the same body with the right header decodes")
    }

    func testJSONThatIsNotASerializationIsADecodingError() {
        for text in ["[\"hello\"]", "[\"\"]", "[42]", "[{}]", "[null]", "[[]]", "[true]", "[\"\(Data("hello".utf8).base64EncodedString())\"]"] {
            assertDecodingError(try decode(json: Data(text.utf8)), text)
        }
    }

    func testRandomBytesAreDecodingErrors() {
        var generator = SeededGenerator(seed: 12)
        for round in 0..<500 {
            var bytes = (0..<Int.random(in: 0..<300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if round.isMultiple(of: 2) { bytes = Array("SKSE".utf8) + [1] + bytes }
            assertDecodingError(try decode(blob: Data(bytes)), "random blob \(round)")
        }
    }
}
