import Foundation
import Stratus
import Synchronization
import XCTest

/// A participant keeps the owner's shared records with `CKSyncEngine` on their shared
/// database, and the owner's and participant's changes travel both ways.
final class SharedDatabaseSyncTests: SharedDatabaseTestCase {
    /// A participant's local copy of shared records, by name, kept by the engine's events.
    private final class SharedStore: CKSyncEngineDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var records: [String: String] = [:]
        private var zones: Set<String> = []

        var titles: [String: String] { lock.withLock { records } }
        var zoneOwners: Set<String> { lock.withLock { zones } }

        func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
            lock.withLock {
                switch event {
                case .fetchedDatabaseChanges(let changes):
                    for modification in changes.modifications { zones.insert(modification.zoneID.ownerName) }
                    for deletion in changes.deletions {
                        zones.remove(deletion.zoneID.ownerName)
                        records = [:]
                    }
                case .fetchedRecordZoneChanges(let changes):
                    for modification in changes.modifications {
                        records[modification.record.recordID.recordName] = (modification.record["title"] as? String) ?? (modification.record["name"] as? String) ?? ""
                    }
                    for deletion in changes.deletions { records[deletion.recordID.recordName] = nil }
                default:
                    break
                }
            }
        }

        func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
            nil
        }
    }

    func testAParticipantsEngineFetchesTheSharedZoneAndFollowsTheOwnersChanges() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let store = SharedStore()
        var configuration = CKSyncEngine.Configuration(database: mary.sharedCloudDatabase, stateSerialization: nil, delegate: store)
        configuration.automaticallySync = false
        let engine = CKSyncEngine(configuration)

        try await engine.fetchChanges()

        let owner = try await john.userRecordID().recordName
        XCTAssertEqual(store.zoneOwners, [owner])
        XCTAssertEqual(store.titles["party"], "Big Top Bash")
        XCTAssertEqual(Set(store.titles.keys), ["party", "ann", "ben", share.recordID.recordName])
        XCTAssertNil(store.titles["diary"], "nothing the share does not cover")

        let party = try await john.privateCloudDatabase.record(for: recordID("party"))
        party["title"] = "Moved to Friday"
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [party], deleting: [recordID("ben")])
        try await engine.fetchChanges()
        XCTAssertEqual(store.titles["party"], "Moved to Friday")
        XCTAssertNil(store.titles["ben"])

        _ = try await john.privateCloudDatabase.modifyRecords(saving: [], deleting: [share.recordID])
        try await engine.fetchChanges()
        XCTAssertTrue(store.zoneOwners.isEmpty, "the zone left mary's shared database")
    }

    func testAParticipantsEngineGetsTheRecordsOfASecondShareOfTheSameZone() async throws {
        try await seedParty()
        try await seedPicnic()
        let party = try await share(with: ["mary@example.com"])
        try await accept(party.url, as: mary)
        let store = SharedStore()
        var configuration = CKSyncEngine.Configuration(database: mary.sharedCloudDatabase, stateSerialization: nil, delegate: store)
        configuration.automaticallySync = false
        let engine = CKSyncEngine(configuration)
        try await engine.fetchChanges()
        XCTAssertNil(store.titles["cake"])

        // The cake was saved before the engine's token; the token expires with the new share
        // and the engine fetches the zone again from the start.
        let outing = try await share("picnic", with: ["mary@example.com"])
        try await accept(outing.url, as: mary)
        try await engine.fetchChanges()

        XCTAssertEqual(store.titles["cake"], "Cake")
        XCTAssertEqual(store.titles["picnic"], "Picnic")
        XCTAssertEqual(store.titles["ann"], "ann")
    }

    func testAParticipantsEngineSendsWritesIntoTheOwnersZone() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"], permission: .readWrite)
        try await accept(share.url, as: mary)
        let sharedZoneID = try await sharedZoneID()
        let cleo = CKRecord(recordType: "Attendee", recordID: CKRecord.ID(recordName: "cleo", zoneID: sharedZoneID))
        cleo["name"] = "Cleo"
        cleo.parent = CKRecord.Reference(recordID: CKRecord.ID(recordName: "party", zoneID: sharedZoneID), action: .none)
        let delegate = BatchOnce(cleo)
        var configuration = CKSyncEngine.Configuration(database: mary.sharedCloudDatabase, stateSerialization: nil, delegate: delegate)
        configuration.automaticallySync = false
        let engine = CKSyncEngine(configuration)
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(cleo.recordID)])

        try await engine.sendChanges()

        let johnsCleo = try await john.privateCloudDatabase.record(for: recordID("cleo"))
        XCTAssertEqual(johnsCleo["name"] as? String, "Cleo")
        XCTAssertTrue(engine.state.pendingRecordZoneChanges.isEmpty)
    }

    /// Sends one record, once.
    private final class BatchOnce: CKSyncEngineDelegate, @unchecked Sendable {
        private let record: CKRecord
        private let sent = Mutex(false)

        init(_ record: CKRecord) { self.record = record }

        func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {}

        func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
            let first = sent.withLock { sent -> Bool in
                defer { sent = true }
                return !sent
            }
            return first ? CKSyncEngine.RecordZoneChangeBatch(recordsToSave: [record]) : nil
        }
    }
}
