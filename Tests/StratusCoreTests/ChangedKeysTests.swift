import Foundation
import StratusCore
import StratusWire
import XCTest

/// Which keys a record reports as changed, and what it remembers as the version they edit.
final class ChangedKeysTests: XCTestCase {
    /// A record as a fetch returns it: saved, with values, no local edits.
    private func fetchedRecord() -> CKRecord {
        CKRecord(wire: WireRecord(
            recordID: WireRecordID(recordName: "party"),
            recordType: "Party",
            changeTag: "5",
            creationDate: Date(timeIntervalSinceReferenceDate: 10),
            modificationDate: Date(timeIntervalSinceReferenceDate: 20),
            creatorUserRecordName: "__defaultOwner__",
            lastModifiedUserRecordName: "__defaultOwner__",
            fields: ["title": .string("Old title"), "attendees": .int64(3)]
        ))
    }

    private func archive(_ record: CKRecord, systemFieldsOnly: Bool = false) throws -> CKRecord {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        if systemFieldsOnly {
            record.encodeSystemFields(with: coder)
        } else {
            record.encode(with: coder)
        }
        coder.finishEncoding()
        let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        decoder.requiresSecureCoding = true
        decoder.decodingFailurePolicy = .setErrorAndReturn
        return try XCTUnwrap(CKRecord(coder: decoder))
    }

    func testNewRecordHasNoChangedKeys() {
        XCTAssertEqual(CKRecord(recordType: "Party").changedKeys(), [])
    }

    func testFetchedRecordHasNoChangedKeys() {
        XCTAssertEqual(fetchedRecord().changedKeys(), [])
    }

    func testSettingAKeyMarksItChangedEvenToTheSameValue() {
        let record = fetchedRecord()
        record["attendees"] = 3
        record["title"] = "New title"
        XCTAssertEqual(record.changedKeys(), ["attendees", "title"])
    }

    func testSettingAKeyToNilMarksItChangedAndRemovesTheValue() {
        let record = fetchedRecord()
        record["title"] = nil
        XCTAssertEqual(record.changedKeys(), ["title"])
        XCTAssertEqual(record.allKeys(), ["attendees"])
        XCTAssertNil(record["title"])
    }

    func testSettingAnAbsentKeyToNilStillMarksItChanged() {
        let record = CKRecord(recordType: "Party")
        record.setObject(nil, forKey: "never")
        XCTAssertEqual(record.changedKeys(), ["never"])
    }

    func testCopyKeepsChangedKeysAndIsIndependent() throws {
        let record = fetchedRecord()
        record["title"] = "Edited"
        let copy = try XCTUnwrap(record.copy() as? CKRecord)
        XCTAssertFalse(copy === record)
        XCTAssertEqual(copy.changedKeys(), ["title"])
        XCTAssertEqual(copy.recordChangeTag, "5")
        copy["attendees"] = 4
        XCTAssertEqual(record.changedKeys(), ["title"])
        XCTAssertEqual(record["attendees"] as? Int, 3)
    }

    func testFullArchiveKeepsChangedKeysAndTheEditedVersion() throws {
        let record = fetchedRecord()
        record["title"] = "Edited"
        record["attendees"] = nil
        let decoded = try archive(record)
        XCTAssertEqual(decoded.changedKeys(), ["attendees", "title"])
        XCTAssertEqual(decoded["title"] as? String, "Edited")
        XCTAssertEqual(decoded.ancestorSnapshot.fields, ["title": .string("Old title"), "attendees": .int64(3)])
    }

    func testSystemFieldsArchiveKeepsTheChangeTagAndDropsValues() throws {
        let record = fetchedRecord()
        record["title"] = "Unsaved edit"
        let decoded = try archive(record, systemFieldsOnly: true)
        XCTAssertEqual(decoded.recordChangeTag, "5")
        XCTAssertEqual(decoded.recordID, record.recordID)
        XCTAssertEqual(decoded.recordType, "Party")
        XCTAssertEqual(decoded.creationDate, record.creationDate)
        XCTAssertEqual(decoded.modificationDate, record.modificationDate)
        XCTAssertEqual(decoded.creatorUserRecordID?.recordName, "__defaultOwner__")
        XCTAssertEqual(decoded.lastModifiedUserRecordID?.recordName, "__defaultOwner__")
        XCTAssertEqual(decoded.allKeys(), [])
        XCTAssertEqual(decoded.changedKeys(), [])
    }

    func testAncestorIsTheVersionBeforeTheFirstEdit() {
        let record = fetchedRecord()
        record["title"] = "First edit"
        record["title"] = "Second edit"
        record["extra"] = 1
        XCTAssertEqual(record.ancestorSnapshot.fields, ["title": .string("Old title"), "attendees": .int64(3)])
        XCTAssertEqual(record.ancestorSnapshot.changeTag, "5")
        XCTAssertEqual(record.wireSnapshot.fields["title"], .string("Second edit"))
    }

    func testEditingARecordDoesNotChangeAnotherDecodedFromIt() throws {
        let record = fetchedRecord()
        let decoded = try archive(record)
        record["title"] = "Changed after archiving"
        XCTAssertEqual(decoded["title"] as? String, "Old title")
        XCTAssertEqual(decoded.changedKeys(), [])
    }
}

/// A record's storage is guarded: threads may read and write it at once.
final class RecordConcurrencyTests: XCTestCase {
    func testConcurrentWritesToDifferentKeysAllLand() {
        let record = CKRecord(recordType: "Counter")
        DispatchQueue.concurrentPerform(iterations: 1_000) { index in
            record["key\(index)"] = index
            _ = record["key\(index / 2)"]
            _ = record.changedKeys()
        }
        XCTAssertEqual(record.allKeys().count, 1_000)
        XCTAssertEqual(record.changedKeys().count, 1_000)
        XCTAssertEqual(record["key999"] as? Int, 999)
    }

    func testCopyingWhileWritingGivesAConsistentCopy() {
        let record = CKRecord(recordType: "Counter")
        record["a"] = 0
        record["b"] = 0
        DispatchQueue.concurrentPerform(iterations: 500) { index in
            if index.isMultiple(of: 2) {
                record.setValue(index, forKey: "a")
            } else if let copy = record.copy() as? CKRecord {
                XCTAssertEqual(copy.allKeys(), ["a", "b"])
            }
        }
    }
}
