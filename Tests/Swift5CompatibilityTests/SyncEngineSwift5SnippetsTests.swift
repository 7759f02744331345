import Foundation
import Stratus
import XCTest

// A CKSyncEngine delegate as apps in the Swift 5 language mode write it, after Apple's
// documentation and sample app: a store class keeping its data behind a lock, every event
// handled with `@unknown default`, failed saves handled by error code, batches made by the
// engine's initialiser. It must build without warnings here too.

private final class SyncedDatabase: CKSyncEngineDelegate {
    static let zoneID = CKRecordZone.ID(zoneName: "Contacts")

    private struct AppData: Codable {
        var contacts: [String: String] = [:]
        var lastKnownRecords: [String: Data] = [:]
        var stateSerialization: CKSyncEngine.State.Serialization?
    }

    private let lock = NSLock()
    private let container: CKContainer
    private let automaticallySync: Bool
    private let appData: Box<AppData>
    private let engine = Box<CKSyncEngine?>(nil)
    /// The conflicts the delegate resolved.
    let conflicts = Box(0)

    init(container: CKContainer, automaticallySync: Bool = true) {
        self.container = container
        self.automaticallySync = automaticallySync
        self.appData = Box(AppData())
    }

    var syncEngine: CKSyncEngine {
        lock.lock()
        defer { lock.unlock() }
        if let syncEngine = engine.value { return syncEngine }
        var configuration = CKSyncEngine.Configuration(
            database: container.privateCloudDatabase,
            stateSerialization: appData.value.stateSerialization,
            delegate: self
        )
        configuration.automaticallySync = automaticallySync
        configuration.subscriptionID = "contacts-changes"
        let syncEngine = CKSyncEngine(configuration)
        engine.value = syncEngine
        return syncEngine
    }

    var contacts: [String: String] {
        lock.lock()
        defer { lock.unlock() }
        return appData.value.contacts
    }

    func saveContact(_ name: String, id: String) {
        lock.lock()
        appData.value.contacts[id] = name
        lock.unlock()
        syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(CKRecord.ID(recordName: id, zoneID: Self.zoneID))])
    }

    func persistedState() throws -> Data? {
        lock.lock()
        defer { lock.unlock() }
        guard let serialization = appData.value.stateSerialization else { return nil }
        return try JSONEncoder().encode(serialization)
    }

    private func lastKnownRecord(_ id: String) -> CKRecord? {
        guard let data = appData.value.lastKnownRecords[id], let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        coder.requiresSecureCoding = true
        return CKRecord(coder: coder)
    }

    private func setLastKnownRecord(_ record: CKRecord) {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: coder)
        coder.finishEncoding()
        appData.value.lastKnownRecords[record.recordID.recordName] = coder.encodedData
    }

    // MARK: CKSyncEngineDelegate

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        lock.withLock { self.handle(event, syncEngine: syncEngine) }
    }

    private func handle(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) {
        switch event {
        case .stateUpdate(let event):
            self.appData.value.stateSerialization = event.stateSerialization

        case .accountChange(let event):
            switch event.changeType {
            case .signIn:
                let ids = self.appData.value.contacts.keys.map { CKRecord.ID(recordName: $0, zoneID: Self.zoneID) }
                syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: Self.zoneID))])
                syncEngine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord($0) })
            case .switchAccounts, .signOut:
                self.appData.value = AppData()
            @unknown default:
                break
            }

        case .fetchedDatabaseChanges(let event):
            for deletion in event.deletions {
                switch deletion.reason {
                case .deleted, .purged, .encryptedDataReset:
                    if deletion.zoneID == Self.zoneID { self.appData.value.contacts = [:] }
                @unknown default:
                    break
                }
            }

        case .fetchedRecordZoneChanges(let event):
            for modification in event.modifications {
                let record = modification.record
                self.appData.value.contacts[record.recordID.recordName] = record["name"] as? String
                self.setLastKnownRecord(record)
            }
            for deletion in event.deletions {
                self.appData.value.contacts[deletion.recordID.recordName] = nil
            }

        case .sentRecordZoneChanges(let event):
            var newPendingRecordZoneChanges = [CKSyncEngine.PendingRecordZoneChange]()
            for savedRecord in event.savedRecords {
                self.setLastKnownRecord(savedRecord)
            }
            for failedRecordSave in event.failedRecordSaves {
                let failedRecord = failedRecordSave.record
                switch failedRecordSave.error.code {
                case .serverRecordChanged:
                    // The local change wins: save it again on top of the server's record.
                    guard let serverRecord = failedRecordSave.error.serverRecord else { continue }
                    self.setLastKnownRecord(serverRecord)
                    self.conflicts.value += 1
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .zoneNotFound:
                    syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: failedRecord.recordID.zoneID))])
                    self.appData.value.lastKnownRecords[failedRecord.recordID.recordName] = nil
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .unknownItem:
                    self.appData.value.lastKnownRecords[failedRecord.recordID.recordName] = nil
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .networkFailure, .networkUnavailable, .zoneBusy, .serviceUnavailable, .notAuthenticated, .operationCancelled:
                    break
                default:
                    break
                }
            }
            syncEngine.state.add(pendingRecordZoneChanges: newPendingRecordZoneChanges)

        case .willSendChanges(let event):
            switch event.context.reason {
            case .scheduled, .manual:
                break
            @unknown default:
                break
            }

        case .sentDatabaseChanges, .willFetchChanges, .willFetchRecordZoneChanges, .didFetchRecordZoneChanges,
             .didFetchChanges, .didSendChanges:
            break

        @unknown default:
            break
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { context.options.scope.contains($0) }
        let recordsToSave = lock.withLock { () -> [CKRecord.ID: CKRecord] in
            var records: [CKRecord.ID: CKRecord] = [:]
            for change in changes {
                let recordID: CKRecord.ID
                switch change {
                case .saveRecord(let id):
                    recordID = id
                case .deleteRecord:
                    continue
                @unknown default:
                    continue
                }
                guard let name = self.appData.value.contacts[recordID.recordName] else { continue }
                let record = self.lastKnownRecord(recordID.recordName) ?? CKRecord(recordType: "Contact", recordID: recordID)
                record["name"] = name
                records[recordID] = record
            }
            return records
        }
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { recordID in
            recordsToSave[recordID]
        }
    }

    func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions {
        var options = context.options
        options.prioritizedZoneIDs = [Self.zoneID]
        return options
    }
}

/// A mutable value that the delegate reads and writes under its own lock.
private final class Box<Value>: @unchecked Sendable {
    var value: Value

    init(_ value: Value) {
        self.value = value
    }
}

final class SyncEngineSwift5SnippetsTests: XCTestCase {
    func testADelegateWrittenInSwift5ModeResolvesAConflict() async throws {
        let server = CloudServer(clock: ManualClock())
        let phone = SyncedDatabase(container: server.container(identifier: "iCloud.com.example.contacts", account: "john"), automaticallySync: false)
        let laptop = SyncedDatabase(container: server.container(identifier: "iCloud.com.example.contacts", account: "john"), automaticallySync: false)

        phone.saveContact("Bozo", id: "bozo")
        try await phone.syncEngine.sendChanges(CKSyncEngine.SendChangesOptions(scope: .zoneIDs([SyncedDatabase.zoneID])))
        try await laptop.syncEngine.fetchChanges(CKSyncEngine.FetchChangesOptions(scope: .zoneIDs([SyncedDatabase.zoneID]), operationGroup: nil))
        XCTAssertEqual(laptop.contacts, ["bozo": "Bozo"])

        phone.saveContact("Bozo the Clown", id: "bozo")
        try await phone.syncEngine.sendChanges()
        laptop.saveContact("Bozo the Great", id: "bozo")
        do {
            try await laptop.syncEngine.sendChanges()
            XCTFail("the laptop's save of a stale record conflicts")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .partialFailure)
        }
        try await laptop.syncEngine.sendChanges()
        try await phone.syncEngine.fetchChanges()
        XCTAssertEqual(laptop.conflicts.value, 1)
        XCTAssertEqual(phone.contacts, ["bozo": "Bozo the Great"], "the laptop's delegate saved its name again on top of the server's record")
        XCTAssertNotNil(try laptop.persistedState())
    }
}
