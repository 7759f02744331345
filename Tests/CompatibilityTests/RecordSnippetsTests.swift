import Stratus
import XCTest

// CloudKit code as Apple's documentation and the WWDC talks write it, in current Swift 6, with
// `import Stratus` in place of `import CloudKit` and nothing else changed. If a CloudKit
// spelling stops compiling here, Stratus has broken source compatibility.

final class RecordSnippetsTests: XCTestCase {
    /// "Advanced CloudKit" (WWDC 2014): parties and clowns, linked by references.
    func testPartyAndClownsFromTheTalk() throws {
        let partyID = CKRecord.ID(recordName: "clown-party")
        let party = CKRecord(recordType: "Party", recordID: partyID)
        party["name"] = "Clowns at the park"
        party["date"] = Date()
        party["ticketPrice"] = 12.5

        let clown = CKRecord(recordType: "Clown")
        let partyReference = CKRecord.Reference(recordID: party.recordID, action: .deleteSelf)
        clown["party"] = partyReference
        clown["name"] = "Bozo" as CKRecordValue
        clown.setObject(["juggling", "unicycle"] as CKRecordValue, forKey: "tricks")

        XCTAssertEqual((clown["party"] as? CKRecord.Reference)?.recordID, partyID)
        XCTAssertEqual(clown["tricks"] as? [String], ["juggling", "unicycle"])
        XCTAssertEqual(party["ticketPrice"] as? Double, 12.5)
        XCTAssertEqual(party.recordType, "Party")
    }

    /// The generic subscript and optional chaining CloudKit sample code uses.
    func testTypedSubscriptsAndOptionals() {
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(zoneID: CKRecordZone.ID(zoneName: "Photos", ownerName: CKCurrentUserDefaultName)))
        let caption: String? = "Sunset"
        record["caption"] = caption
        record["likes"] = 3
        let likes: Int = record["likes"] ?? 0
        let title = record["title"] as? String ?? "Untitled"
        XCTAssertEqual(likes, 3)
        XCTAssertEqual(title, "Untitled")
        XCTAssertEqual(record["caption"] as String?, "Sunset")
        XCTAssertEqual(record.recordID.zoneID.zoneName, "Photos")
        for (key, value) in record where key == "likes" {
            XCTAssertEqual(value as? Int64, 3)
        }
    }

    /// Key-value coding spellings from older CloudKit code.
    func testKeyValueCodingSpellings() {
        let record = CKRecord(recordType: "Note")
        record.setValue("Buy balloons", forKey: "text")
        XCTAssertEqual(record.value(forKey: "text") as? String, "Buy balloons")
        XCTAssertEqual(record.object(forKey: "text") as? String, "Buy balloons")
    }

    /// Assets and encrypted values as Apple's documentation shows them.
    func testAssetsAndEncryptedValues() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("photo.jpg")
        let record = CKRecord(recordType: "Photo")
        record["image"] = CKAsset(fileURL: url)
        record.encryptedValues["location"] = "The park"
        let location: String? = record.encryptedValues["location"]
        XCTAssertEqual((record["image"] as? CKAsset)?.fileURL, url)
        XCTAssertEqual(location, "The park")
    }

    /// Caching a record's system fields, as Apple recommends for sync code.
    func testCachingSystemFields() throws {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "note-1"))
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: archiver)
        archiver.finishEncoding()
        let data = archiver.encodedData

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        let restored = try XCTUnwrap(CKRecord(coder: unarchiver))
        unarchiver.finishDecoding()
        XCTAssertEqual(restored.recordID.recordName, "note-1")
        XCTAssertTrue(restored.changedKeys().isEmpty)
    }

    /// Archiving IDs and whole records with the keyed archiver's class API.
    func testArchivingIDsAndRecords() throws {
        let id = CKRecord.ID(recordName: "note-1", zoneID: CKRecordZone.ID(zoneName: "Notes"))
        let data = try NSKeyedArchiver.archivedData(withRootObject: id, requiringSecureCoding: true)
        let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.ID.self, from: data)
        XCTAssertEqual(decoded, id)

        let record = CKRecord(recordType: "Note", recordID: id)
        record["text"] = "hello"
        let recordData = try NSKeyedArchiver.archivedData(withRootObject: record, requiringSecureCoding: true)
        let decodedRecord = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: recordData)
        XCTAssertEqual(decodedRecord?["text"] as? String, "hello")
    }

    /// Records, IDs and references cross concurrency domains, as they are Sendable in CloudKit.
    func testRecordsAreSendable() async {
        let record = CKRecord(recordType: "Note")
        record["text"] = "from a task"
        let ids = [record.recordID]
        let text = await Task.detached { () -> String? in
            _ = ids.count
            return record["text"] as? String
        }.value
        XCTAssertEqual(text, "from a task")
    }
}

/// The README's example, as written there.
final class ReadmeExampleTests: XCTestCase {
    func testReadmeConflictExample() async throws {
        let server = CloudServer(clock: ManualClock())
        let phone = server.container(identifier: "iCloud.com.example.clowns", account: "john")
        let laptop = server.container(identifier: "iCloud.com.example.clowns", account: "john")

        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "clown-party"))
        party["title"] = "Clowns at the park"
        party["attendees"] = 12
        let saved = try await phone.privateCloudDatabase.save(party)

        let stale = try await laptop.privateCloudDatabase.record(for: party.recordID)
        saved["attendees"] = 13
        _ = try await phone.privateCloudDatabase.save(saved)
        stale["attendees"] = 14
        var merged = false
        do {
            _ = try await laptop.privateCloudDatabase.save(stale)
        } catch let error as CKError where error.code == .serverRecordChanged {
            if let serverRecord = error.serverRecord {
                XCTAssertEqual(serverRecord["attendees"] as? Int, 13)
                serverRecord["attendees"] = 14
                _ = try await laptop.privateCloudDatabase.save(serverRecord)
                merged = true
            }
        }
        XCTAssertTrue(merged)
        let final = try await phone.privateCloudDatabase.record(for: party.recordID)
        XCTAssertEqual(final["attendees"] as? Int, 14)
    }
}
