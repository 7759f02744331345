import Foundation
import Stratus
import Synchronization
import XCTest

/// What an engine does on its own with `automaticallySync`, on the server's manual clock;
/// that it does nothing without; cancellation; and engines sharing one database object.
final class SyncEngineAutomaticTests: SyncEngineTestCase {
    private let notes = CKRecordZone.ID(zoneName: "Notes")
    private func id(_ name: String) -> CKRecord.ID { CKRecord.ID(recordName: name, zoneID: notes) }

    /// Waits for the next event `matching` of `delegate` after `trigger` ran.
    private func waitForEvent(of delegate: RecordingNotesDelegate, _ description: String, matching: @escaping @Sendable (CKSyncEngine.Event) -> Bool, after trigger: () -> Void) async {
        let seen = expectation(description: description)
        let fulfilled = Mutex(false)
        delegate.onEvent = { event, _ in
            guard matching(event), !fulfilled.withLock({ value in defer { value = true }; return value }) else { return }
            seen.fulfill()
        }
        trigger()
        await fulfillment(of: [seen], timeout: 10)
        delegate.onEvent = nil
    }

    private static func isDidFetch(_ event: CKSyncEngine.Event) -> Bool {
        if case .didFetchChanges = event { return true }
        return false
    }

    private static func isDidSend(_ event: CKSyncEngine.Event) -> Bool {
        if case .didSendChanges = event { return true }
        return false
    }

    /// An automatic engine of `account` that has run the sync it schedules at its start
    /// (sign-in, subscription, fetch) and is idle.
    private func startedAutomaticDevice(_ account: String = "john") async throws -> (container: CKContainer, delegate: RecordingNotesDelegate, engine: CKSyncEngine) {
        let device = notesDevice(account, automaticallySync: true)
        await waitForEvent(of: device.delegate, "first fetch", matching: Self.isDidFetch) { clock.advance(by: 0) }
        // A manual fetch waits for the scheduled sync to end, so nothing is under way after it.
        try await device.engine.fetchChanges()
        device.delegate.clearEvents()
        return device
    }

    // MARK: Automatic sync

    func testAnAutomaticEngineStartsWithAFetchAtTheNextClockTick() async throws {
        try await seedNotes(zones: ["Notes"], notesPerZone: 2)
        let b = notesDevice(automaticallySync: true)
        XCTAssertEqual(b.delegate.events.count, 0, "nothing happens before the clock moves")

        await waitForEvent(of: b.delegate, "first fetch", matching: Self.isDidFetch) { clock.advance(by: 0) }

        XCTAssertEqual(Array(b.delegate.names.prefix(2)), ["accountChange(signIn)", "willFetchChanges"])
        XCTAssertEqual(b.delegate.fetchedRecordIDs.count, 2)
        guard case .willFetchChanges(let will)? = b.delegate.events.first(where: { if case .willFetchChanges = $0 { true } else { false } }) else {
            return XCTFail("no willFetchChanges")
        }
        XCTAssertEqual(will.context.reason, .scheduled)
    }

    func testAPendingChangeIsSentOneSecondAfterItWasAddedAndNotBefore() async throws {
        let a = try await startedAutomaticDevice()
        let reader = server.container(identifier: identifier, account: "john").privateCloudDatabase
        let modifiesBefore = requests(.modifyRecords)

        await waitForEvent(of: a.delegate, "didSendChanges", matching: Self.isDidSend) {
            a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
            a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("n1")), .saveRecord(id("n2"))])
            clock.advance(by: 0.5)
            XCTAssertEqual(requests(.modifyRecords), modifiesBefore, "not sent before a second has passed")
            XCTAssertEqual(a.delegate.names.filter { $0.contains("Send") }, [])
            clock.advance(by: 0.5)
        }

        XCTAssertEqual(requests(.modifyRecords), modifiesBefore + 1, "both changes in one request")
        let saved = try await reader.record(for: id("n2"))
        XCTAssertEqual(saved["title"] as? String, "n2")
        XCTAssertTrue(a.engine.state.pendingRecordZoneChanges.isEmpty)
        let will = a.delegate.events.compactMap { event -> CKSyncEngine.SendChangesContext? in
            if case .willSendChanges(let will) = event { return will.context }
            return nil
        }
        XCTAssertEqual(will.map(\.reason), [.scheduled])
    }

    func testAPushForAnotherDevicesChangeMakesTheEngineFetchOnItsOwn() async throws {
        let b = try await startedAutomaticDevice()
        let a = notesDevice()
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("n1")), .saveRecord(id("n2"))])
        try await a.engine.sendChanges()

        await server.deliverPendingPushes()
        XCTAssertFalse(server.pushLog(for: b.container).isEmpty, "the engine's subscription fired for b")
        XCTAssertEqual(b.delegate.names, [], "the fetch waits for the clock")
        await waitForEvent(of: b.delegate, "fetch after the push", matching: Self.isDidFetch) { clock.advance(by: 0) }

        XCTAssertEqual(Set(b.delegate.fetchedRecordIDs), [id("n1"), id("n2")])
        XCTAssertEqual(b.delegate.names.first, "willFetchChanges")
    }

    func testWithoutAutomaticSyncNothingHappensOnItsOwn() async throws {
        let b = notesDevice()
        try await b.engine.fetchChanges()   // signed in, subscription made
        let a = notesDevice()
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("n1"))])
        try await a.engine.sendChanges()
        b.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("mine"))])
        let requestsBefore = server.requestCount
        b.delegate.clearEvents()

        await server.deliverPendingPushes()
        clock.advance(by: 3600)
        await server.deliverPendingPushes()

        XCTAssertTrue(server.pushLog(for: b.container).isEmpty, "it does not even listen for pushes")
        XCTAssertEqual(server.requestCount, requestsBefore)
        XCTAssertEqual(b.delegate.names, [])
        XCTAssertEqual(b.engine.state.pendingRecordZoneChanges, [.saveRecord(id("mine"))])
        XCTAssertEqual(b.delegate.fetchedRecordIDs, [])
    }

    // MARK: Cancellation

    /// Makes the delegate's first batch request wait until `latch` opens, and fulfills
    /// `entered` when it starts waiting.
    private func blockFirstBatch(of delegate: RecordingNotesDelegate, until latch: Latch, entered: XCTestExpectation) {
        let first = Mutex(true)
        delegate.onBatchRequest = { _ in
            guard first.withLock({ value in defer { value = false }; return value }) else { return }
            entered.fulfill()
            await latch.wait()
        }
    }

    private func assertCancelled(_ task: Task<Void, any Error>, line: UInt = #line) async {
        do {
            try await task.value
            XCTFail("the send was cancelled", line: line)
        } catch let error as CKError {
            XCTAssertEqual(error.code, .operationCancelled, "\(error)", line: line)
        } catch {
            XCTFail("expected operationCancelled, got \(error)", line: line)
        }
    }

    func testCancelOperationsDuringASendKeepsItsChangesPending() async throws {
        // Automatic, so a scheduled sync waits on the clock: cancelOperations() cancels it
        // before it stops the send, which lets the test see that the cancellation has begun.
        let a = notesDevice(automaticallySync: true)
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        let ids = noteIDs(5, in: notes)
        a.engine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord($0) })
        let latch = Latch()
        let entered = expectation(description: "batch requested")
        blockFirstBatch(of: a.delegate, until: latch, entered: entered)
        let engine = a.engine
        let sending = Task { try await engine.sendChanges() }
        await fulfillment(of: [entered], timeout: 10)
        let timers = clock.pendingActionCount

        let cancelling = Task { await engine.cancelOperations() }
        while clock.pendingActionCount == timers { await Task.yield() }   // the scheduled sync is cancelled
        latch.open()
        await cancelling.value

        await assertCancelled(sending)
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, ids.map { .saveRecord($0) }, "nothing was sent, everything stays pending")
        XCTAssertEqual(requests(.modifyRecords), 0)
        XCTAssertEqual(a.delegate.names, ["accountChange(signIn)", "willSendChanges", "sentDatabaseChanges", "sentRecordZoneChanges", "didSendChanges"])
        let cancelled = try XCTUnwrap(a.delegate.events.compactMap(\.sentRecordZoneChangesPayload).first)
        XCTAssertEqual(cancelled.failedRecordSaves.map(\.error.code), Array(repeating: .operationCancelled, count: 5), "the batch the delegate gave is reported cancelled")
        XCTAssertEqual(cancelled.savedRecords.count, 0)

        try await a.engine.sendChanges()
        XCTAssertTrue(a.engine.state.pendingRecordZoneChanges.isEmpty, "the next send sends them")
        XCTAssertEqual(a.delegate.events.compactMap(\.sentRecordZoneChangesPayload).last?.savedRecords.map(\.recordID), ids)
    }

    func testCancellingTheCallingTaskDuringASendKeepsItsChangesPending() async throws {
        let a = notesDevice()
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("n1"))])
        let latch = Latch()
        let entered = expectation(description: "batch requested")
        blockFirstBatch(of: a.delegate, until: latch, entered: entered)
        let engine = a.engine
        let sending = Task { try await engine.sendChanges() }
        await fulfillment(of: [entered], timeout: 10)

        sending.cancel()
        latch.open()

        await assertCancelled(sending)
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [.saveRecord(id("n1"))])
        XCTAssertEqual(requests(.modifyRecords), 0)
    }

    // MARK: Engines sharing a database object

    func testEnginesSharingOneDatabaseObjectKeepSeparateStates() async throws {
        let container = server.container(identifier: identifier, account: "john")
        let database = container.privateCloudDatabase
        let delegates = [RecordingNotesDelegate(), RecordingNotesDelegate()]
        let engines = delegates.map { delegate in
            var configuration = CKSyncEngine.Configuration(database: database, stateSerialization: nil, delegate: delegate)
            configuration.automaticallySync = false
            return CKSyncEngine(configuration)
        }
        XCTAssertTrue(engines[0].database === engines[1].database)
        let other = CKRecordZone.ID(zoneName: "Other")
        engines[0].state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        engines[0].state.add(pendingRecordZoneChanges: [.saveRecord(id("from0"))])
        engines[1].state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: other))])
        engines[1].state.add(pendingRecordZoneChanges: [.saveRecord(CKRecord.ID(recordName: "from1", zoneID: other))])
        XCTAssertEqual(engines[1].state.pendingRecordZoneChanges.count, 1, "one engine's changes are not the other's")

        async let first: Void = engines[0].sendChanges()
        async let second: Void = engines[1].sendChanges()
        _ = try await (first, second)

        XCTAssertEqual(delegates[0].events.compactMap(\.sentRecordZoneChangesPayload).flatMap(\.savedRecords).map(\.recordID), [id("from0")])
        XCTAssertEqual(delegates[1].events.compactMap(\.sentRecordZoneChangesPayload).flatMap(\.savedRecords).map(\.recordID.recordName), ["from1"])
        XCTAssertTrue(engines.allSatisfy { $0.state.pendingRecordZoneChanges.isEmpty })

        // Each fetches with its own tokens: engine 0 fetches both, then only what is new.
        try await engines[0].fetchChanges()
        XCTAssertEqual(Set(delegates[0].fetchedRecordIDs.map(\.recordName)), ["from0", "from1"])
        delegates[0].clearEvents()
        engines[1].state.add(pendingRecordZoneChanges: [.saveRecord(CKRecord.ID(recordName: "later", zoneID: other))])
        try await engines[1].sendChanges()
        try await engines[0].fetchChanges()
        XCTAssertEqual(delegates[0].fetchedRecordIDs.map(\.recordName), ["later"])
        XCTAssertEqual(delegates[1].fetchedRecordIDs, [], "engine 1 has not fetched")
    }
}

/// A gate a task waits at until the test opens it; opening first lets the wait pass at once.
private final class Latch: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Returns once the latch is open.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state -> Bool in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Opens the latch and lets every waiter go.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}
