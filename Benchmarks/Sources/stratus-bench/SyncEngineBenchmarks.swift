import Foundation
import Stratus
import Synchronization

/// A second device catching up through `CKSyncEngine`: device A saves 10,000 records into a
/// custom zone (400 per request); a fresh device B fetches them all with
/// `CKSyncEngine.fetchChanges()` (`automaticallySync` false, a delegate that only stores the
/// records), next to a plain `recordZoneChanges(inZoneWith:since:)` loop over the same zone
/// from another fresh device. The engine's time includes what a fresh engine does first: the
/// account check, its database subscription and the database changes.
enum SyncEngineBenchmarks {
    static let count = 10_000
    static let batchSize = 400
    static let repetitions = 5

    static func run() async throws {
        let server = CloudServer(clock: ManualClock())
        let identifier = "iCloud.com.example.bench"
        let deviceA = server.container(identifier: identifier, account: "engine").privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Contacts")
        _ = try await deviceA.save(CKRecordZone(zoneID: zoneID))
        var batch: [CKRecord] = []
        for index in 0..<count {
            let contact = CKRecord(recordType: "Contact", recordID: CKRecord.ID(recordName: "contact-\(index)", zoneID: zoneID))
            contact["name"] = "Clown \(index)"
            contact["phone"] = "+1 555 \(10_000 + index)"
            contact["order"] = index
            batch.append(contact)
            if batch.count == batchSize {
                _ = try await deviceA.modifyRecords(saving: batch, deleting: [], atomically: false)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { _ = try await deviceA.modifyRecords(saving: batch, deleting: [], atomically: false) }

        var engineBest = Double.infinity
        var loopBest = Double.infinity
        var engineRequests = 0
        var loopRequests = 0
        for _ in 0..<repetitions {
            // Device B, through its engine.
            let sink = RecordSink()
            var configuration = CKSyncEngine.Configuration(
                database: server.container(identifier: identifier, account: "engine").privateCloudDatabase,
                stateSerialization: nil,
                delegate: sink
            )
            configuration.automaticallySync = false
            let engine = CKSyncEngine(configuration)
            var before = server.requestCount
            engineBest = min(engineBest, try await elapsed { try await engine.fetchChanges() })
            engineRequests = server.requestCount - before
            guard sink.count == count else { throw Miscount(what: "the engine's fetch", counted: sink.count, expected: count) }
            withExtendedLifetime(sink) {}

            // Another fresh device, with the plain loop.
            let deviceB = server.container(identifier: identifier, account: "engine").privateCloudDatabase
            before = server.requestCount
            loopBest = min(loopBest, try await elapsed {
                var records: [CKRecord.ID: CKRecord] = [:]
                var token: CKServerChangeToken?
                var moreComing = true
                while moreComing {
                    let changes = try await deviceB.recordZoneChanges(inZoneWith: zoneID, since: token)
                    for (recordID, result) in changes.modificationResultsByID { records[recordID] = try result.get().record }
                    for deletion in changes.deletions { records[deletion.recordID] = nil }
                    token = changes.changeToken
                    moreComing = changes.moreComing
                }
                guard records.count == count else { throw Miscount(what: "the recordZoneChanges loop", counted: records.count, expected: count) }
                blackHole(records)
            })
            loopRequests = server.requestCount - before
        }
        report("CKSyncEngine.fetchChanges() of \(count) records on a fresh device (\(engineRequests) requests), against a recordZoneChanges loop (\(loopRequests) requests)", stratus: engineBest, baseline: loopBest)
    }

    /// The seconds `body` took.
    private static func elapsed(_ body: () async throws -> Void) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        let parts = (clock.now - start).components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// The least a delegate does: it keeps the records the engine fetches, and has nothing to send.
private final class RecordSink: CKSyncEngineDelegate {
    private let records = Mutex<[CKRecord.ID: CKRecord]>([:])

    var count: Int { records.withLock { $0.count } }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        guard case .fetchedRecordZoneChanges(let changes) = event else { return }
        records.withLock { records in
            for modification in changes.modifications { records[modification.record.recordID] = modification.record }
            for deletion in changes.deletions { records[deletion.recordID] = nil }
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        nil
    }
}
