import Foundation
import Stratus
import XCTest

/// A container whose requests cross as JSON (`JSONWireService`) behaves as one that talks to
/// the server directly: records, errors with their server record, zones, queries and pushes.
final class JSONWireServiceTests: ServerTestCase {
    private func jsonDevice(_ account: String) -> CKContainer {
        let direct = device(account)
        return CKContainer(identifier: identifier, service: JSONWireService(wrapping: server), device: direct.device)
    }

    func testRecordsSavedAndFetchedThroughJSONComeBackWhole() async throws {
        let phone = jsonDevice("john").privateCloudDatabase
        let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p"))
        record["title"] = "Clowns"
        record["when"] = Date(timeIntervalSinceReferenceDate: 750_000_000.123_456)
        record["guests"] = [1, 2, 3]
        record.encryptedValues["secret"] = "balloons"
        let saved = try await phone.save(record)

        let fetched = try await phone.record(for: record.recordID)

        XCTAssertEqual(fetched["title"] as? String, "Clowns")
        XCTAssertEqual(fetched["when"] as? Date, Date(timeIntervalSinceReferenceDate: 750_000_000.123_456), "dates come back exactly")
        XCTAssertEqual(fetched["guests"] as? [Int], [1, 2, 3])
        XCTAssertEqual(fetched.encryptedValues["secret"] as? String, "balloons")
        XCTAssertEqual(fetched.recordChangeTag, saved.recordChangeTag)
        XCTAssertEqual(fetched.modificationDate, saved.modificationDate)
    }

    func testAConflictCrossesAsJSONWithTheServersRecord() async throws {
        let phone = jsonDevice("john").privateCloudDatabase
        let laptop = jsonDevice("john").privateCloudDatabase
        let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "p"))
        record["title"] = "first"
        let saved = try await phone.save(record)
        let stale = saved.copy() as? CKRecord
        saved["title"] = "second"
        _ = try await laptop.save(saved)

        do {
            let edited = try XCTUnwrap(stale)
            edited["title"] = "third"
            _ = try await phone.save(edited)
            XCTFail("a stale save was accepted")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .serverRecordChanged)
            XCTAssertEqual(error.serverRecord?["title"] as? String, "second")
        }
    }

    func testAnAssetCrossesAsBytesNotAsItsFilesPath() async throws {
        let source = FileManager.default.temporaryDirectory.appendingPathComponent("json-asset-\(UUID().uuidString).jpg")
        try Data("a clown's portrait".utf8).write(to: source)
        let phone = jsonDevice("john")
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p"))
        record["image"] = CKAsset(fileURL: source)
        _ = try await phone.privateCloudDatabase.save(record)
        try FileManager.default.removeItem(at: source)

        let laptop = jsonDevice("john")
        let fetched = try await laptop.privateCloudDatabase.record(for: record.recordID)
        let url = try XCTUnwrap((fetched["image"] as? CKAsset)?.fileURL)
        XCTAssertEqual(try Data(contentsOf: url), Data("a clown's portrait".utf8))
        XCTAssertEqual(url.deletingLastPathComponent().standardizedFileURL, laptop.device.assetCache.directory.standardizedFileURL, "a local copy of the laptop's own")
    }

    func testTheEmbeddedWiringSendsThroughJSONWhenAsked() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["STRATUS_WIRE"] == "json", "only with STRATUS_WIRE=json")
        XCTAssertTrue(device("john").service is JSONWireService)
        XCTAssertTrue(CKContainer.default().service is JSONWireService)
    }
}
