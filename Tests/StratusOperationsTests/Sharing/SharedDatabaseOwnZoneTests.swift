import Foundation
import Stratus
import XCTest

/// CloudKit code that names its own zone, or the default zone, in the shared database (a
/// common slip: `CKCurrentUserDefaultName` as the owner of a zone someone else shared) gets
/// iCloud's answer, `invalidArguments` ("only shared zones can be accessed in the shared
/// database"), not the `zoneNotFound` of a zone it cannot see.
final class SharedDatabaseOwnZoneTests: SharedDatabaseTestCase {
    private func assertOnlySharedZones(_ error: (any Error)?, _ what: String, line: UInt = #line) {
        let error = error as? CKError
        XCTAssertEqual(error?.code, .invalidArguments, what, line: line)
        XCTAssertTrue(error?.localizedDescription.contains("only shared zones") ?? false, "\(what): \(String(describing: error))", line: line)
    }

    private func thrown(_ body: () async throws -> Void) async -> (any Error)? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    func testSavingIntoTheDefaultZoneOrAnOwnZoneThroughTheSharedDatabaseIsInvalidArguments() async throws {
        try await seedParty()
        let database = john.sharedCloudDatabase
        let inDefault = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "note"))
        let inOwn = CKRecord(recordType: "Note", recordID: recordID("note"))

        let (saves, deletes) = try await database.modifyRecords(saving: [inDefault, inOwn], deleting: [recordID("party")], atomically: false)

        assertOnlySharedZones(saves[inDefault.recordID]?.failureError, "save into the default zone")
        assertOnlySharedZones(saves[inOwn.recordID]?.failureError, "save into john's own zone")
        assertOnlySharedZones(deletes[recordID("party")]?.failureError, "delete from john's own zone")
        let party = try await john.privateCloudDatabase.record(for: recordID("party"))
        XCTAssertEqual(party.recordType, "Party", "nothing was deleted")
    }

    func testReadingAnOwnZoneThroughTheSharedDatabaseIsInvalidArguments() async throws {
        try await seedParty()
        let database = john.sharedCloudDatabase
        assertOnlySharedZones(await thrown { _ = try await database.record(for: self.recordID("party")) }, "fetch")
        assertOnlySharedZones(await thrown { _ = try await database.recordZone(for: self.zoneID) }, "zone fetch")
        assertOnlySharedZones(await thrown {
            _ = try await database.records(matching: CKQuery(recordType: "Party", predicate: NSPredicate(value: true)), inZoneWith: self.zoneID, desiredKeys: nil)
        }, "query")
        assertOnlySharedZones(await thrown { _ = try await database.recordZoneChanges(inZoneWith: self.zoneID, since: nil) }, "zone changes")
    }
}

private extension Result {
    var failureError: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
