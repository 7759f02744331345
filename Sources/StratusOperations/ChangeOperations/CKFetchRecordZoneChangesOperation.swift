import Foundation
import StratusCore
import StratusWire

/// Fetches what changed in record zones since change tokens you kept: the records saved, in
/// their latest version, and the records deleted.
///
/// ```swift
/// let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(previousServerChangeToken: storedToken)
/// let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [notesZoneID], configurationsByRecordZoneID: [notesZoneID: configuration])
/// operation.recordWasChangedBlock = { recordID, result in … }          // cache the record
/// operation.recordWithIDWasDeletedBlock = { recordID, recordType in … } // drop it
/// operation.recordZoneFetchResultBlock = { zoneID, result in … }       // keep the new token
/// operation.fetchRecordZoneChangesResultBlock = { result in … }
/// database.add(operation)
/// ```
///
/// Zones are fetched one after another, in the order of ``recordZoneIDs``. Within a zone each
/// batch's changed and deleted records come first, then, when more batches follow, a
/// checkpoint through ``recordZoneChangeTokensUpdatedBlock``, and last the zone's result; the
/// final block comes after every zone. With ``fetchAllChanges`` (the default) the operation
/// sends one request per batch until the zone has nothing more, and `moreComing` is false;
/// without it, each zone gets one batch and `moreComing` says whether to run again from the
/// returned token. Tokens already delivered stay valid even if the operation fails later.
///
/// A zone that fails (`zoneNotFound`, `changeTokenExpired` — reset the token to nil and fetch
/// everything again —, `invalidArguments` for a foreign token) fails in its result and the
/// final result is a `partialFailure` keyed by zone ID; other zones go on. A failure of the
/// request itself (no account, network, cancellation) fails the zones not fetched yet too.
///
/// CloudKit document: *CKFetchRecordZoneChangesOperation*.
public final class CKFetchRecordZoneChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    /// How to fetch one zone's changes.
    public typealias ZoneConfiguration = CKFetchRecordZoneChangesConfiguration

    /// The iOS 10–11 spelling of a zone's fetch settings.
    @available(*, deprecated, message: "Use ZoneConfiguration")
    public typealias ZoneOptions = CKFetchRecordZoneChangesOptions

    // MARK: - Properties

    /// The zones to fetch, in order.
    @_Locked public var recordZoneIDs: [CKRecordZone.ID]? = nil

    /// Where to start and how to fetch, per zone; a zone without one is fetched from the
    /// beginning, with every field.
    @_Locked public var configurationsByRecordZoneID: [CKRecordZone.ID: ZoneConfiguration]? = nil

    /// The iOS 10–11 per-zone settings, read into ``configurationsByRecordZoneID``.
    @available(*, deprecated, message: "Use configurationsByRecordZoneID")
    public var optionsByRecordZoneID: [CKRecordZone.ID: CKFetchRecordZoneChangesOptions]? {
        get {
            configurationsByRecordZoneID?.mapValues { configuration in
                let options = CKFetchRecordZoneChangesOptions()
                options.previousServerChangeToken = configuration.previousServerChangeToken
                options.desiredKeys = configuration.desiredKeys
                return options
            }
        }
        set {
            configurationsByRecordZoneID = newValue?.mapValues {
                ZoneConfiguration(previousServerChangeToken: $0.previousServerChangeToken, desiredKeys: $0.desiredKeys)
            }
        }
    }

    /// Whether the operation fetches each zone until nothing more is waiting: true unless set.
    @_Locked public var fetchAllChanges: Bool = true

    /// Creates an operation that fetches the changes of `recordZoneIDs`.
    public convenience init(recordZoneIDs: [CKRecordZone.ID]? = nil, configurationsByRecordZoneID: [CKRecordZone.ID: ZoneConfiguration]? = nil) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
        self.configurationsByRecordZoneID = configurationsByRecordZoneID
    }

    /// Creates an operation with the iOS 10–11 per-zone settings.
    @available(*, deprecated, message: "Use init(recordZoneIDs:configurationsByRecordZoneID:)")
    public convenience init(recordZoneIDs: [CKRecordZone.ID], optionsByRecordZoneID: [CKRecordZone.ID: CKFetchRecordZoneChangesOptions]?) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
        self.configurationsByRecordZoneID = optionsByRecordZoneID?.mapValues {
            ZoneConfiguration(previousServerChangeToken: $0.previousServerChangeToken, desiredKeys: $0.desiredKeys)
        }
    }

    // MARK: - Per-item callbacks

    /// Called once per record saved since the token, with the record in its latest version.
    @_OperationBlock public var recordWasChangedBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?

    /// The legacy per-record block; ignored when ``recordWasChangedBlock`` is set.
    @available(*, deprecated, message: "Use recordWasChangedBlock instead, which surfaces per-record errors")
    @_OperationBlock public var recordChangedBlock: ((CKRecord) -> Void)?

    /// Called once per record deleted since the token (by a delete or a `deleteSelf`
    /// cascade), with the type the record had.
    @_OperationBlock public var recordWithIDWasDeletedBlock: ((CKRecord.ID, CKRecord.RecordType) -> Void)?

    /// Called after each batch of a zone but the last, when ``fetchAllChanges`` is true: a
    /// checkpoint to store, so a fetch that fails later resumes from there.
    @_OperationBlock public var recordZoneChangeTokensUpdatedBlock: ((CKRecordZone.ID, CKServerChangeToken?, Data?) -> Void)?

    /// Called once per zone, after its changes: the token to keep, the `clientChangeTokenData`
    /// of the zone's last modify, and whether more changes wait; or why the zone failed.
    @_OperationBlock public var recordZoneFetchResultBlock: ((CKRecordZone.ID, Result<(serverChangeToken: CKServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool), any Error>) -> Void)?

    /// The legacy per-zone block; ignored when ``recordZoneFetchResultBlock`` is set.
    @available(*, deprecated, message: "Use recordZoneFetchResultBlock instead")
    @_OperationBlock public var recordZoneFetchCompletionBlock: ((CKRecordZone.ID, CKServerChangeToken?, Data?, Bool, (any Error)?) -> Void)?

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` keyed by the
    /// zones that failed.
    @_OperationBlock public var fetchRecordZoneChangesResultBlock: ((Result<Void, any Error>) -> Void)?

    /// The legacy final block; ignored when ``fetchRecordZoneChangesResultBlock`` is set.
    @available(*, deprecated, message: "Use fetchRecordZoneChangesResultBlock instead")
    @_OperationBlock public var fetchRecordZoneChangesCompletionBlock: (((any Error)?) -> Void)?

    // MARK: - Request

    /// The zones to fetch: ``recordZoneIDs``, or the configured zones when it is nil.
    private var zonesToFetch: [CKRecordZone.ID] {
        recordZoneIDs ?? (configurationsByRecordZoneID.map { Array($0.keys) } ?? [])
    }

    override func run() async {
        let configurations = configurationsByRecordZoneID ?? [:]
        let fetchAll = fetchAllChanges
        var zoneErrors: [(CKRecordZone.ID, Result<Void, any Error>)] = []
        var stop: CKError?
        for zoneID in zonesToFetch {
            if let stop {
                zoneErrors.append((zoneID, .failure(stop)))
                deliver { self.deliverZoneResult(zoneID, .failure(stop)) }
                continue
            }
            let configuration = configurations[zoneID]
            let limit = max(0, configuration?.resultsLimit ?? 0)
            let desiredKeys = configuration?.desiredKeys
            let cache = assetCache
            let result = await readChanges(from: configuration?.previousServerChangeToken, fetchAll: fetchAll) { since in
                await send(to: runDatabase) { service, context async throws(WireError) in
                    var downloads = AssetDownloads(service: service, cache: cache)
                    return await downloads.localize(try await service.recordChanges(WireRecordChangesRequest(
                        context: context, zoneID: zoneID.wireValue, sinceToken: since, resultsLimit: limit, desiredKeys: desiredKeys
                    )))
                }
            } page: { batch, token, continues in
                deliver {
                    self.deliverBatch(batch)
                    if continues {
                        self.recordZoneChangeTokensUpdatedBlock?(zoneID, token, batch.clientChangeTokenData)
                    } else {
                        self.deliverZoneResult(zoneID, .success((token, batch.clientChangeTokenData, fetchAll ? false : batch.moreComing)))
                    }
                }
            }
            if case .failure(let error) = result {
                if !Self.failsOnlyItsZone(error) { stop = error }
                zoneErrors.append((zoneID, .failure(error)))
                deliver { self.deliverZoneResult(zoneID, .failure(error)) }
            }
        }
        let failure = stop ?? CKError.partialFailure(of: zoneErrors)
        finish(with: failure) { self.deliverFinal(failure) }
    }

    /// Whether a zone's failure leaves the other zones to fetch: the zone is gone or cannot
    /// be fetched, or its token is expired or foreign. Other failures stop the operation.
    private static func failsOnlyItsZone(_ error: CKError) -> Bool {
        [.zoneNotFound, .userDeletedZone, .changeTokenExpired, .invalidArguments].contains(error.code)
    }

    override func reportFailure(_ error: CKError) {
        for zoneID in zonesToFetch { deliverZoneResult(zoneID, .failure(error)) }
        deliverFinal(error)
    }

    // MARK: - Result mapping

    /// Calls the per-record blocks of one batch. Runs on the callback queue.
    private func deliverBatch(_ batch: WireRecordChangesResponse) {
        let changed = recordWasChangedBlock
        let legacyChanged: ((CKRecord) -> Void)? = blocks[\CKFetchRecordZoneChangesOperation._recordChangedBlock]
        for wire in batch.changed {
            let record = CKRecord.make(wire: wire)
            if let changed {
                changed(record.recordID, .success(record))
            } else {
                legacyChanged?(record)
            }
        }
        if let deleted = recordWithIDWasDeletedBlock {
            for deletion in batch.deleted { deleted(CKRecord.ID(wire: deletion.recordID), deletion.recordType) }
        }
    }

    /// Calls the per-zone result block, or its legacy twin. Runs on the callback queue.
    private func deliverZoneResult(_ zoneID: CKRecordZone.ID, _ result: Result<(serverChangeToken: CKServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool), any Error>) {
        if let block = recordZoneFetchResultBlock {
            block(zoneID, result)
        } else if let legacy: (CKRecordZone.ID, CKServerChangeToken?, Data?, Bool, (any Error)?) -> Void = blocks[\CKFetchRecordZoneChangesOperation._recordZoneFetchCompletionBlock] {
            switch result {
            case .success(let value): legacy(zoneID, value.serverChangeToken, value.clientChangeTokenData, value.moreComing, nil)
            case .failure(let error): legacy(zoneID, nil, nil, false, error)
            }
        }
    }

    /// Calls the final block, or its legacy twin. Runs on the callback queue.
    private func deliverFinal(_ failure: CKError?) {
        if let final = fetchRecordZoneChangesResultBlock {
            final(failure.map { .failure($0) } ?? .success(()))
        } else if let legacy: ((any Error)?) -> Void = blocks[\CKFetchRecordZoneChangesOperation._fetchRecordZoneChangesCompletionBlock] {
            legacy(failure)
        }
    }
}
