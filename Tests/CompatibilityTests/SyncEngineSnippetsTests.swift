import Foundation
import Stratus
import XCTest

// A CKSyncEngine delegate as Apple's documentation and its sample app write one: a local store
// that persists its data with the engine's serialization, handles every event (with
// `@unknown default`, as CloudKit's enums ask), resolves failed saves by their error code and
// hands the engine its batches. Compiled against `import Stratus` alone, without warnings.

/// A contact as the app stores it, with the system fields of the last server copy.
private struct Contact: Codable, Equatable {
    var name: String
    var lastKnownRecordData: Data?

    var lastKnownRecord: CKRecord? {
        guard let data = lastKnownRecordData, let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        coder.requiresSecureCoding = true
        return CKRecord(coder: coder)
    }

    mutating func setLastKnownRecord(_ record: CKRecord) {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: coder)
        coder.finishEncoding()
        lastKnownRecordData = coder.encodedData
    }
}

/// What the app writes to disk: its contacts and the engine's state, in one JSON file.
private struct AppData: Codable {
    var contacts: [String: Contact] = [:]
    var stateSerialization: CKSyncEngine.State.Serialization?
}

/// A value guarded by a lock, for the delegate's mutable state.
private final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

private final class SyncedDatabase: CKSyncEngineDelegate {
    static let zoneID = CKRecordZone.ID(zoneName: "Contacts")

    private let container: CKContainer
    private let automaticallySync: Bool
    private let appData: Protected<AppData>
    private let engine = Protected<CKSyncEngine?>(nil)
    /// The file on disk.
    let persisted = Protected<Data?>(nil)
    /// The events received, by name.
    let events = Protected<[String]>([])

    init(container: CKContainer, automaticallySync: Bool = true, dataBlob: Data? = nil) {
        self.container = container
        self.automaticallySync = automaticallySync
        let loaded = dataBlob.flatMap { try? JSONDecoder().decode(AppData.self, from: $0) }
        appData = Protected(loaded ?? AppData())
    }

    var syncEngine: CKSyncEngine {
        engine.withLock { engine in
            if let engine { return engine }
            var configuration = CKSyncEngine.Configuration(
                database: container.privateCloudDatabase,
                stateSerialization: appData.withLock { $0.stateSerialization },
                delegate: self
            )
            configuration.automaticallySync = automaticallySync
            configuration.subscriptionID = "contacts-changes"
            let syncEngine = CKSyncEngine(configuration)
            engine = syncEngine
            return syncEngine
        }
    }

    var stateSerialization: CKSyncEngine.State.Serialization? {
        appData.withLock { $0.stateSerialization }
    }

    var names: [String: String] {
        appData.withLock { $0.contacts.mapValues(\.name) }
    }

    func saveContact(_ name: String, id: String) {
        appData.withLock { $0.contacts[id, default: Contact(name: name)].name = name }
        persistLocalData()
        let recordID = CKRecord.ID(recordName: id, zoneID: Self.zoneID)
        syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(recordID)])
    }

    func deleteServerData() async throws {
        syncEngine.state.add(pendingDatabaseChanges: [.deleteZone(Self.zoneID)])
        try await syncEngine.sendChanges()
    }

    private func persistLocalData() {
        guard let data = try? appData.withLock({ try JSONEncoder().encode($0) }) else { return }
        persisted.withLock { $0 = data }
    }

    // MARK: CKSyncEngineDelegate

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .stateUpdate(let event):
            appData.withLock { $0.stateSerialization = event.stateSerialization }
            persistLocalData()

        case .accountChange(let event):
            handleAccountChange(event, syncEngine: syncEngine)

        case .fetchedDatabaseChanges(let event):
            for deletion in event.deletions {
                switch deletion.reason {
                case .deleted, .purged:
                    appData.withLock { $0.contacts = [:] }
                case .encryptedDataReset:
                    // Upload the local data again so the user loses as little as possible.
                    let ids = appData.withLock { Array($0.contacts.keys) }
                    syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: deletion.zoneID))])
                    syncEngine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord(CKRecord.ID(recordName: $0, zoneID: deletion.zoneID)) })
                @unknown default:
                    break
                }
            }
            for modification in event.modifications where modification.zoneID != Self.zoneID {
                events.withLock { $0.append("zone \(modification.zoneID.zoneName) changed") }
            }

        case .fetchedRecordZoneChanges(let event):
            appData.withLock { data in
                for modification in event.modifications {
                    let record = modification.record
                    var contact = data.contacts[record.recordID.recordName] ?? Contact(name: "")
                    contact.name = record["name"] as? String ?? contact.name
                    contact.setLastKnownRecord(record)
                    data.contacts[record.recordID.recordName] = contact
                }
                for deletion in event.deletions where deletion.recordType == "Contact" {
                    data.contacts[deletion.recordID.recordName] = nil
                }
            }
            persistLocalData()

        case .sentDatabaseChanges(let event):
            for failedZoneSave in event.failedZoneSaves {
                events.withLock { $0.append("zone \(failedZoneSave.zone.zoneID.zoneName) not saved: \(failedZoneSave.error.code)") }
            }
            for (zoneID, error) in event.failedZoneDeletes {
                events.withLock { $0.append("zone \(zoneID.zoneName) not deleted: \(error.code)") }
            }
            if !event.savedZones.isEmpty || !event.deletedZoneIDs.isEmpty {
                events.withLock { $0.append("zones sent") }
            }

        case .sentRecordZoneChanges(let event):
            handleSentRecordZoneChanges(event, syncEngine: syncEngine)

        case .willFetchChanges(let event):
            switch event.context.reason {
            case .scheduled: events.withLock { $0.append("willFetchChanges(scheduled)") }
            case .manual: events.withLock { $0.append("willFetchChanges(manual)") }
            @unknown default: break
            }

        case .willFetchRecordZoneChanges(let event):
            events.withLock { $0.append("willFetchRecordZoneChanges(\(event.zoneID.zoneName))") }

        case .didFetchRecordZoneChanges(let event):
            if let error = event.error {
                events.withLock { $0.append("didFetchRecordZoneChanges(\(event.zoneID.zoneName), \(error.code))") }
            }

        case .didFetchChanges(let event):
            events.withLock { $0.append("didFetchChanges(\(event.context.options.scope))") }

        case .willSendChanges(let event):
            events.withLock { $0.append("willSendChanges(\(event.context.options.scope))") }

        case .didSendChanges(let event):
            events.withLock { $0.append("didSendChanges(\(event.context.reason))") }

        @unknown default:
            events.withLock { $0.append("unknown event \(event)") }
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let scope = context.options.scope
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        let contacts = appData.withLock { $0.contacts }
        let batch = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { recordID in
            guard let contact = contacts[recordID.recordName] else {
                // The contact was deleted since: nothing to send.
                syncEngine.state.remove(pendingRecordZoneChanges: [.saveRecord(recordID)])
                return nil
            }
            let record = contact.lastKnownRecord ?? CKRecord(recordType: "Contact", recordID: recordID)
            record["name"] = contact.name
            return record
        }
        return batch
    }

    func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions {
        var options = context.options
        options.prioritizedZoneIDs = [Self.zoneID]
        return options
    }

    // MARK: Events

    private func handleAccountChange(_ event: CKSyncEngine.Event.AccountChange, syncEngine: CKSyncEngine) {
        switch event.changeType {
        case .signIn(let currentUser):
            events.withLock { $0.append("signIn(\(currentUser.recordName))") }
            let ids = appData.withLock { Array($0.contacts.keys) }
            syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: Self.zoneID))])
            syncEngine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord(CKRecord.ID(recordName: $0, zoneID: Self.zoneID)) })
        case .switchAccounts(let previousUser, let currentUser):
            events.withLock { $0.append("switchAccounts(\(previousUser.recordName) → \(currentUser.recordName))") }
            appData.withLock { $0 = AppData() }
        case .signOut(let previousUser):
            events.withLock { $0.append("signOut(\(previousUser.recordName))") }
            appData.withLock { $0 = AppData() }
        @unknown default:
            break
        }
    }

    private func handleSentRecordZoneChanges(_ event: CKSyncEngine.Event.SentRecordZoneChanges, syncEngine: CKSyncEngine) {
        var newPendingRecordZoneChanges = [CKSyncEngine.PendingRecordZoneChange]()
        var newPendingDatabaseChanges = [CKSyncEngine.PendingDatabaseChange]()
        appData.withLock { data in
            for savedRecord in event.savedRecords {
                data.contacts[savedRecord.recordID.recordName]?.setLastKnownRecord(savedRecord)
            }
            for failedRecordSave in event.failedRecordSaves {
                let failedRecord = failedRecordSave.record
                let id = failedRecord.recordID.recordName
                switch failedRecordSave.error.code {
                case .serverRecordChanged:
                    guard let serverRecord = failedRecordSave.error.serverRecord else { continue }
                    data.contacts[id]?.setLastKnownRecord(serverRecord)
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .zoneNotFound:
                    newPendingDatabaseChanges.append(.saveZone(CKRecordZone(zoneID: failedRecord.recordID.zoneID)))
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                    data.contacts[id]?.lastKnownRecordData = nil
                case .unknownItem:
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                    data.contacts[id]?.lastKnownRecordData = nil
                case .networkFailure, .networkUnavailable, .zoneBusy, .serviceUnavailable, .notAuthenticated, .operationCancelled:
                    // The engine retries these itself.
                    break
                default:
                    events.withLock { $0.append("could not save \(id): \(failedRecordSave.error)") }
                }
            }
            for (recordID, error) in event.failedRecordDeletes {
                events.withLock { $0.append("could not delete \(recordID.recordName): \(error.code)") }
            }
            for recordID in event.deletedRecordIDs {
                data.contacts[recordID.recordName]?.lastKnownRecordData = nil
            }
        }
        syncEngine.state.add(pendingDatabaseChanges: newPendingDatabaseChanges)
        syncEngine.state.add(pendingRecordZoneChanges: newPendingRecordZoneChanges)
        persistLocalData()
    }
}

final class SyncEngineSnippetsTests: XCTestCase {
    func testADelegateWrittenAsTheDocumentationShowsSyncsTwoDevices() async throws {
        let server = CloudServer(clock: ManualClock())
        let phone = SyncedDatabase(container: server.container(identifier: "iCloud.com.example.contacts", account: "john"), automaticallySync: false)
        let laptop = SyncedDatabase(container: server.container(identifier: "iCloud.com.example.contacts", account: "john"), automaticallySync: false)

        phone.saveContact("Bozo", id: "bozo")
        try await phone.syncEngine.sendChanges(CKSyncEngine.SendChangesOptions(scope: .zoneIDs([SyncedDatabase.zoneID])))
        let group = CKOperationGroup()
        group.name = "catch-up"
        try await laptop.syncEngine.fetchChanges(CKSyncEngine.FetchChangesOptions(scope: .all, operationGroup: group))
        XCTAssertEqual(laptop.names, ["bozo": "Bozo"])

        // The laptop starts again from what it wrote to disk: the same user, so no account change.
        let serialization = try XCTUnwrap(laptop.stateSerialization)
        let encoded = try JSONEncoder().encode(serialization)
        XCTAssertNoThrow(try JSONDecoder().decode(CKSyncEngine.State.Serialization.self, from: encoded))
        let relaunched = SyncedDatabase(
            container: server.container(identifier: "iCloud.com.example.contacts", account: "john"),
            automaticallySync: false,
            dataBlob: laptop.persisted.withLock { $0 }
        )
        XCTAssertEqual(relaunched.names, ["bozo": "Bozo"])
        try await relaunched.syncEngine.fetchChanges()
        let events = relaunched.events.withLock { $0 }
        XCTAssertEqual(events.first, "willFetchChanges(manual)", "restored from its serialization, the engine knows the user: no signIn")
        XCTAssertEqual(events.last, "didFetchChanges(all)")
    }
}
