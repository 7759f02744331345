import Stratus
import XCTest

/// Saves follow CloudKit's change tags and save policies (cloudkit-api.md §16.1–16.2).
final class SavePolicyTests: ServerTestCase {
    private var john: CKDatabase!
    private var laptop: CKDatabase!
    private let partyID = CKRecord.ID(recordName: "bash")

    override func setUp() {
        super.setUp()
        john = device("john").privateCloudDatabase
        laptop = device("john").privateCloudDatabase
    }

    /// Saves a party with title and attendees, and returns the server's copy.
    private func savedParty() async throws -> CKRecord {
        let party = CKRecord(recordType: "Party", recordID: partyID)
        party["title"] = "WWDC Bash"
        party["attendees"] = 10
        return try await john.save(party)
    }

    func testEverySaveGivesANewTagAndStrictlyLaterDates() async throws {
        let first = try await savedParty()
        first["attendees"] = 11
        let second = try await john.save(first)
        XCTAssertNotEqual(first.recordChangeTag, second.recordChangeTag)
        XCTAssertEqual(second.creationDate, first.creationDate)
        let firstModified = try XCTUnwrap(first.modificationDate)
        let secondModified = try XCTUnwrap(second.modificationDate)
        XCTAssertGreaterThan(secondModified, firstModified, "dates increase even when the clock stands still")
        XCTAssertGreaterThanOrEqual(secondModified.timeIntervalSince(firstModified), 0.000_000_9)
        clock.advance(by: 60)
        second["attendees"] = 12
        let third = try await john.save(second)
        XCTAssertEqual(third.modificationDate, clock.now)
    }

    func testSaveNeverMutatesTheCallersRecordAndReturnsANewOne() async throws {
        let party = CKRecord(recordType: "Party", recordID: partyID)
        party["title"] = "WWDC Bash"
        let saved = try await john.save(party)
        XCTAssertFalse(saved === party)
        XCTAssertNil(party.recordChangeTag)
        XCTAssertEqual(party.changedKeys(), ["title"])
        XCTAssertNotNil(saved.recordChangeTag)
        XCTAssertEqual(saved.changedKeys(), [])
        XCTAssertEqual(saved["title"] as? String, "WWDC Bash")
        saved["title"] = "changed locally"
        let fetched = try await john.record(for: partyID)
        XCTAssertEqual(fetched["title"] as? String, "WWDC Bash", "the server holds no live object of ours")
    }

    func testInsertOverAnExistingRecordIsServerRecordChangedWithoutAncestor() async throws {
        let server = try await savedParty()
        let duplicate = CKRecord(recordType: "Party", recordID: partyID)
        duplicate["title"] = "Another bash"
        let error = await assertThrowsCKError(.serverRecordChanged) { try await self.laptop.save(duplicate) }
        XCTAssertEqual(error?.serverRecord?.recordChangeTag, server.recordChangeTag)
        XCTAssertEqual(error?.serverRecord?["title"] as? String, "WWDC Bash")
        XCTAssertEqual(error?.clientRecord?["title"] as? String, "Another bash")
        XCTAssertFalse(error?.clientRecord === duplicate, "a fresh copy of the client record")
        XCTAssertNil(error?.ancestorRecord)
        XCTAssertTrue(error?.localizedDescription.contains("already exists") == true)
    }

    func testStaleTagIsServerRecordChangedWithServerClientAndAncestor() async throws {
        let original = try await savedParty()
        let johnsCopy = try await john.record(for: partyID)
        let alicesCopy = try await laptop.record(for: partyID)
        johnsCopy["attendees"] = 11
        let johnsSave = try await john.save(johnsCopy)

        alicesCopy["attendees"] = 20
        alicesCopy["title"] = "Alice's bash"
        let error = await assertThrowsCKError(.serverRecordChanged) { try await self.laptop.save(alicesCopy) }
        let serverRecord = try XCTUnwrap(error?.serverRecord)
        XCTAssertEqual(serverRecord.recordChangeTag, johnsSave.recordChangeTag)
        XCTAssertEqual(serverRecord["attendees"] as? Int, 11)
        XCTAssertEqual(serverRecord.changedKeys(), [])
        let client = try XCTUnwrap(error?.clientRecord)
        XCTAssertEqual(client["attendees"] as? Int, 20)
        XCTAssertEqual(client.recordChangeTag, original.recordChangeTag)
        let ancestor = try XCTUnwrap(error?.ancestorRecord)
        XCTAssertEqual(ancestor["attendees"] as? Int, 10)
        XCTAssertEqual(ancestor["title"] as? String, "WWDC Bash")
        XCTAssertEqual(ancestor.recordChangeTag, original.recordChangeTag)

        serverRecord["title"] = "Alice's bash"
        let merged = try await laptop.save(serverRecord)
        XCTAssertEqual(merged["attendees"] as? Int, 11)
        XCTAssertEqual(merged["title"] as? String, "Alice's bash")
    }

    func testAncestorOfADecodedRecordIsTheDecodedVersion() async throws {
        _ = try await savedParty()
        let fetched = try await john.record(for: partyID)
        let archive = try NSKeyedArchiver.archivedData(withRootObject: fetched, requiringSecureCoding: true)
        let cached = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: archive))
        fetched["attendees"] = 99
        _ = try await john.save(fetched)
        cached["attendees"] = 50
        let error = await assertThrowsCKError(.serverRecordChanged) { try await self.laptop.save(cached) }
        XCTAssertEqual(error?.ancestorRecord?["attendees"] as? Int, 10)
    }

    func testTaggedSaveOfARecordDeletedOnTheServerIsUnknownItem() async throws {
        let saved = try await savedParty()
        try await laptop.deleteRecord(withID: partyID)
        saved["attendees"] = 1
        await assertThrowsCKError(.unknownItem) { try await self.john.save(saved) }
    }

    func testChangedKeysAndAllKeysRecreateARecordDeletedOnTheServer() async throws {
        for policy in [CKRecordSavePolicy.changedKeys, .allKeys] {
            let saved = try await savedParty()
            try await laptop.deleteRecord(withID: partyID)
            saved["attendees"] = 1
            let (results, _) = try await john.modifyRecords(saving: [saved], deleting: [], savePolicy: policy)
            let recreated = try XCTUnwrap(try results[partyID]?.get())
            XCTAssertEqual(recreated["attendees"] as? Int, 1)
            try await john.deleteRecord(withID: partyID)
        }
    }

    func testChangedKeysWritesOnlyChangedKeysWithoutATagCheck() async throws {
        let stale = try await savedParty()
        let current = try await laptop.record(for: partyID)
        current["title"] = "Renamed on the laptop"
        current["attendees"] = 30
        _ = try await laptop.save(current)

        stale["attendees"] = 12
        let (results, _) = try await john.modifyRecords(saving: [stale], deleting: [], savePolicy: .changedKeys)
        let saved = try XCTUnwrap(try results[partyID]?.get())
        XCTAssertEqual(saved["attendees"] as? Int, 12)
        XCTAssertEqual(saved["title"] as? String, "Renamed on the laptop", "unchanged keys are not sent")
    }

    func testAllKeysWritesEveryLocalKeyButKeepsServerOnlyFields() async throws {
        let stale = try await savedParty()
        let current = try await laptop.record(for: partyID)
        current["title"] = "Renamed on the laptop"
        current["venue"] = "Moscone"
        _ = try await laptop.save(current)

        stale["attendees"] = 12
        let (results, _) = try await john.modifyRecords(saving: [stale], deleting: [], savePolicy: .allKeys)
        let saved = try XCTUnwrap(try results[partyID]?.get())
        XCTAssertEqual(saved["attendees"] as? Int, 12)
        XCTAssertEqual(saved["title"] as? String, "WWDC Bash", "every local key is written, changed or not")
        XCTAssertEqual(saved["venue"] as? String, "Moscone", "a field only the server has is kept")
    }

    func testAKeySetToNilDeletesTheFieldUnderEveryPolicy() async throws {
        for policy in [CKRecordSavePolicy.ifServerRecordUnchanged, .changedKeys, .allKeys] {
            let saved = try await savedParty()
            saved["title"] = nil
            let (results, _) = try await john.modifyRecords(saving: [saved], deleting: [], savePolicy: policy)
            let updated = try XCTUnwrap(try results[partyID]?.get())
            XCTAssertNil(updated["title"], "\(policy)")
            let fetched = try await laptop.record(for: partyID)
            XCTAssertNil(fetched["title"], "\(policy)")
            XCTAssertEqual(fetched["attendees"] as? Int, 10)
            try await john.deleteRecord(withID: partyID)
        }
    }

    func testRecordFetchedWithDesiredKeysKeepsTheOtherFieldsWhenSaved() async throws {
        _ = try await savedParty()
        let partialResults = try await john.records(for: [partyID], desiredKeys: ["attendees"])
        let partial = try XCTUnwrap(try partialResults[partyID]?.get())
        XCTAssertNil(partial["title"])
        XCTAssertEqual(partial["attendees"] as? Int, 10)
        partial["attendees"] = 11
        for policy in [CKRecordSavePolicy.ifServerRecordUnchanged, .allKeys] {
            let (results, _) = try await john.modifyRecords(saving: [partial], deleting: [], savePolicy: policy)
            XCTAssertNotNil(try results[partyID]?.get())
        }
        let fetched = try await laptop.record(for: partyID)
        XCTAssertEqual(fetched["title"] as? String, "WWDC Bash")
        XCTAssertEqual(fetched["attendees"] as? Int, 11)
    }

    func testDesiredKeysEmptyFetchesOnlySystemFields() async throws {
        _ = try await savedParty()
        let results = try await john.records(for: [partyID], desiredKeys: [])
        let systemOnly = try XCTUnwrap(try results[partyID]?.get())
        XCTAssertEqual(systemOnly.allKeys(), [])
        XCTAssertNotNil(systemOnly.recordChangeTag)
    }

    func testSavingWithAnotherRecordTypeIsInvalid() async throws {
        let saved = try await savedParty()
        let impostor = CKRecord(recordType: "Clown", recordID: partyID)
        let (results, _) = try await john.modifyRecords(saving: [impostor], deleting: [], savePolicy: .changedKeys, atomically: false)
        XCTAssertEqual(code(results[partyID]), .invalidArguments)
        XCTAssertNotNil(saved.recordChangeTag)
    }

    func testEncryptedValuesRoundTripThroughTheServer() async throws {
        let diary = CKRecord(recordType: "Diary", recordID: CKRecord.ID(recordName: "d"))
        diary.encryptedValues["entry"] = "Dear diary"
        _ = try await john.save(diary)
        let fetched = try await laptop.record(for: diary.recordID)
        XCTAssertEqual(fetched.encryptedValues["entry"] as? String, "Dear diary")
        XCTAssertNil(fetched["entry"])
        fetched.encryptedValues["entry"] = nil
        let cleared = try await laptop.save(fetched)
        XCTAssertEqual(cleared.encryptedValues.allKeys(), [])
    }

    func testParentIsSavedAndChangedOnlyWhenSet() async throws {
        let folder = try await john.save(CKRecord(recordType: "Folder", recordID: CKRecord.ID(recordName: "folder")))
        let file = CKRecord(recordType: "File", recordID: CKRecord.ID(recordName: "file"))
        file.setParent(folder)
        let saved = try await john.save(file)
        XCTAssertEqual(saved.parent?.recordID, folder.recordID)
        saved["name"] = "renamed"
        let resaved = try await john.save(saved)
        XCTAssertEqual(resaved.parent?.recordID, folder.recordID)
        resaved.parent = nil
        let orphan = try await john.save(resaved)
        XCTAssertNil(orphan.parent)
    }

    func testDeletingARecordThatDoesNotExistSucceeds() async throws {
        let deleted = try await john.deleteRecord(withID: CKRecord.ID(recordName: "never"))
        XCTAssertEqual(deleted.recordName, "never")
    }

    func testRecordCompletionForms() async throws {
        let party = CKRecord(recordType: "Party", recordID: partyID)
        let saved: CKRecord? = await withCheckedContinuation { continuation in
            john.save(party) { record, _ in continuation.resume(returning: record) }
        }
        XCTAssertNotNil(saved?.recordChangeTag)
        let fetched: CKRecord? = await withCheckedContinuation { continuation in
            john.fetch(withRecordID: partyID) { record, _ in continuation.resume(returning: record) }
        }
        XCTAssertEqual(fetched?.recordChangeTag, saved?.recordChangeTag)
        let batch = await withCheckedContinuation { continuation in
            john.fetch(withRecordIDs: [partyID, CKRecord.ID(recordName: "missing")]) { continuation.resume(returning: $0) }
        }
        let results = try batch.get()
        XCTAssertNotNil(try? results[partyID]?.get())
        XCTAssertEqual(code(results[CKRecord.ID(recordName: "missing")]), .unknownItem)
        let modified = await withCheckedContinuation { continuation in
            john.modifyRecords(saving: [], deleting: [partyID]) { continuation.resume(returning: $0) }
        }
        XCTAssertNotNil(try? modified.get().deleteResults[partyID]?.get())
        let deletedID: CKRecord.ID? = await withCheckedContinuation { continuation in
            john.delete(withRecordID: partyID) { recordID, _ in continuation.resume(returning: recordID) }
        }
        XCTAssertEqual(deletedID, partyID)
    }
}
