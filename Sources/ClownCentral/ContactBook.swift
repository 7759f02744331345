import Foundation
import Stratus
import Synchronization

/// One contact as a device keeps it: its fields, when the user last changed it, and the
/// system fields of the last server copy it saw, as Apple's CKSyncEngine sample keeps them.
struct Contact: Sendable, Equatable {
    /// The zone every contact lives in.
    static let zoneName = "Contacts"
    /// The record type contacts are saved as.
    static let recordType = "Contact"

    /// The record name.
    var id: String
    var name: String
    /// When the user last edited the contact: what conflicts are resolved by.
    var userModificationDate: Date
    /// The last server copy's `encodeSystemFields` data.
    var lastKnownRecordData: Data?

    var recordID: CKRecord.ID {
        CKRecord.ID(recordName: id, zoneID: CKRecordZone.ID(zoneName: Self.zoneName))
    }

    /// The last server copy, rebuilt from its system fields: change tag and dates, no fields.
    var lastKnownRecord: CKRecord? {
        get {
            guard let data = lastKnownRecordData, let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
            coder.requiresSecureCoding = true
            defer { coder.finishDecoding() }
            return CKRecord(coder: coder)
        }
        set {
            guard let record = newValue else {
                lastKnownRecordData = nil
                return
            }
            let coder = NSKeyedArchiver(requiringSecureCoding: true)
            record.encodeSystemFields(with: coder)
            coder.finishEncoding()
            lastKnownRecordData = coder.encodedData
        }
    }

    /// The change tag of the last server copy.
    var lastKnownChangeTag: String? { lastKnownRecord?.recordChangeTag }

    /// Keeps `record` as the last known server copy if it is newer than the one kept (events
    /// may bring copies out of order). The server's dates never repeat, even on a test's
    /// clock that does not move.
    mutating func setLastKnownRecordIfNewer(_ record: CKRecord) {
        if let kept = lastKnownRecord?.modificationDate {
            if let other = record.modificationDate, kept < other { lastKnownRecord = record }
        } else {
            lastKnownRecord = record
        }
    }

    /// Takes the server's fields when the server's edit is newer than the local one.
    mutating func mergeFromServerRecord(_ record: CKRecord) {
        let serverDate: Date? = record.encryptedValues["userModificationDate"]
        guard let serverDate, serverDate > userModificationDate else { return }
        userModificationDate = serverDate
        if let serverName: String = record.encryptedValues["name"] { name = serverName }
    }

    /// Writes the contact's fields into `record`, the record the engine will save.
    func populateRecord(_ record: CKRecord) {
        record.encryptedValues["name"] = name
        record.encryptedValues["userModificationDate"] = userModificationDate
    }
}

/// A device's contacts app: its local store and its `CKSyncEngine`'s delegate, written as
/// Apple's sample app writes `SyncedDatabase` (an actor there; a class guarding its data with
/// a mutex here, as the delegate protocol asks for `Sendable`). It also notes, for the story,
/// the events it received and the conflicts it resolved.
final class ContactBook: CKSyncEngineDelegate {
    private struct AppData {
        var contacts: [String: Contact] = [:]
        var stateSerialization: CKSyncEngine.State.Serialization?
        var events: [String] = []
        var savedPerBatch: [Int] = []
        var conflictsResolved = 0
        var serverNamesInConflicts: [String] = []
    }

    private let database: CKDatabase
    private let automaticallySync: Bool
    private let appData = Mutex(AppData())
    private let engine = Mutex<CKSyncEngine?>(nil)

    init(database: CKDatabase, automaticallySync: Bool = false) {
        self.database = database
        self.automaticallySync = automaticallySync
    }

    /// The device's engine, made on first use from the last serialization.
    var syncEngine: CKSyncEngine {
        engine.withLock { engine in
            if let engine { return engine }
            var configuration = CKSyncEngine.Configuration(database: database, stateSerialization: appData.withLock { $0.stateSerialization }, delegate: self)
            configuration.automaticallySync = automaticallySync
            let made = CKSyncEngine(configuration)
            engine = made
            return made
        }
    }

    // MARK: What the story reads

    /// The contacts, by record name.
    var contacts: [String: Contact] { appData.withLock { $0.contacts } }

    /// The events received since the last call, `stateUpdate`s left out (their number
    /// depends on timing), each `sentRecordZoneChanges` with its count of saved records.
    func takeEvents() -> [String] {
        appData.withLock { data in
            defer { data.events = [] }
            return data.events
        }
    }

    /// The records each `sentRecordZoneChanges` saved, since the last call.
    func takeSavedPerBatch() -> [Int] {
        appData.withLock { data in
            defer { data.savedPerBatch = [] }
            return data.savedPerBatch
        }
    }

    /// The `serverRecordChanged` conflicts the delegate resolved, and the server's name in each.
    var conflicts: (resolved: Int, serverNames: [String]) {
        appData.withLock { ($0.conflictsResolved, $0.serverNamesInConflicts) }
    }

    // MARK: Data

    /// Saves contacts locally, then tells the engine.
    func saveContacts(_ contacts: [Contact]) {
        appData.withLock { data in
            for var contact in contacts {
                // Make sure not to lose the last known record of an existing contact.
                if let existingRecord = data.contacts[contact.id]?.lastKnownRecord {
                    contact.setLastKnownRecordIfNewer(existingRecord)
                }
                data.contacts[contact.id] = contact
            }
        }
        syncEngine.state.add(pendingRecordZoneChanges: contacts.map { .saveRecord($0.recordID) })
    }

    /// Renames one contact locally, then tells the engine.
    func rename(_ id: String, to name: String, at date: Date) {
        guard var contact = contacts[id] else { return }
        contact.name = name
        contact.userModificationDate = date
        saveContacts([contact])
    }

    // MARK: CKSyncEngineDelegate

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .stateUpdate(let event):
            appData.withLock { $0.stateSerialization = event.stateSerialization }

        case .accountChange(let event):
            note("accountChange(\(Self.name(of: event.changeType)))")
            handleAccountChange(event, syncEngine: syncEngine)

        case .fetchedDatabaseChanges(let event):
            note("fetchedDatabaseChanges")
            handleFetchedDatabaseChanges(event)

        case .fetchedRecordZoneChanges(let event):
            note("fetchedRecordZoneChanges")
            handleFetchedRecordZoneChanges(event)

        case .sentRecordZoneChanges(let event):
            note("sentRecordZoneChanges(\(event.savedRecords.count) saved, \(event.failedRecordSaves.count) failed)")
            handleSentRecordZoneChanges(event, syncEngine: syncEngine)

        case .sentDatabaseChanges(let event):
            // The app keeps nothing about zones.
            note("sentDatabaseChanges(\(event.savedZones.count) zone saved)")

        case .willFetchChanges, .willFetchRecordZoneChanges, .didFetchRecordZoneChanges, .didFetchChanges, .willSendChanges, .didSendChanges:
            // Nothing to set up or clean up around a sync in this app.
            note(Self.name(of: event))

        @unknown default:
            note("unknown event \(event)")
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let scope = context.options.scope
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        let contacts = self.contacts
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { recordID in
            guard let contact = contacts[recordID.recordName] else {
                // A change pending for a contact deleted since: not to be sent.
                syncEngine.state.remove(pendingRecordZoneChanges: [.saveRecord(recordID)])
                return nil
            }
            let record = contact.lastKnownRecord ?? CKRecord(recordType: Contact.recordType, recordID: recordID)
            contact.populateRecord(record)
            return record
        }
    }

    // MARK: Events

    private func handleAccountChange(_ event: CKSyncEngine.Event.AccountChange, syncEngine: CKSyncEngine) {
        switch event.changeType {
        case .signIn:
            // Keep what this device has and upload it all to the account.
            let ids = appData.withLock { $0.contacts.values.map(\.recordID) }
            let zoneIDs = Set(ids.map(\.zoneID))
            syncEngine.state.add(pendingDatabaseChanges: zoneIDs.map { .saveZone(CKRecordZone(zoneID: $0)) })
            syncEngine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord($0) })
        case .signOut, .switchAccounts:
            // The data belonged to the previous account.
            appData.withLock { $0.contacts = [:] }
        @unknown default:
            break
        }
    }

    private func handleFetchedDatabaseChanges(_ event: CKSyncEngine.Event.FetchedDatabaseChanges) {
        for deletion in event.deletions where deletion.zoneID.zoneName == Contact.zoneName {
            appData.withLock { $0.contacts = [:] }
        }
    }

    private func handleFetchedRecordZoneChanges(_ event: CKSyncEngine.Event.FetchedRecordZoneChanges) {
        appData.withLock { data in
            for modification in event.modifications {
                let record = modification.record
                let id = record.recordID.recordName
                var contact = data.contacts[id] ?? Contact(id: id, name: "", userModificationDate: .distantPast)
                contact.mergeFromServerRecord(record)
                contact.setLastKnownRecordIfNewer(record)
                data.contacts[id] = contact
            }
            for deletion in event.deletions {
                data.contacts[deletion.recordID.recordName] = nil
            }
        }
    }

    private func handleSentRecordZoneChanges(_ event: CKSyncEngine.Event.SentRecordZoneChanges, syncEngine: CKSyncEngine) {
        var newPendingRecordZoneChanges: [CKSyncEngine.PendingRecordZoneChange] = []
        var newPendingDatabaseChanges: [CKSyncEngine.PendingDatabaseChange] = []
        appData.withLock { data in
            data.savedPerBatch.append(event.savedRecords.count)
            for savedRecord in event.savedRecords {
                data.contacts[savedRecord.recordID.recordName]?.setLastKnownRecordIfNewer(savedRecord)
            }
            for failedRecordSave in event.failedRecordSaves {
                let failedRecord = failedRecordSave.record
                let id = failedRecord.recordID.recordName
                switch failedRecordSave.error.code {
                case .serverRecordChanged:
                    // Merge the server's copy into the local contact and save again on top of it.
                    guard let serverRecord = failedRecordSave.error.serverRecord, var contact = data.contacts[id] else { continue }
                    contact.mergeFromServerRecord(serverRecord)
                    contact.setLastKnownRecordIfNewer(serverRecord)
                    data.contacts[id] = contact
                    data.conflictsResolved += 1
                    let serverName: String? = serverRecord.encryptedValues["name"]
                    data.serverNamesInConflicts.append(serverName ?? "")
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .zoneNotFound:
                    // The zone is gone: make it again, and save the record as new.
                    newPendingDatabaseChanges.append(.saveZone(CKRecordZone(zoneID: failedRecord.recordID.zoneID)))
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                    data.contacts[id]?.lastKnownRecordData = nil
                case .unknownItem:
                    // Another device deleted it: this app uploads its copy again.
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                    data.contacts[id]?.lastKnownRecordData = nil
                case .networkFailure, .networkUnavailable, .zoneBusy, .serviceUnavailable, .notAuthenticated, .operationCancelled:
                    // The engine retries these itself.
                    break
                default:
                    break
                }
            }
        }
        syncEngine.state.add(pendingDatabaseChanges: newPendingDatabaseChanges)
        syncEngine.state.add(pendingRecordZoneChanges: newPendingRecordZoneChanges)
    }

    private func note(_ event: String) {
        appData.withLock { $0.events.append(event) }
    }

    private static func name(of change: CKSyncEngine.Event.AccountChange.ChangeType) -> String {
        switch change {
        case .signIn: "signIn"
        case .signOut: "signOut"
        case .switchAccounts: "switchAccounts"
        @unknown default: "unknown"
        }
    }

    private static func name(of event: CKSyncEngine.Event) -> String {
        switch event {
        case .willFetchChanges: "willFetchChanges"
        case .willFetchRecordZoneChanges: "willFetchRecordZoneChanges"
        case .didFetchRecordZoneChanges: "didFetchRecordZoneChanges"
        case .didFetchChanges: "didFetchChanges"
        case .willSendChanges: "willSendChanges"
        case .didSendChanges: "didSendChanges"
        default: "\(event)"
        }
    }
}
