import Foundation
import Stratus
import Synchronization
import XCTest

/// A device's app in the sync engine tests: a local store of contacts (name by record ID,
/// with the system fields of the last server copy) and a delegate that handles events the
/// way Apple's documentation and sample app do. Every event is logged by name.
final class ContactStore: CKSyncEngineDelegate, @unchecked Sendable {
    struct Contact: Equatable {
        var name: String
        var systemFields: Data?
    }

    let zoneID: CKRecordZone.ID
    private let lock = NSLock()
    private var _contacts: [CKRecord.ID: Contact] = [:]
    private var _events: [String] = []
    private var _serialization: CKSyncEngine.State.Serialization?
    private var _lastSent: CKSyncEngine.Event.SentRecordZoneChanges?
    private var _onEvent: (@Sendable (CKSyncEngine.Event) -> Void)?
    /// Called after each event is handled (for expectations).
    var onEvent: (@Sendable (CKSyncEngine.Event) -> Void)? {
        get { locked { _onEvent } }
        set { locked { _onEvent = newValue } }
    }
    /// How the store resolves `serverRecordChanged`: true keeps the local name (client wins).
    var clientWins = true

    init(zoneID: CKRecordZone.ID = CKRecordZone.ID(zoneName: "Contacts")) {
        self.zoneID = zoneID
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    var contacts: [CKRecord.ID: Contact] { locked { _contacts } }
    var names: [String: String] { locked { Dictionary(uniqueKeysWithValues: _contacts.map { ($0.key.recordName, $0.value.name) }) } }
    var events: [String] { locked { _events } }
    var serialization: CKSyncEngine.State.Serialization? { locked { _serialization } }
    var lastSent: CKSyncEngine.Event.SentRecordZoneChanges? { locked { _lastSent } }
    func clearEvents() { locked { _events = [] } }

    /// Edits a contact locally and tells the engine.
    func save(_ name: String, as recordName: String, engine: CKSyncEngine) {
        let id = CKRecord.ID(recordName: recordName, zoneID: zoneID)
        locked { _contacts[id, default: Contact(name: name)].name = name }
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(id)])
    }

    /// Deletes a contact locally and tells the engine.
    func delete(_ recordName: String, engine: CKSyncEngine) {
        let id = CKRecord.ID(recordName: recordName, zoneID: zoneID)
        locked { _contacts[id] = nil }
        engine.state.add(pendingRecordZoneChanges: [.deleteRecord(id)])
    }

    /// The record to save for `id`: the last server copy's system fields with the local name.
    func record(for id: CKRecord.ID) -> CKRecord? {
        guard let contact = locked({ _contacts[id] }) else { return nil }
        let record: CKRecord
        if let data = contact.systemFields, let coder = try? NSKeyedUnarchiver(forReadingFrom: data),
           let restored = CKRecord(coder: coder) {
            record = restored
        } else {
            record = CKRecord(recordType: "Contact", recordID: id)
        }
        record["name"] = contact.name
        return record
    }

    private func keep(_ record: CKRecord) {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: archiver)
        let name = record["name"] as? String ?? ""
        _contacts[record.recordID] = Contact(name: name, systemFields: archiver.encodedData)
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        locked {
            _events.append(Self.name(of: event))
            switch event {
            case .stateUpdate(let update):
                _serialization = update.stateSerialization
            case .accountChange(let change):
                switch change.changeType {
                case .signIn:
                    let ids = Array(_contacts.keys)
                    syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
                    syncEngine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord($0) })
                case .signOut, .switchAccounts:
                    _contacts = [:]
                @unknown default:
                    break
                }
            case .fetchedDatabaseChanges(let changes):
                for deletion in changes.deletions where deletion.zoneID == zoneID {
                    _contacts = [:]
                }
            case .fetchedRecordZoneChanges(let changes):
                for modification in changes.modifications { keep(modification.record) }
                for deletion in changes.deletions { _contacts[deletion.recordID] = nil }
            case .sentRecordZoneChanges(let sent):
                _lastSent = sent
                for record in sent.savedRecords { keep(record) }
                var resend: [CKSyncEngine.PendingRecordZoneChange] = []
                var recreateZone = false
                for failure in sent.failedRecordSaves {
                    let id = failure.record.recordID
                    switch failure.error.code {
                    case .serverRecordChanged:
                        guard let server = failure.error.serverRecord else { continue }
                        let local = _contacts[id]?.name
                        keep(server)
                        if clientWins, let local {
                            _contacts[id]?.name = local
                            resend.append(.saveRecord(id))
                        }
                    case .zoneNotFound:
                        recreateZone = true
                        _contacts[id]?.systemFields = nil
                        resend.append(.saveRecord(id))
                    case .unknownItem:
                        _contacts[id]?.systemFields = nil
                        resend.append(.saveRecord(id))
                    default:
                        break
                    }
                }
                if recreateZone { syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))]) }
                syncEngine.state.add(pendingRecordZoneChanges: resend)
            default:
                break
            }
        }
        locked { _onEvent }?(event)
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let scope = context.options.scope
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { id in
            // As Apple's sample does: a contact deleted since its save was added is not sent.
            guard let record = self.record(for: id) else {
                syncEngine.state.remove(pendingRecordZoneChanges: [.saveRecord(id)])
                return nil
            }
            return record
        }
    }

    static func name(of event: CKSyncEngine.Event) -> String {
        switch event {
        case .stateUpdate: "stateUpdate"
        case .accountChange(let change):
            switch change.changeType {
            case .signIn: "accountChange(signIn)"
            case .signOut: "accountChange(signOut)"
            case .switchAccounts: "accountChange(switchAccounts)"
            @unknown default: "accountChange"
            }
        case .fetchedDatabaseChanges: "fetchedDatabaseChanges"
        case .fetchedRecordZoneChanges: "fetchedRecordZoneChanges"
        case .sentDatabaseChanges: "sentDatabaseChanges"
        case .sentRecordZoneChanges: "sentRecordZoneChanges"
        case .willFetchChanges: "willFetchChanges"
        case .willFetchRecordZoneChanges: "willFetchRecordZoneChanges"
        case .didFetchRecordZoneChanges(let event): event.error == nil ? "didFetchRecordZoneChanges" : "didFetchRecordZoneChanges(error)"
        case .didFetchChanges: "didFetchChanges"
        case .willSendChanges: "willSendChanges"
        case .didSendChanges: "didSendChanges"
        @unknown default: "unknown"
        }
    }
}

/// A fresh server with a manual clock, and helpers to make devices with their engines.
class SyncEngineTestCase: XCTestCase {
    let identifier = "iCloud.com.example.contacts"
    var clock: ManualClock!
    var server: CloudServer!

    override func setUp() {
        super.setUp()
        clock = ManualClock()
        server = CloudServer(clock: clock)
    }

    override func tearDown() {
        server = nil
        clock = nil
        super.tearDown()
    }

    /// A device of `account` running an engine over its private database.
    func device(_ account: String = "john", store: ContactStore = ContactStore(), serialization: CKSyncEngine.State.Serialization? = nil, automaticallySync: Bool = false) -> (container: CKContainer, store: ContactStore, engine: CKSyncEngine) {
        let container = server.container(identifier: identifier, account: account)
        var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: serialization, delegate: store)
        configuration.automaticallySync = automaticallySync
        return (container, store, CKSyncEngine(configuration))
    }
}
