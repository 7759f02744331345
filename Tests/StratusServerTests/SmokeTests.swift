import Stratus
import XCTest

final class SmokeTests: ServerTestCase {
    func testSaveThenFetchFromAnotherDeviceOfTheSameAccount() async throws {
        let phone = device("john")
        let laptop = device("john")
        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1"))
        note["text"] = "hello"
        let saved = try await phone.privateCloudDatabase.save(note)
        XCTAssertNotNil(saved.recordChangeTag)
        XCTAssertEqual(saved.changedKeys(), [])
        let fetched = try await laptop.privateCloudDatabase.record(for: note.recordID)
        XCTAssertEqual(fetched["text"] as? String, "hello")
        XCTAssertEqual(fetched.recordChangeTag, saved.recordChangeTag)
        XCTAssertEqual(server.requestCount, 2)
    }
}
