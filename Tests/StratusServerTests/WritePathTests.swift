import Foundation
@_spi(Testing) import Stratus
@testable import StratusServer
import XCTest

/// Every change to records and zones goes through the one write path: it is logged in the
/// change logs, charged to storage, counted for asset files, and gives back what deletes free.
final class WritePathTests: ServerTestCase {
    private func note(_ name: String, zone: CKRecordZone.ID = .default) -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        record["text"] = name
        return record
    }

    private func changes(_ zone: WireZoneID = .defaultZone, _ scope: WireDatabaseScope = .private, account: String = "john", after sequence: UInt64 = 0) -> [CloudServer.LoggedChange] {
        server.loggedChanges(ofZone: zone, in: scope, containerIdentifier: identifier, account: account, after: sequence)
    }

    func testUserRecordsSavesDeletesAndCascadesAreAllLoggedInOrder() async throws {
        let database = device("john").privateCloudDatabase
        let user = server.userRecordName(account: "john", containerIdentifier: identifier)
        _ = try await database.allRecordZones()
        XCTAssertEqual(changes().map(\.recordName), [user], "the user record the server made is logged")
        XCTAssertEqual(changes(.defaultZone, .public).map(\.recordName), [user])

        let target = note("target")
        let child = note("child")
        child["owner"] = CKRecord.Reference(recordID: target.recordID, action: .deleteSelf)
        _ = try await database.modifyRecords(saving: [target, child], deleting: [])
        let afterSaves = changes()
        XCTAssertEqual(afterSaves.map(\.recordName), [user, "target", "child"])
        XCTAssertEqual(afterSaves.map(\.sequence), afterSaves.map(\.sequence).sorted())

        _ = try await database.deleteRecord(withID: target.recordID)
        let deletions = changes(after: afterSaves.last?.sequence ?? 0)
        XCTAssertEqual(Set(deletions.map(\.recordName)), ["target", "child"], "the cascade is logged too")
        XCTAssertTrue(deletions.allSatisfy(\.isDeletion))
        XCTAssertEqual(deletions.map(\.recordType), ["Note", "Note"], "a deletion keeps the type the record had")
        XCTAssertEqual(changes().map(\.recordName), [user, "target", "child"].filter { $0 == user } + deletions.map(\.recordName), "each record keeps only its latest change")
    }

    func testWhatARequestDoesNotKeepIsNotLogged() async throws {
        let database = device("john").privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Trips")
        _ = try await database.save(zone)
        let existing = note("existing", zone: zone.zoneID)
        _ = try await database.save(existing)
        let before = changes(WireZoneID(zoneName: "Trips"))

        // An atomic zone rolls back when one item fails: nothing is logged.
        let stale = note("existing", zone: zone.zoneID)
        _ = try? await database.modifyRecords(saving: [note("fresh", zone: zone.zoneID), stale], deleting: [])
        XCTAssertEqual(changes(WireZoneID(zoneName: "Trips")), before)

        // A request over the quota stores nothing and logs nothing.
        server.setQuota(bytes: server.storageUsed(byAccount: "john"), forAccount: "john")
        await assertThrowsCKError(.quotaExceeded) { try await database.save(note("over", zone: zone.zoneID)) }
        XCTAssertEqual(changes(WireZoneID(zoneName: "Trips")), before)
    }

    func testZoneCreationAndDeletionAreLoggedInTheDatabase() async throws {
        let database = device("john").privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Trips")
        _ = try await database.save(zone)
        let created = try XCTUnwrap(server.loggedZoneChanges(containerIdentifier: identifier, account: "john")[WireZoneID(zoneName: "Trips")])
        XCTAssertFalse(created.isDeletion)
        _ = try await database.save(note("n", zone: zone.zoneID))
        let changed = try XCTUnwrap(server.loggedZoneChanges(containerIdentifier: identifier, account: "john")[WireZoneID(zoneName: "Trips")])
        XCTAssertGreaterThan(changed.sequence, created.sequence, "a record change marks its zone changed")
        _ = try await database.deleteRecordZone(withID: zone.zoneID)
        let deleted = try XCTUnwrap(server.loggedZoneChanges(containerIdentifier: identifier, account: "john")[WireZoneID(zoneName: "Trips")])
        XCTAssertTrue(deleted.isDeletion)
        XCTAssertGreaterThan(deleted.sequence, changed.sequence)
    }

    func testDeletingMostRecordsGivesTheirMemoryBack() async throws {
        let database = device("john").privateCloudDatabase
        let names = (0..<2_000).map { "n\($0)" }
        for chunk in stride(from: 0, to: names.count, by: 400) {
            _ = try await database.modifyRecords(saving: names[chunk..<chunk + 400].map { note($0) }, deleting: [])
        }
        let full = server.recordCapacity(ofZone: .defaultZone, containerIdentifier: identifier, account: "john")
        XCTAssertGreaterThanOrEqual(full, 2_000)
        for chunk in stride(from: 0, to: names.count, by: 400) {
            _ = try await database.modifyRecords(saving: [], deleting: names[chunk..<chunk + 400].map { CKRecord.ID(recordName: $0) })
        }
        let emptied = server.recordCapacity(ofZone: .defaultZone, containerIdentifier: identifier, account: "john")
        XCTAssertLessThan(emptied, full / 4, "the record table kept room for \(emptied) records after deletes")
    }

    // MARK: - Asset files

    private func assetFileCount() -> Int {
        let directory = server.assets.assetsDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.count
    }

    private func photo(_ name: String, bytes: Data, zone: CKRecordZone.ID = .default) throws -> CKRecord {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("write-path-\(UUID().uuidString)")
        try bytes.write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        record["image"] = CKAsset(fileURL: url)
        return record
    }

    func testAssetFilesGoWhenNoRecordRefersToThemAnyMore() async throws {
        let database = device("john").privateCloudDatabase
        var records: [CKRecord] = []
        for index in 0..<40 {
            records.append(try photo("p\(index)", bytes: Data(repeating: UInt8(index), count: 4_096)))
        }
        _ = try await database.modifyRecords(saving: records, deleting: [])
        XCTAssertEqual(assetFileCount(), 40)
        XCTAssertGreaterThan(server.storageUsed(byAccount: "john"), 40 * 4_096)
        _ = try await database.modifyRecords(saving: [], deleting: records.map(\.recordID))
        XCTAssertEqual(assetFileCount(), 0, "deleted records left their asset files behind")
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 0)
    }

    func testAFileSharedByTwoRecordsStaysUntilTheLastOneGoes() async throws {
        let database = device("john").privateCloudDatabase
        let bytes = Data(repeating: 7, count: 1_000)
        _ = try await database.modifyRecords(saving: [try photo("a", bytes: bytes), try photo("b", bytes: bytes)], deleting: [])
        XCTAssertEqual(assetFileCount(), 1)
        _ = try await database.deleteRecord(withID: CKRecord.ID(recordName: "a"))
        XCTAssertEqual(assetFileCount(), 1)
        let b = try await database.record(for: CKRecord.ID(recordName: "b"))
        let url = try XCTUnwrap((b["image"] as? CKAsset)?.fileURL)
        XCTAssertEqual(try Data(contentsOf: url), bytes)
        // Replacing the asset gives the old file up.
        let replaced = try photo("b", bytes: Data(repeating: 8, count: 1_000))
        b["image"] = replaced["image"]
        _ = try await database.save(b)
        XCTAssertEqual(assetFileCount(), 1)
        _ = try await database.deleteRecord(withID: b.recordID)
        XCTAssertEqual(assetFileCount(), 0)
    }

    func testAFailedSaveAndADeletedZoneKeepNoAssetFiles() async throws {
        let database = device("john").privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Album")
        _ = try await database.save(zone)
        _ = try await database.save(try photo("kept", bytes: Data(repeating: 1, count: 100), zone: zone.zoneID))
        // A save that conflicts stores nothing.
        let conflicting = try photo("kept", bytes: Data(repeating: 2, count: 100), zone: zone.zoneID)
        await assertThrowsCKError(.serverRecordChanged) { try await database.save(conflicting) }
        XCTAssertEqual(assetFileCount(), 1)
        _ = try await database.deleteRecordZone(withID: zone.zoneID)
        XCTAssertEqual(assetFileCount(), 0, "a deleted zone left its records' asset files behind")
        XCTAssertEqual(server.storageUsed(byAccount: "john"), 0)
    }
}
