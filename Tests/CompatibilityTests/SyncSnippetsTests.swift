import Foundation
import Stratus
import XCTest

// Keeping a local cache the way Apple's documentation and the talks show it: a token kept
// in UserDefaults-like storage, a `recordZoneChanges` loop, and the operation form with the
// blocks apps wrote before iOS 15. Compiled against `import Stratus` alone.

/// A local store as an app keeps one: records' system fields archived, their values, a token.
private final class LocalStore: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [CKRecord.ID: String] = [:]
    private var systemFields: [CKRecord.ID: Data] = [:]
    private var tokenData: Data?

    var changeToken: CKServerChangeToken? {
        get {
            lock.withLock { tokenData }.flatMap { try? NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: $0) }
        }
        set {
            let data = newValue.flatMap { try? NSKeyedArchiver.archivedData(withRootObject: $0, requiringSecureCoding: true) }
            lock.withLock { tokenData = data }
        }
    }

    func store(_ record: CKRecord) {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: coder)
        coder.finishEncoding()
        lock.withLock {
            values[record.recordID] = record["text"] as? String
            systemFields[record.recordID] = coder.encodedData
        }
    }

    func remove(_ recordID: CKRecord.ID) {
        lock.withLock {
            values[recordID] = nil
            systemFields[recordID] = nil
        }
    }

    var texts: [String: String] {
        lock.withLock { Dictionary(uniqueKeysWithValues: values.map { ($0.key.recordName, $0.value) }) }
    }

    /// The record rebuilt from its cached system fields, ready to save one changed key.
    func recordForEditing(_ recordID: CKRecord.ID) -> CKRecord? {
        guard let data = lock.withLock({ systemFields[recordID] }),
              let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        coder.requiresSecureCoding = true
        return CKRecord(coder: coder)
    }
}

final class SyncSnippetsTests: XCTestCase {
    func testACacheKeptWithRecordZoneChangesAndAStoredToken() async throws {
        let server = CloudServer(clock: ManualClock())
        let phone = server.container(identifier: "iCloud.com.example.notes", account: "john").privateCloudDatabase
        let laptop = server.container(identifier: "iCloud.com.example.notes", account: "john").privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: CKCurrentUserDefaultName)
        try await phone.save(CKRecordZone(zoneID: zoneID))

        let shopping = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "shopping", zoneID: zoneID))
        shopping["text"] = "milk"
        shopping["pinned"] = 1
        try await phone.save(shopping)

        // The laptop catches up, one batch at a time, keeping its token.
        let cache = LocalStore()
        func catchUp() async throws {
            var moreComing = true
            while moreComing {
                let changes = try await laptop.recordZoneChanges(inZoneWith: zoneID, since: cache.changeToken)
                for (_, result) in changes.modificationResultsByID {
                    switch result {
                    case .success(let modification): cache.store(modification.record)
                    case .failure(let error): XCTFail("\(error)")
                    }
                }
                for deletion in changes.deletions { cache.remove(deletion.recordID) }
                cache.changeToken = changes.changeToken
                moreComing = changes.moreComing
            }
        }
        try await catchUp()
        XCTAssertEqual(cache.texts, ["shopping": "milk"])

        // Offline, the laptop edits one key of its cached copy and saves only that key.
        let edited = try XCTUnwrap(cache.recordForEditing(shopping.recordID))
        edited["text"] = "milk, eggs"
        let saved = try await laptop.save(edited)
        XCTAssertEqual(saved["pinned"] as? Int, 1, "the other fields stay as the server has them")

        try await phone.deleteRecord(withID: shopping.recordID)
        try await catchUp()
        XCTAssertEqual(cache.texts, [:])
    }

    func testTheOperationFormWithThePreIOS15Blocks() throws {
        let server = CloudServer()
        let container = server.container(identifier: "iCloud.com.example.notes", account: "john")
        let database = container.privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Notes")
        let setUp = expectation(description: "set up")
        let zoneOperation = CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneID: zoneID)], recordZoneIDsToDelete: nil)
        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n", zoneID: zoneID))
        note["text"] = "hello"
        let recordOperation = CKModifyRecordsOperation(recordsToSave: [note], recordIDsToDelete: nil)
        recordOperation.addDependency(zoneOperation)
        recordOperation.modifyRecordsResultBlock = { _ in setUp.fulfill() }
        database.add(zoneOperation)
        database.add(recordOperation)
        wait(for: [setUp], timeout: 10)

        let fetched = expectation(description: "fetched")
        let names = LockedNames()
        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration()
        configuration.previousServerChangeToken = nil
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: configuration])
        operation.recordWasChangedBlock = { recordID, result in
            if case .success(let record) = result { names.append(record.recordID.recordName) }
        }
        operation.recordWithIDWasDeletedBlock = { recordID, recordType in names.append("-\(recordID.recordName)") }
        operation.recordZoneFetchResultBlock = { zoneID, result in
            switch result {
            case .success((let serverChangeToken, _, let moreComing)):
                XCTAssertFalse(moreComing)
                XCTAssertNotNil(serverChangeToken)
            case .failure(let error):
                XCTFail("\(error)")
            }
        }
        operation.fetchRecordZoneChangesResultBlock = { _ in fetched.fulfill() }
        database.add(operation)
        wait(for: [fetched], timeout: 10)
        XCTAssertEqual(names.all, ["n"])
    }
}

private final class LockedNames: @unchecked Sendable {
    private let lock = NSLock()
    private var names: [String] = []
    func append(_ name: String) { lock.withLock { names.append(name) } }
    var all: [String] { lock.withLock { names } }
}
