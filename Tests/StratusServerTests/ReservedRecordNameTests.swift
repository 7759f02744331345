import Stratus
import XCTest

/// `__defaultOwner__` stands for the current user's record in lookups, so no record can be
/// saved under that name: the server refuses it (tested with hand-built wire requests) and the
/// client refuses it before sending.
final class ReservedRecordNameTests: ServerTestCase {
    private var database: CKDatabase!

    override func setUp() {
        super.setUp()
        database = device("john").privateCloudDatabase
    }

    override func tearDown() {
        database = nil
        super.tearDown()
    }

    private func save(_ record: WireRecord, policy: WireSavePolicy = .ifServerRecordUnchanged) async throws -> Result<WireRecord, WireError> {
        try await rawSave(record, to: database, policy: policy)
    }

    private func lookUp(_ name: String) async throws -> Result<WireRecord, WireError> {
        let response = try await server.lookupRecords(WireRecordsLookupRequest(
            context: rawContext(database),
            recordIDs: [WireRecordID(recordName: name)]
        ))
        return response.results.first?.result ?? .failure(WireError(.internalError, "no result"))
    }

    private func record(_ name: String, fields: [String: WireFieldValue] = [:]) -> WireRecord {
        WireRecord(recordID: WireRecordID(recordName: name), recordType: "Note", fields: fields)
    }

    func testSavingARecordNamedDefaultOwnerIsRefused() async throws {
        let userID = try await device("john").userRecordID()
        for policy in WireSavePolicy.allCases {
            guard case .failure(let error) = try await save(record("__defaultOwner__", fields: ["n": .int64(1)]), policy: policy) else {
                return XCTFail("a record named __defaultOwner__ was saved under \(policy)")
            }
            XCTAssertEqual(error.code, .invalidArguments)
            XCTAssertTrue(error.message.contains("reserved"), error.message)
        }
        // In a custom zone too.
        let zone = try await database.save(CKRecordZone(zoneName: "Party")).zoneID
        var inZone = record("__defaultOwner__")
        inZone.recordID.zoneID = zone.wireValue
        guard case .failure(let error) = try await save(inZone) else { return XCTFail("saved in a custom zone") }
        XCTAssertEqual(error.code, .invalidArguments)

        // Looking the name up still finds the user's own record.
        let current = try await lookUp("__defaultOwner__").get()
        XCTAssertEqual(current.recordID.recordName, userID.recordName)
        XCTAssertEqual(current.recordType, "Users")
        XCTAssertNil(current.fields["n"])
    }

    func testTheClientRefusesARecordNamedDefaultOwnerWithoutARequest() async throws {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: CKCurrentUserDefaultName))
        let error = await assertThrowsCKError(.invalidArguments) { try await self.database.save(record) }
        XCTAssertTrue(error?.localizedDescription.contains("reserved") == true, error?.localizedDescription ?? "")
        XCTAssertEqual(server.requestCount, 0)
        XCTAssertNil(WireValidation.checkRecordNameToSave("__defaultOwner_"))
        XCTAssertNotNil(WireValidation.checkRecordNameToSave(""))
        XCTAssertNil(WireValidation.checkRecordName("__defaultOwner__"))
    }
}
