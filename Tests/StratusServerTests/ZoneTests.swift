import Stratus
import XCTest

/// Zones: the default zone everywhere, custom zones in private databases only.
final class ZoneTests: ServerTestCase {
    func testEveryDatabaseHasADefaultZoneWithNoCapabilities() async throws {
        let john = device("john")
        for database in [john.privateCloudDatabase, john.publicCloudDatabase] {
            let zone = try await database.recordZone(for: .default)
            XCTAssertEqual(zone.zoneID, .default)
            XCTAssertEqual(zone.capabilities, [])
        }
    }

    func testCustomZonesInThePrivateDatabaseFetchChangesAreAtomicAndCanBeShared() async throws {
        let database = device("john").privateCloudDatabase
        let saved = try await database.save(CKRecordZone(zoneName: "Parties"))
        XCTAssertEqual(saved.zoneID, CKRecordZone.ID(zoneName: "Parties"))
        XCTAssertEqual(saved.capabilities, [.fetchChanges, .atomic, .sharing, .zoneWideSharing])
        let fetched = try await database.recordZone(for: CKRecordZone.ID(zoneName: "Parties"))
        XCTAssertEqual(fetched.capabilities, [.fetchChanges, .atomic, .sharing, .zoneWideSharing])
    }

    func testSavingAnExistingZoneChangesNothing() async throws {
        let database = device("john").privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneName: "Parties"))
        _ = try await database.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p", zoneID: CKRecordZone.ID(zoneName: "Parties"))))
        let again = try await database.save(CKRecordZone(zoneName: "Parties"))
        XCTAssertEqual(again.capabilities, [.fetchChanges, .atomic, .sharing, .zoneWideSharing])
        let record = try await database.record(for: CKRecord.ID(recordName: "p", zoneID: CKRecordZone.ID(zoneName: "Parties")))
        XCTAssertEqual(record.recordType, "Party")
    }

    func testAllRecordZonesListsTheDefaultZoneFirstThenByName() async throws {
        let database = device("john").privateCloudDatabase
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneName: "b"), CKRecordZone(zoneName: "a")], deleting: [])
        let zones = try await database.allRecordZones()
        XCTAssertEqual(zones.map(\.zoneID.zoneName), ["_defaultZone", "a", "b"])
    }

    func testMissingZoneIsZoneNotFoundForZonesAndRecords() async throws {
        let database = device("john").privateCloudDatabase
        let missing = CKRecordZone.ID(zoneName: "Nowhere")
        await assertThrowsCKError(.zoneNotFound) { try await database.recordZone(for: missing) }
        await assertThrowsCKError(.zoneNotFound) { try await database.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(zoneID: missing))) }
        await assertThrowsCKError(.zoneNotFound) { try await database.record(for: CKRecord.ID(recordName: "x", zoneID: missing)) }
        await assertThrowsCKError(.zoneNotFound) { try await database.deleteRecordZone(withID: missing) }
    }

    func testDeletingAZoneDeletesItsRecords() async throws {
        let database = device("john").privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Parties")
        _ = try await database.save(CKRecordZone(zoneID: zoneID))
        _ = try await database.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p", zoneID: zoneID)))
        let deleted = try await database.deleteRecordZone(withID: zoneID)
        XCTAssertEqual(deleted, zoneID)
        await assertThrowsCKError(.zoneNotFound) { try await database.record(for: CKRecord.ID(recordName: "p", zoneID: zoneID)) }
        _ = try await database.save(CKRecordZone(zoneID: zoneID))
        await assertThrowsCKError(.unknownItem) { try await database.record(for: CKRecord.ID(recordName: "p", zoneID: zoneID)) }
    }

    func testCustomZonesAreRefusedInThePublicAndSharedDatabases() async {
        let john = device("john")
        await assertThrowsCKError(.badDatabase) { try await john.publicCloudDatabase.save(CKRecordZone(zoneName: "Parties")) }
        await assertThrowsCKError(.badDatabase) { try await john.sharedCloudDatabase.save(CKRecordZone(zoneName: "Parties")) }
        await assertThrowsCKError(.badDatabase) { try await john.publicCloudDatabase.deleteRecordZone(withID: CKRecordZone.ID(zoneName: "Parties")) }
    }

    func testTheDefaultZoneCanBeNeitherSavedNorDeleted() async {
        let database = device("john").privateCloudDatabase
        await assertThrowsCKError(.invalidArguments) { try await database.save(CKRecordZone.default()) }
        await assertThrowsCKError(.invalidArguments) { try await database.deleteRecordZone(withID: .default) }
    }

    func testZoneNamesOverTheLimitAreInvalid() async {
        let database = device("john").privateCloudDatabase
        await assertThrowsCKError(.invalidArguments) { try await database.save(CKRecordZone(zoneName: "")) }
        await assertThrowsCKError(.invalidArguments) { try await database.save(CKRecordZone(zoneName: String(repeating: "z", count: 256))) }
        let longest = try? await database.save(CKRecordZone(zoneName: String(repeating: "z", count: 255)))
        XCTAssertNotNil(longest)
    }

    func testBatchZoneCallsReportEachItem() async throws {
        let database = device("john").privateCloudDatabase
        let (saved, deleted) = try await database.modifyRecordZones(
            saving: [CKRecordZone(zoneName: "ok"), CKRecordZone.default()],
            deleting: [CKRecordZone.ID(zoneName: "missing")]
        )
        XCTAssertNotNil(try? saved[CKRecordZone.ID(zoneName: "ok")]?.get())
        XCTAssertEqual(code(saved[.default]), .invalidArguments)
        XCTAssertEqual(code(deleted[CKRecordZone.ID(zoneName: "missing")]), .zoneNotFound)
        let fetched = try await database.recordZones(for: [CKRecordZone.ID(zoneName: "ok"), CKRecordZone.ID(zoneName: "missing")])
        XCTAssertNotNil(try? fetched[CKRecordZone.ID(zoneName: "ok")]?.get())
        XCTAssertEqual(code(fetched[CKRecordZone.ID(zoneName: "missing")]), .zoneNotFound)
    }

    func testZoneCompletionForms() async throws {
        let database = device("john").privateCloudDatabase
        let saved: CKRecordZone? = await withCheckedContinuation { continuation in
            database.save(CKRecordZone(zoneName: "z")) { zone, _ in continuation.resume(returning: zone) }
        }
        XCTAssertEqual(saved?.zoneID.zoneName, "z")
        let all: [CKRecordZone]? = await withCheckedContinuation { continuation in
            database.fetchAllRecordZones { zones, _ in continuation.resume(returning: zones) }
        }
        XCTAssertEqual(all?.count, 2)
        let deleted: CKRecordZone.ID? = await withCheckedContinuation { continuation in
            database.delete(withRecordZoneID: CKRecordZone.ID(zoneName: "z")) { zoneID, _ in continuation.resume(returning: zoneID) }
        }
        XCTAssertEqual(deleted?.zoneName, "z")
        let error: (any Error)? = await withCheckedContinuation { continuation in
            database.fetch(withRecordZoneID: CKRecordZone.ID(zoneName: "z")) { _, error in continuation.resume(returning: error) }
        }
        XCTAssertEqual((error as? CKError)?.code, .zoneNotFound)
    }

    func testOwnUserRecordNameAsOwnerIsTheCurrentUser() async throws {
        let john = device("john")
        let userID = try await john.userRecordID()
        _ = try await john.privateCloudDatabase.save(CKRecordZone(zoneName: "Mine"))
        let zone = try await john.privateCloudDatabase.recordZone(for: CKRecordZone.ID(zoneName: "Mine", ownerName: userID.recordName))
        XCTAssertEqual(zone.zoneID.zoneName, "Mine")
    }
}
