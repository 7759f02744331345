import Foundation
import Stratus
import Synchronization
import XCTest

/// A delegate for the sync engine tests that keeps every event it is handed, in order, and
/// sends notes: a pending save goes out as the record the server last returned for its ID
/// (so its change tag is current), or as a new "Note" record. Tests hook into its calls.
final class RecordingNotesDelegate: CKSyncEngineDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [CKSyncEngine.Event] = []
    private var _records: [CKRecord.ID: CKRecord] = [:]
    private var _batchRequests = 0
    private var _fetchOptionRequests = 0

    private var _onEvent: (@Sendable (CKSyncEngine.Event, CKSyncEngine) async -> Void)?
    private var _onBatchRequest: (@Sendable (CKSyncEngine.SendChangesContext) async -> Void)?
    private var _batchProvider: (@Sendable (CKSyncEngine.SendChangesContext, CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch?)?
    private var _onFetchOptionsRequest: (@Sendable () async -> Void)?
    private var _fetchOptions: (@Sendable (CKSyncEngine.FetchChangesContext) -> CKSyncEngine.FetchChangesOptions)?

    /// Runs at the end of `handleEvent`, still inside the event.
    var onEvent: (@Sendable (CKSyncEngine.Event, CKSyncEngine) async -> Void)? {
        get { locked { _onEvent } }
        set { locked { _onEvent = newValue } }
    }
    /// Runs at the start of each `nextRecordZoneChangeBatch`.
    var onBatchRequest: (@Sendable (CKSyncEngine.SendChangesContext) async -> Void)? {
        get { locked { _onBatchRequest } }
        set { locked { _onBatchRequest = newValue } }
    }
    /// What `nextRecordZoneChangeBatch` returns instead of a batch of the pending changes.
    var batchProvider: (@Sendable (CKSyncEngine.SendChangesContext, CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch?)? {
        get { locked { _batchProvider } }
        set { locked { _batchProvider = newValue } }
    }
    /// Runs at the start of each `nextFetchChangesOptions`.
    var onFetchOptionsRequest: (@Sendable () async -> Void)? {
        get { locked { _onFetchOptionsRequest } }
        set { locked { _onFetchOptionsRequest = newValue } }
    }
    /// What `nextFetchChangesOptions` returns; the context's options when nil.
    var fetchOptions: (@Sendable (CKSyncEngine.FetchChangesContext) -> CKSyncEngine.FetchChangesOptions)? {
        get { locked { _fetchOptions } }
        set { locked { _fetchOptions = newValue } }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Every event so far, oldest first.
    var events: [CKSyncEngine.Event] { locked { _events } }
    /// The names of the events so far, `stateUpdate`s left out.
    var names: [String] { events.map(ContactStore.name(of:)).filter { $0 != "stateUpdate" } }
    /// The serialization of the last `stateUpdate`, if any came.
    var lastSerialization: CKSyncEngine.State.Serialization? {
        for case .stateUpdate(let update) in events.reversed() { return update.stateSerialization }
        return nil
    }
    /// How many times the engine asked for a batch.
    var batchRequests: Int { locked { _batchRequests } }
    /// How many times the engine asked for fetch options.
    var fetchOptionRequests: Int { locked { _fetchOptionRequests } }
    /// The zones in the order their fetches began.
    var fetchedZoneOrder: [CKRecordZone.ID] {
        events.compactMap { event in
            if case .willFetchRecordZoneChanges(let will) = event { return will.zoneID }
            return nil
        }
    }
    /// Every record ID fetched as modified.
    var fetchedRecordIDs: [CKRecord.ID] {
        events.compactMap(\.fetchedRecordZoneChangesPayload).flatMap(\.modifications).map(\.record.recordID)
    }

    func clearEvents() {
        locked {
            _events = []
            _batchRequests = 0
            _fetchOptionRequests = 0
        }
    }

    /// Makes a save of `record.recordID` send `record`.
    func keep(_ record: CKRecord) {
        locked { _records[record.recordID] = record }
    }

    /// The record a save of `id` sends.
    func record(for id: CKRecord.ID) -> CKRecord {
        locked {
            if let record = _records[id] { return record }
            let record = CKRecord(recordType: "Note", recordID: id)
            record["title"] = id.recordName
            return record
        }
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        locked {
            _events.append(event)
            switch event {
            case .sentRecordZoneChanges(let sent):
                for record in sent.savedRecords { _records[record.recordID] = record }
            case .fetchedRecordZoneChanges(let fetched):
                for modification in fetched.modifications { _records[modification.record.recordID] = modification.record }
            default:
                break
            }
        }
        await onEvent?(event, syncEngine)
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        locked { _batchRequests += 1 }
        await onBatchRequest?(context)
        if let batchProvider { return await batchProvider(context, syncEngine) }
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { context.options.scope.contains($0) }
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { self.record(for: $0) }
    }

    func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions {
        locked { _fetchOptionRequests += 1 }
        await onFetchOptionsRequest?()
        return fetchOptions?(context) ?? context.options
    }
}

/// Payload accessors for assertions, nil for another case.
extension CKSyncEngine.Event {
    var isStateUpdate: Bool {
        if case .stateUpdate = self { return true }
        return false
    }

    var sentRecordZoneChangesPayload: SentRecordZoneChanges? {
        if case .sentRecordZoneChanges(let payload) = self { return payload }
        return nil
    }

    var sentDatabaseChangesPayload: SentDatabaseChanges? {
        if case .sentDatabaseChanges(let payload) = self { return payload }
        return nil
    }

    var fetchedRecordZoneChangesPayload: FetchedRecordZoneChanges? {
        if case .fetchedRecordZoneChanges(let payload) = self { return payload }
        return nil
    }

    var fetchedDatabaseChangesPayload: FetchedDatabaseChanges? {
        if case .fetchedDatabaseChanges(let payload) = self { return payload }
        return nil
    }

    var accountChangeType: AccountChange.ChangeType? {
        if case .accountChange(let change) = self { return change.changeType }
        return nil
    }
}

extension SyncEngineTestCase {
    /// A new device of `account` whose engine, on its private database, reports to a
    /// ``RecordingNotesDelegate`` (kept alive by the returned tuple).
    func notesDevice(_ account: String = "john", serialization: CKSyncEngine.State.Serialization? = nil, automaticallySync: Bool = false, subscriptionID: CKSubscription.ID? = nil) -> (container: CKContainer, delegate: RecordingNotesDelegate, engine: CKSyncEngine) {
        let container = server.container(identifier: identifier, account: account)
        let delegate = RecordingNotesDelegate()
        var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: serialization, delegate: delegate)
        configuration.automaticallySync = automaticallySync
        configuration.subscriptionID = subscriptionID
        return (container, delegate, CKSyncEngine(configuration))
    }

    /// `count` note IDs in `zoneID`, named `n0`, `n1`, … (padded so they sort in order).
    func noteIDs(_ count: Int, in zoneID: CKRecordZone.ID, prefix: String = "n") -> [CKRecord.ID] {
        (0..<count).map { CKRecord.ID(recordName: String(format: "\(prefix)%04d", $0), zoneID: zoneID) }
    }

    /// Creates the zones with `notesPerZone` notes each in `account`'s private database,
    /// through a device of its own (no engine), and returns the zone IDs in order.
    @discardableResult
    func seedNotes(_ account: String = "john", zones: [String], notesPerZone: Int, prefix: String = "n") async throws -> [CKRecordZone.ID] {
        let database = server.container(identifier: identifier, account: account).privateCloudDatabase
        let zoneIDs = zones.map { CKRecordZone.ID(zoneName: $0) }
        _ = try await database.modifyRecordZones(saving: zoneIDs.map { CKRecordZone(zoneID: $0) }, deleting: [])
        let records = zoneIDs.flatMap { zoneID in
            noteIDs(notesPerZone, in: zoneID, prefix: prefix).map { id in
                let record = CKRecord(recordType: "Note", recordID: id)
                record["title"] = id.recordName
                return record
            }
        }
        if !records.isEmpty { _ = try await database.modifyRecords(saving: records, deleting: []) }
        return zoneIDs
    }

    /// The requests the server has received at `endpoint`.
    func requests(_ endpoint: RecordedRequest.Endpoint) -> Int {
        server.requestLog.filter { $0.endpoint == endpoint }.count
    }

    /// The pending record changes of an engine restored from `serialization`, read without
    /// syncing (the engine does nothing on its own).
    func restoredPending(_ serialization: CKSyncEngine.State.Serialization) -> [CKSyncEngine.PendingRecordZoneChange] {
        restoredState(serialization).pendingRecordZoneChanges
    }

    /// The state of an engine restored from `serialization`, which does nothing on its own.
    func restoredState(_ serialization: CKSyncEngine.State.Serialization) -> CKSyncEngine.State {
        let container = server.container(identifier: identifier, account: nil)
        var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: serialization, delegate: RecordingNotesDelegate())
        configuration.automaticallySync = false
        return CKSyncEngine(configuration).state
    }
}
