import Foundation
import StratusCore
import XCTest

/// `allTokens()` gives the words the server's token search matches, and `value(forKeyPath:)`
/// reads a field the way record-coding libraries ask for it.
final class RecordTokensAndKeyPathTests: XCTestCase {
    func testAllTokensAreTheFoldedWordsOfEveryStringFieldWithoutStopWords() {
        let record = CKRecord(recordType: "Party")
        record["title"] = "The Clowns of Zürich"
        record["tags"] = ["Balloons", "clowns"]
        record["attendees"] = 12
        record["note"] = "Café-au-lait, at 5pm"
        record.encryptedValues["secret"] = "hidden words"
        XCTAssertEqual(record.allTokens(), ["5pm", "au", "balloons", "cafe", "clowns", "lait", "zurich"])
    }

    func testARecordWithoutStringsHasNoTokens() {
        let record = CKRecord(recordType: "Empty")
        record["count"] = 3
        XCTAssertEqual(record.allTokens(), [])
    }

    func testValueForKeyPathReadsASingleField() {
        let record = CKRecord(recordType: "Clown")
        record["name"] = "Bozo"
        record["age"] = 42
        XCTAssertEqual(record.value(forKeyPath: "name") as? String, "Bozo")
        XCTAssertEqual(record.value(forKeyPath: "age") as? Int, 42)
        XCTAssertNil(record.value(forKeyPath: "missing"))
        XCTAssertNil(record.value(forKeyPath: "name.count"), "a record's fields are flat")
    }

    func testReferenceActionIsTheAction() {
        let reference = CKRecord.Reference(recordID: CKRecord.ID(recordName: "party"), action: .deleteSelf)
        XCTAssertEqual(reference.referenceAction, .deleteSelf)
        XCTAssertEqual(CKRecord.Reference(recordID: CKRecord.ID(recordName: "party"), action: .none).referenceAction, .none)
    }

    func testTheDeprecatedZoneIDInitialiserTakesANilOwnerAsTheCurrentUser() {
        let make: (String, String?) -> CKRecordZone.ID = { CKRecordZoneID.make(zoneName: $0, ownerName: $1) }
        XCTAssertEqual(make("Parties", nil), CKRecordZone.ID(zoneName: "Parties", ownerName: CKCurrentUserDefaultName))
        XCTAssertEqual(make("Parties", "_0123"), CKRecordZone.ID(zoneName: "Parties", ownerName: "_0123"))
    }
}

/// Reaches the deprecated `CKRecordZone.ID(zoneName:ownerName: String?)` without a deprecation
/// warning (the build treats warnings as errors).
private protocol OptionalOwnerZoneID {
    init(zoneName: String, ownerName: String?)
}

extension CKRecordZoneID: OptionalOwnerZoneID {}

extension OptionalOwnerZoneID {
    static func make(zoneName: String, ownerName: String?) -> Self { Self(zoneName: zoneName, ownerName: ownerName) }
}
