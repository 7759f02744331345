import Foundation
import Stratus

/// Delta sync: every change of a zone of 100,000 records fetched from a nil token, batch by
/// batch, next to a plain read of the same records by ID in batches of the same size.
enum SyncBenchmarks {
    static let count = 100_000
    static let batchSize = 400

    static func run() async throws {
        let server = CloudServer(clock: ManualClock())
        let database = server.container(identifier: "iCloud.com.example.bench", account: "sync").privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Notes")
        _ = try await database.save(CKRecordZone(zoneID: zoneID))
        var ids: [CKRecord.ID] = []
        var batch: [CKRecord] = []
        for index in 0..<count {
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "note-\(index)", zoneID: zoneID))
            note["title"] = "Note \(index)"
            note["body"] = "Clowns, balloons and a tiny car, take \(index)"
            note["order"] = index
            note["edited"] = Date(timeIntervalSince1970: Double(index))
            note["pinned"] = index % 7 == 0
            ids.append(note.recordID)
            batch.append(note)
            if batch.count == batchSize {
                _ = try await database.modifyRecords(saving: batch, deleting: [], atomically: false)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { _ = try await database.modifyRecords(saving: batch, deleting: [], atomically: false) }

        let sync = try await fastest(of: 3) {
            var token: CKServerChangeToken?
            var fetched = 0
            var moreComing = true
            while moreComing {
                let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: token, resultsLimit: batchSize)
                fetched += changes.modificationResultsByID.count
                token = changes.changeToken
                moreComing = changes.moreComing
            }
            guard fetched == count else { throw Miscount(what: "the delta sync", counted: fetched, expected: count) }
        }
        let read = try await fastest(of: 3) {
            var fetched = 0
            for start in stride(from: 0, to: ids.count, by: batchSize) {
                fetched += try await database.records(for: Array(ids[start..<min(start + batchSize, ids.count)])).count
            }
            guard fetched == count else { throw Miscount(what: "the plain read", counted: fetched, expected: count) }
        }
        report("delta sync of \(count) records from a nil token (batches of \(batchSize)), against reading them by ID", stratus: sync, baseline: read)
    }
}
