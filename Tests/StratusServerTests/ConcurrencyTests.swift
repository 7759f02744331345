import Stratus
import Synchronization
import XCTest
import _StratusTestSupport

/// The server under many threads and devices at once.
final class ConcurrencyTests: ServerTestCase {
    func testManyDevicesSavingOneRecordWithOneTagLetExactlyOneWin() async throws {
        let recordID = CKRecord.ID(recordName: "counter")
        let counter = CKRecord(recordType: "Counter", recordID: recordID)
        counter["value"] = 0
        _ = try await device("john").privateCloudDatabase.save(counter)
        let base = try await device("john").privateCloudDatabase.record(for: recordID)
        let archive = try NSKeyedArchiver.archivedData(withRootObject: base, requiringSecureCoding: true)

        let writers = 16
        // Decoded here, one at a time: Foundation's keyed unarchiver is not meant to run on
        // several threads at once.
        let copies = try (0..<writers).map { _ in try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: archive)) }
        let outcomes = await withTaskGroup(of: CKError.Code?.self) { group in
            for (index, copy) in copies.enumerated() {
                let database = device("john").privateCloudDatabase
                group.addTask {
                    copy["value"] = index + 1
                    do {
                        _ = try await database.save(copy)
                        return nil
                    } catch {
                        return (error as? CKError)?.code
                    }
                }
            }
            var outcomes: [CKError.Code?] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        XCTAssertEqual(outcomes.filter { $0 == nil }.count, 1, "exactly one save per change tag wins")
        XCTAssertEqual(outcomes.filter { $0 == .serverRecordChanged }.count, writers - 1)
    }

    func testIncrementsRetriedOnConflictLoseNothing() async throws {
        let recordID = CKRecord.ID(recordName: "counter")
        let counter = CKRecord(recordType: "Counter", recordID: recordID)
        counter["value"] = 0
        _ = try await device("john").privateCloudDatabase.save(counter)

        let writers = 8
        let incrementsEach = 5 * stressScale
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<writers {
                let database = device("john").privateCloudDatabase
                group.addTask {
                    for _ in 0..<incrementsEach {
                        var record = try await database.record(for: recordID)
                        while true {
                            record["value"] = (record["value"] as? Int ?? 0) + 1
                            do {
                                _ = try await database.save(record)
                                break
                            } catch let error as CKError where error.code == .serverRecordChanged {
                                guard let serverRecord = error.serverRecord else { throw error }
                                record = serverRecord
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let final = try await device("john").privateCloudDatabase.record(for: recordID)
        XCTAssertEqual(final["value"] as? Int, writers * incrementsEach)
    }

    func testManyDevicesOnDifferentZonesWorkAtOnce() async throws {
        let devices = 8
        let recordsEach = 20 * stressScale
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<devices {
                let database = device("user\(index % 2)").privateCloudDatabase
                group.addTask {
                    let zoneID = CKRecordZone.ID(zoneName: "zone\(index)")
                    _ = try await database.save(CKRecordZone(zoneID: zoneID))
                    for number in 0..<recordsEach {
                        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "r\(number)", zoneID: zoneID))
                        record["n"] = number
                        _ = try await database.save(record)
                    }
                }
            }
            try await group.waitForAll()
        }
        for index in 0..<devices {
            let database = device("user\(index % 2)").privateCloudDatabase
            let zoneID = CKRecordZone.ID(zoneName: "zone\(index)")
            let ids = (0..<recordsEach).map { CKRecord.ID(recordName: "r\($0)", zoneID: zoneID) }
            let results = try await database.records(for: ids)
            XCTAssertEqual(results.values.filter { (try? $0.get()) != nil }.count, recordsEach)
        }
    }

    func testChangeTagsAreUniqueAcrossConcurrentSaves() async throws {
        let tags = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<50 {
                let database = device("john").privateCloudDatabase
                group.addTask {
                    try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n\(index)"))).recordChangeTag
                }
            }
            var tags: [String] = []
            for try await tag in group { tags.append(tag ?? "") }
            return tags
        }
        XCTAssertEqual(Set(tags).count, 50)
    }
}
