@_spi(Testing) import Stratus
import StratusToolkit
import Synchronization
import XCTest
import _StratusTestSupport

/// The recipes' fixture: John's private database on a server whose clock moves only when a
/// test (or a retry policy's hook) advances it, with the server's write history on.
class RecipeTestCase: OperationTestCase {
    /// Every retry the recipes under test announced, in order.
    let retries = Captured<[RetryEvent]>([])

    override func setUp() {
        super.setUp()
        server.isRecordingWrites = true
        retries.value = []
    }

    /// A policy whose waits end as soon as they begin: its hook records the retry and advances
    /// the test's clock by exactly the wait, so no test sleeps and each wait is checked.
    func drivingPolicy(_ policy: RetryPolicy = RetryPolicy(maximumAttempts: 6, seed: 7)) -> RetryPolicy {
        var policy = policy
        let clock = self.clock!
        let retries = self.retries
        policy.onRetry = { event in
            retries.value.append(event)
            if case .seconds(let seconds) = event.wait { clock.advance(by: seconds) }
        }
        return policy
    }

    func zone(_ name: String) async throws -> CKRecordZone.ID {
        let zone = CKRecordZone(zoneName: name)
        _ = try await database.modifyRecordZones(saving: [zone], deleting: [])
        return zone.zoneID
    }

    func record(_ name: String, in zoneID: CKRecordZone.ID = .default, text: String = "text") -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        record["text"] = text
        return record
    }

    /// The writes the server applied to records, by record name.
    var writesByName: [String: [CloudServer.RecordWrite]] {
        Dictionary(grouping: server.recordedWrites, by: \.recordID.recordName)
    }

    /// Checks the two promises every recipe keeps: each record reported saved is on the server
    /// with the change tag reported, written by exactly one write; no record reported failed
    /// was written at all (unless `writtenFailures` lists it). Records are read back from
    /// `checkedDatabase`, John's private database unless given.
    func assertEachSavedRecordWrittenOnce(
        _ results: [CKRecord.ID: Result<CKRecord, any Error>],
        writtenFailures: Set<String> = [],
        in checkedDatabase: CKDatabase? = nil,
        file: StaticString = #filePath,
        line: UInt = #line
    ) async throws {
        let writes = writesByName
        var saved: [CKRecord.ID: CKRecord] = [:]
        for (recordID, result) in results {
            let recordWrites = writes[recordID.recordName] ?? []
            switch result {
            case .success(let record):
                saved[recordID] = record
                XCTAssertEqual(recordWrites.count, 1, "record '\(recordID.recordName)' was written \(recordWrites.count) times", file: file, line: line)
                XCTAssertEqual(recordWrites.last?.changeTag, record.recordChangeTag, "record '\(recordID.recordName)' was reported with another tag than the server wrote", file: file, line: line)
            case .failure:
                if !writtenFailures.contains(recordID.recordName) {
                    XCTAssertEqual(recordWrites.count, 0, "record '\(recordID.recordName)' was reported failed but written", file: file, line: line)
                }
            }
        }
        guard !saved.isEmpty else { return }
        var onServer: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        for part in Array(saved.keys).parts(ofAtMost: 400) {
            onServer.merge(try await (checkedDatabase ?? database).records(for: Array(part))) { first, _ in first }
        }
        for (recordID, record) in saved {
            let stored = try onServer[recordID]?.get()
            XCTAssertEqual(stored?.recordChangeTag, record.recordChangeTag, "record '\(recordID.recordName)' is reported saved but the server holds \(String(describing: stored?.recordChangeTag))", file: file, line: line)
        }
    }
}

/// A service in front of a `CloudServer` that fails chosen items of modify requests, as
/// CloudKit does in a partial failure: the items are taken out of the request before the
/// server sees it, and answered with the error. In an atomic request, the other items of an
/// atomic (custom) zone are taken out too and answered `batchRequestFailed`, so nothing in
/// that zone is applied, as the server would do.
final class ItemFaultService: CloudService {
    let server: CloudServer
    private let faults = Mutex<[String: [WireError]]>([:])
    /// The record names of every modify request that reached the server, in order.
    let sentModifies = Captured<[[String]]>([])
    /// The `clientChangeTokenData` of every modify request, in order.
    let sentTokens = Captured<[Data?]>([])
    /// How many modify requests the server has answered.
    let completedModifies = Captured(0)
    /// How many of the next modify requests the server applies and then answers with
    /// `serverResponseLost`, as when the connection drops after the server committed.
    private let lostResponses = Mutex(0)

    init(server: CloudServer) {
        self.server = server
    }

    /// Fails the next `count` sends of the record named `recordName` with `error`.
    func failItem(_ recordName: String, times count: Int = 1, with code: CKErrorCode, retryAfter: Double? = nil) {
        let error = WireError(code, "injected item failure: \(code)", retryAfter: retryAfter)
        faults.withLock { $0[recordName, default: []] += Array(repeating: error, count: count) }
    }

    /// Lets the server apply each of the next `count` modify requests, then loses its answer:
    /// the client gets `serverResponseLost`.
    func loseResponses(of count: Int) {
        lostResponses.withLock { $0 += count }
    }

    private func takeFault(_ recordName: String) -> WireError? {
        faults.withLock { faults in
            guard var queue = faults[recordName], !queue.isEmpty else { return nil }
            let error = queue.removeFirst()
            faults[recordName] = queue.isEmpty ? nil : queue
            return error
        }
    }


    func modifyRecords(_ request: WireRecordsModifyRequest) async throws(WireError) -> WireRecordsModifyResponse {
        var saveFaults: [Int: WireError] = [:]
        var deleteFaults: [Int: WireError] = [:]
        for (index, save) in request.saves.enumerated() {
            if let fault = takeFault(save.record.recordID.recordName) { saveFaults[index] = fault }
        }
        for (index, recordID) in request.deletes.enumerated() {
            if let fault = takeFault(recordID.recordName) { deleteFaults[index] = fault }
        }
        if request.isAtomic {
            let failedZones = Set(saveFaults.keys.map { request.saves[$0].record.recordID.zoneID } + deleteFaults.keys.map { request.deletes[$0].zoneID })
                .filter { !$0.isDefaultZone }
            for (index, save) in request.saves.enumerated() where saveFaults[index] == nil && failedZones.contains(save.record.recordID.zoneID) {
                saveFaults[index] = WireAtomicBatch.blocked(inZone: save.record.recordID.zoneID.zoneName)
            }
            for (index, recordID) in request.deletes.enumerated() where deleteFaults[index] == nil && failedZones.contains(recordID.zoneID) {
                deleteFaults[index] = WireAtomicBatch.blocked(inZone: recordID.zoneID.zoneName)
            }
        }
        var forwarded = request
        forwarded.saves = request.saves.enumerated().filter { saveFaults[$0.offset] == nil }.map(\.element)
        forwarded.deletes = request.deletes.enumerated().filter { deleteFaults[$0.offset] == nil }.map(\.element)
        sentModifies.value.append(forwarded.saves.map(\.record.recordID.recordName) + forwarded.deletes.map(\.recordName))
        sentTokens.value.append(request.clientChangeTokenData)
        defer { completedModifies.value += 1 }
        var answer = WireRecordsModifyResponse(saveResults: [], deleteResults: [])
        if !forwarded.saves.isEmpty || !forwarded.deletes.isEmpty {
            answer = try await server.modifyRecords(forwarded)
        }
        let lost = lostResponses.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if lost { throw WireError(.serverResponseLost, "injected: the server applied the request and its answer was lost") }
        var saves = answer.saveResults.makeIterator()
        var deletes = answer.deleteResults.makeIterator()
        return WireRecordsModifyResponse(
            saveResults: request.saves.enumerated().map { index, save in
                if let fault = saveFaults[index] { return WireItemResult(id: save.record.recordID, result: .failure(fault)) }
                return saves.next() ?? WireItemResult(id: save.record.recordID, result: .failure(WireError(.internalError, "missing")))
            },
            deleteResults: request.deletes.enumerated().map { index, recordID in
                if let fault = deleteFaults[index] { return WireItemResult(id: recordID, result: .failure(fault)) }
                return deletes.next() ?? WireItemResult(id: recordID, result: .failure(WireError(.internalError, "missing")))
            }
        )
    }

    func openSession(_ request: WireSessionRequest) async throws(WireError) -> WireSession { try await server.openSession(request) }
    func closeSession(deviceID: String) async { await server.closeSession(deviceID: deviceID) }
    func accountStatus(_ context: WireRequestContext) async -> WireAccountStatus { await server.accountStatus(context) }
    func currentUser(_ context: WireRequestContext) async throws(WireError) -> WireCurrentUserResponse { try await server.currentUser(context) }
    func lookupRecords(_ request: WireRecordsLookupRequest) async throws(WireError) -> WireRecordsLookupResponse { try await server.lookupRecords(request) }
    func uploadAssets(_ request: WireAssetsUploadRequest) async throws(WireError) -> WireAssetsUploadResponse { try await server.uploadAssets(request) }
    func uploadAssetFile(_ request: WireAssetFileUploadRequest) async throws(WireError) -> WireAssetFileUploadResponse { try await server.uploadAssetFile(request) }
    func downloadAssetFile(_ request: WireAssetFileDownloadRequest) async throws(WireError) -> WireAssetFileDownloadResponse { try await server.downloadAssetFile(request) }
    func queryRecords(_ request: WireQueryRequest) async throws(WireError) -> WireQueryResponse { try await server.queryRecords(request) }
    func listZones(_ context: WireRequestContext) async throws(WireError) -> WireZonesListResponse { try await server.listZones(context) }
    func lookupZones(_ request: WireZonesLookupRequest) async throws(WireError) -> WireZonesLookupResponse { try await server.lookupZones(request) }
    func modifyZones(_ request: WireZonesModifyRequest) async throws(WireError) -> WireZonesModifyResponse { try await server.modifyZones(request) }
    func recordChanges(_ request: WireRecordChangesRequest) async throws(WireError) -> WireRecordChangesResponse { try await server.recordChanges(request) }
    func databaseChanges(_ request: WireDatabaseChangesRequest) async throws(WireError) -> WireDatabaseChangesResponse { try await server.databaseChanges(request) }
    func lookupUsers(_ request: WireUsersLookupRequest) async throws(WireError) -> WireUsersLookupResponse { try await server.lookupUsers(request) }
    func lookupContacts(_ context: WireRequestContext) async throws(WireError) -> WireUsersContactsResponse { try await server.lookupContacts(context) }
    func lookupShareParticipants(_ request: WireShareParticipantsLookupRequest) async throws(WireError) -> WireShareParticipantsLookupResponse { try await server.lookupShareParticipants(request) }
    func lookupShareMetadata(_ request: WireShareMetadataLookupRequest) async throws(WireError) -> WireShareMetadataLookupResponse { try await server.lookupShareMetadata(request) }
    func acceptShares(_ request: WireAcceptSharesRequest) async throws(WireError) -> WireAcceptSharesResponse { try await server.acceptShares(request) }
    func applicationPermissionStatus(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus { try await server.applicationPermissionStatus(request) }
    func requestApplicationPermission(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus { try await server.requestApplicationPermission(request) }
    func listSubscriptions(_ context: WireRequestContext) async throws(WireError) -> WireSubscriptionsListResponse { try await server.listSubscriptions(context) }
    func lookupSubscriptions(_ request: WireSubscriptionsLookupRequest) async throws(WireError) -> WireSubscriptionsLookupResponse { try await server.lookupSubscriptions(request) }
    func modifySubscriptions(_ request: WireSubscriptionsModifyRequest) async throws(WireError) -> WireSubscriptionsModifyResponse { try await server.modifySubscriptions(request) }
    func notificationChanges(_ request: WireNotificationChangesRequest) async throws(WireError) -> WireNotificationChangesResponse { try await server.notificationChanges(request) }
    func markNotificationsRead(_ request: WireMarkNotificationsReadRequest) async throws(WireError) -> WireMarkNotificationsReadResponse { try await server.markNotificationsRead(request) }
    func modifyBadge(_ request: WireModifyBadgeRequest) async throws(WireError) { try await server.modifyBadge(request) }
    func registerForPushes(_ context: WireRequestContext, registered: Bool) { server.registerForPushes(context, registered: registered) }
    func pollPushes(_ request: WirePushPollRequest) async -> WirePushPollResponse { await server.pollPushes(request) }
}

extension RecipeTestCase {
    /// John's private database on this device, with requests going through `service`.
    func database(through service: ItemFaultService) -> CKDatabase {
        CKContainer(identifier: identifier, service: service, device: database.container.device).privateCloudDatabase
    }

    /// The container's public database, as John on this device, with requests going through
    /// `service`.
    func publicDatabase(through service: ItemFaultService) -> CKDatabase {
        CKContainer(identifier: identifier, service: service, device: database.container.device).publicCloudDatabase
    }
}
