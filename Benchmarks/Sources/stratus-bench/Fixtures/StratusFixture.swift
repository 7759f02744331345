@_spi(Testing) import Stratus
import Synchronization

/// What each Stratus measurement starts from: a fresh embedded server on a clock that moves
/// only when told, one account's private database on it, and custom zones.
///
/// Each measurement gets its own fixture, so no run pays for the records of another.
final class StratusFixture: Sendable {
    /// The container every scenario uses.
    static let containerIdentifier = "iCloud.com.example.bench"
    /// The account every scenario signs in with.
    static let account = "bench"

    /// The server's clock; loading moves it one second per batch, so batches get increasing
    /// creation dates.
    let clock: ManualClock
    /// The server.
    let server: CloudServer
    /// The first device's private database.
    let database: CKDatabase
    /// The custom zones, in the order they were asked for.
    let zoneIDs: [CKRecordZone.ID]

    /// The first custom zone.
    var zoneID: CKRecordZone.ID { zoneIDs[0] }

    private init(clock: ManualClock, server: CloudServer, database: CKDatabase, zoneIDs: [CKRecordZone.ID]) {
        self.clock = clock
        self.server = server
        self.database = database
        self.zoneIDs = zoneIDs
    }

    /// A fresh server whose private database has a custom zone for each of `zoneNames`.
    static func make(zones zoneNames: [String] = ["Photos"]) async throws -> StratusFixture {
        let clock = ManualClock()
        let server = CloudServer(clock: clock)
        let database = server.container(identifier: containerIdentifier, account: account).privateCloudDatabase
        let zoneIDs = zoneNames.map { CKRecordZone.ID(zoneName: $0) }
        _ = try await database.modifyRecordZones(saving: zoneIDs.map { CKRecordZone(zoneID: $0) }, deleting: [])
        return StratusFixture(clock: clock, server: server, database: database, zoneIDs: zoneIDs)
    }

    /// The private database of another device signed in to the same account.
    func otherDevice() -> CKDatabase {
        server.container(identifier: Self.containerIdentifier, account: Self.account).privateCloudDatabase
    }

    /// The zone as the `CloudService` names it.
    static func wireZoneID(_ zoneID: CKRecordZone.ID) -> WireZoneID {
        WireZoneID(zoneName: zoneID.zoneName)
    }

    // MARK: - Saving

    /// The largest batch CloudKit takes in one modify request.
    static let batchSize = 400

    /// Saves `records` into `zoneID` through the public API, as an app does: a
    /// `CKModifyRecordsOperation` of at most 400 new `CKRecord`s at a time, added to the
    /// database and waited for before the next.
    ///
    /// - Returns: How many modify requests were sent.
    @discardableResult
    func saveThroughOperations(_ records: ArraySlice<SampleRecord>, in zoneID: CKRecordZone.ID? = nil) async throws -> Int {
        let zoneID = zoneID ?? self.zoneID
        var batches = 0
        var start = records.startIndex
        while start < records.endIndex {
            let end = min(start + Self.batchSize, records.endIndex)
            let operation = CKModifyRecordsOperation(recordsToSave: records[start..<end].map { $0.ckRecord(in: zoneID) })
            try await database.completing(operation)
            batches += 1
            start = end
        }
        return batches
    }

    /// Saves prebuilt `batches` of new records by calling the `CloudService` directly (the
    /// server alone: no `CKRecord`, no operation, no client checks), as a network transport
    /// would hand them over, moving the clock one second after each batch.
    ///
    /// - Throws: ``Miscount`` when a save fails.
    func saveThroughServer(_ batches: [[WireRecordSave]]) async throws {
        let context = database.rawRequestContext()
        for saves in batches {
            let response = try await server.modifyRecords(WireRecordsModifyRequest(context: context, saves: saves, isAtomic: true))
            var saved = 0
            for result in response.saveResults {
                if case .success = result.result { saved += 1 }
            }
            guard saved == saves.count else { throw Miscount(what: "the server's saves", counted: saved, expected: saves.count) }
            clock.advance(by: 1)
        }
    }

    /// `records` as the server-alone path sends them: batches of at most 400 saves into `zoneID`.
    static func wireBatches(_ records: ArraySlice<SampleRecord>, in zoneID: CKRecordZone.ID) -> [[WireRecordSave]] {
        let wireZoneID = wireZoneID(zoneID)
        return stride(from: records.startIndex, to: records.endIndex, by: batchSize).map { start in
            records[start..<min(start + batchSize, records.endIndex)].map { WireRecordSave(record: $0.wireRecord(in: wireZoneID)) }
        }
    }

    /// Fills `zoneID` with `count` sample records through the server alone (fast; loading is not
    /// what these scenarios time), one second of the clock per batch of 400.
    func load(_ count: Int, in zoneID: CKRecordZone.ID? = nil, prefix: String = "photo") async throws {
        let zoneID = zoneID ?? self.zoneID
        var start = 0
        while start < count {
            let end = min(start + 10 * Self.batchSize, count)
            try await saveThroughServer(Self.wireBatches(SampleRecord.batch(start..<end, prefix: prefix)[...], in: zoneID))
            start = end
        }
    }
}

extension StratusFixture {
    /// Saves `records` into `zoneID` through the public API from the calling thread, as a
    /// thread of an app that blocks on each operation: a `CKModifyRecordsOperation` of at most
    /// 400 at a time, waited for with a semaphore.
    ///
    /// - Throws: The first operation's error.
    func saveBlocking(_ records: ArraySlice<SampleRecord>, in zoneID: CKRecordZone.ID) throws {
        var start = records.startIndex
        while start < records.endIndex {
            let end = min(start + Self.batchSize, records.endIndex)
            let operation = CKModifyRecordsOperation(recordsToSave: records[start..<end].map { $0.ckRecord(in: zoneID) })
            let done = DispatchSemaphore(value: 0)
            let outcome = Mutex<Result<Void, any Error>>(.success(()))
            operation.modifyRecordsResultBlock = { result in
                outcome.withLock { $0 = result }
                done.signal()
            }
            database.add(operation)
            done.wait()
            try outcome.withLock { $0 }.get()
            start = end
        }
    }
}
