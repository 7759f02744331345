import Foundation
import Stratus
import XCTest
import _StratusTestSupport

/// A local cache built only from database and zone change fetches, with small batches,
/// interrupted at random and resumed from the tokens it kept, equals the server's content
/// after any history of saves, edits, deletes, cascades, zone deletions and re-creations by
/// several devices; expired tokens recover through a fetch from nil.
final class SyncHistoryTests: OperationTestCase {
    /// What a device keeps: the database token, each zone's token, the zones whose changes it
    /// still has to fetch, and the records' texts by zone and name.
    private struct Cache {
        var databaseToken: CKServerChangeToken?
        var zoneTokens: [CKRecordZone.ID: CKServerChangeToken] = [:]
        var pendingZones: Set<CKRecordZone.ID> = []
        var records: [CKRecordZone.ID: [String: String]] = [:]
    }

    private func sync(_ cache: inout Cache, on database: CKDatabase, using generator: inout SeededGenerator, interruptible: Bool) async throws {
        var more = true
        while more {
            let changes = try await database.databaseChanges(since: cache.databaseToken, resultsLimit: Int.random(in: 1...3, using: &generator))
            for deletion in changes.deletions {
                cache.records[deletion.zoneID] = nil
                cache.zoneTokens[deletion.zoneID] = nil
                cache.pendingZones.remove(deletion.zoneID)
            }
            for modification in changes.modifications { cache.pendingZones.insert(modification.zoneID) }
            cache.databaseToken = changes.changeToken
            more = changes.moreComing
        }
        for zoneID in cache.pendingZones.sorted(by: { $0.zoneName < $1.zoneName }) {
            var more = true
            while more {
                let batch: (modificationResultsByID: [CKRecord.ID: Result<CKDatabase.RecordZoneChange.Modification, any Error>], deletions: [CKDatabase.RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool)
                do {
                    batch = try await database.recordZoneChanges(inZoneWith: zoneID, since: cache.zoneTokens[zoneID], resultsLimit: Int.random(in: 1...4, using: &generator))
                } catch let error as CKError where error.code == .changeTokenExpired {
                    cache.records[zoneID] = [:]
                    cache.zoneTokens[zoneID] = nil
                    continue
                } catch let error as CKError where error.code == .zoneNotFound {
                    cache.records[zoneID] = nil
                    cache.zoneTokens[zoneID] = nil
                    break
                }
                for (recordID, result) in batch.modificationResultsByID {
                    cache.records[zoneID, default: [:]][recordID.recordName] = try result.get().record["text"] as? String
                }
                for deletion in batch.deletions { cache.records[zoneID]?[deletion.recordID.recordName] = nil }
                cache.zoneTokens[zoneID] = batch.changeToken
                more = batch.moreComing
                if more, interruptible, Int.random(in: 0..<4, using: &generator) == 0 { return }   // resumed next time
            }
            cache.pendingZones.remove(zoneID)
        }
    }

    /// The server's content: every zone's records, by name, with their texts.
    private func serverContent(_ database: CKDatabase) async throws -> [CKRecordZone.ID: [String: String]] {
        var content: [CKRecordZone.ID: [String: String]] = [:]
        for zone in try await database.allRecordZones() where zone.zoneID != .default {
            var texts: [String: String] = [:]
            let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
            for (recordID, result) in try await database.records(matching: query, inZoneWith: zone.zoneID, resultsLimit: 1_000).matchResults {
                texts[recordID.recordName] = try result.get()["text"] as? String
            }
            content[zone.zoneID] = texts
        }
        return content
    }

    func testACacheBuiltFromChangeFetchesEqualsTheServerAfterRandomHistories() async throws {
        let seed = ProcessInfo.processInfo.environment["STRATUS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64(UInt32.max))
        var generator = SeededGenerator(seed: seed)
        let phone = database!
        let laptop = server.container(identifier: identifier, account: "john").privateCloudDatabase
        let zones = ["A", "B", "C"].map { CKRecordZone.ID(zoneName: $0) }
        for zoneID in zones {
            _ = try await phone.save(CKRecordZone(zoneID: zoneID))
            let first = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "first", zoneID: zoneID))
            first["text"] = "first"
            _ = try await phone.save(first)
        }
        server.changeHistoryLimit = 30   // small enough that some tokens expire, large enough that most do not
        var cache = Cache()
        var counter = 0
        for round in 0..<(60 * stressScale) {
            let device = Bool.random(using: &generator) ? phone : laptop
            let zoneID = zones[Int.random(in: 0..<zones.count, using: &generator)]
            let existing = ((try? await serverContent(device)) ?? [:])[zoneID].map { Array($0.keys).sorted() }
            switch (Int.random(in: 0..<10, using: &generator), existing) {
            case (0, _?):
                _ = try await device.deleteRecordZone(withID: zoneID)
                if Bool.random(using: &generator) { _ = try await device.save(CKRecordZone(zoneID: zoneID)) }
            case (_, nil):
                _ = try await device.save(CKRecordZone(zoneID: zoneID))
            case (1...2, let names?) where !names.isEmpty:
                let name = names[Int.random(in: 0..<names.count, using: &generator)]
                _ = try await device.deleteRecord(withID: CKRecord.ID(recordName: name, zoneID: zoneID))
            case (3...4, let names?) where !names.isEmpty:
                let name = names[Int.random(in: 0..<names.count, using: &generator)]
                let edit = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
                edit["text"] = "edit \(round)"
                _ = try await device.modifyRecords(saving: [edit], deleting: [], savePolicy: .changedKeys)
            case (5, let names?) where !names.isEmpty:
                counter += 1
                let child = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "child-\(counter)", zoneID: zoneID))
                child["text"] = "child of \(names[0])"
                child["owner"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: names[0], zoneID: zoneID), action: .deleteSelf)
                _ = try await device.save(child)
            default:
                counter += 1
                let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "note-\(counter)", zoneID: zoneID))
                record["text"] = "text \(round)"
                _ = try await device.save(record)
            }
            if Int.random(in: 0..<3, using: &generator) == 0 {
                try await sync(&cache, on: phone, using: &generator, interruptible: true)
            }
        }
        try await sync(&cache, on: phone, using: &generator, interruptible: false)
        let content = try await serverContent(phone)
        XCTAssertEqual(cache.records.filter { !$0.value.isEmpty }, content.filter { !$0.value.isEmpty }, "run again with STRATUS_SEED=\(seed)")
    }
}
