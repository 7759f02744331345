import Foundation
import StratusCore
import StratusWire

/// Saves and deletes records in one request.
///
/// ```swift
/// let operation = CKModifyRecordsOperation(recordsToSave: photos, recordIDsToDelete: nil)
/// operation.savePolicy = .changedKeys
/// operation.perRecordSaveBlock = { recordID, result in … }
/// operation.modifyRecordsResultBlock = { result in … }
/// database.add(operation)
/// ```
///
/// Client-side checks (names, field keys, value types, record size, duplicate IDs, references
/// to other zones) fail their item without a request; when ``isAtomic`` is true they also fail
/// the other items of that zone with `batchRequestFailed`. More than 400 items or 2 MB fail the
/// whole request with `limitExceeded`.
///
/// CloudKit document: *CKModifyRecordsOperation*.
public final class CKModifyRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// How a save treats the server's copy of a record.
    public typealias RecordSavePolicy = CKRecordSavePolicy

    // MARK: - Properties

    /// The records to save; they are not changed by the save.
    @_Locked public var recordsToSave: [CKRecord]? = nil

    /// The records to delete, with the records their `deleteSelf` references tie to them.
    ///
    /// A record that is the `parent` of a record that stays is not deleted: its item fails
    /// with `referenceViolation`. Delete the children in the same operation (in any order),
    /// before, or through a `deleteSelf` cascade. (This follows a report of iCloud's answer;
    /// Apple's documents say only that deleting a parent does not delete its children.)
    @_Locked public var recordIDsToDelete: [CKRecord.ID]? = nil

    /// How saves treat the server's copies: `.ifServerRecordUnchanged` unless set.
    @_Locked public var savePolicy: RecordSavePolicy = RecordSavePolicy.ifServerRecordUnchanged

    /// Opaque bytes the server keeps with each zone the operation changes, and echoes back in
    /// zone change fetches so you can tell whether your last write landed.
    ///
    /// A modify that carries the same bytes as this device's last applied modify in a zone is
    /// taken for a repeat of it and not applied again: its saves get the records as the server
    /// has them. A retry that means to apply its changes again sends fresh bytes.
    @_Locked public var clientChangeTokenData: Data? = nil

    /// Whether each zone that supports it applies its part of the batch all or nothing:
    /// true unless set.
    @_Locked public var isAtomic: Bool = true

    /// Creates an operation that saves `recordsToSave` and deletes `recordIDsToDelete`.
    public convenience init(recordsToSave: [CKRecord]? = nil, recordIDsToDelete: [CKRecord.ID]? = nil) {
        self.init()
        self.recordsToSave = recordsToSave
        self.recordIDsToDelete = recordIDsToDelete
    }

    // MARK: - Per-item callbacks

    /// Called at least once per record saved with its upload progress, ending at exactly 1.0
    /// before the record's result; values in between come only for records with assets.
    @_OperationBlock public var perRecordProgressBlock: ((CKRecord, Double) -> Void)?

    /// Called once per record to save: the saved record (a new object with the server's change
    /// tag) or why it was not saved.
    @_OperationBlock public var perRecordSaveBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?

    /// Called once per record to delete. Records deleted by a cascade are not reported.
    @_OperationBlock public var perRecordDeleteBlock: ((CKRecord.ID, Result<Void, any Error>) -> Void)?

    /// The legacy per-record block, with the record you passed; ignored when
    /// ``perRecordSaveBlock`` is set.
    @available(*, deprecated, message: "Use perRecordSaveBlock instead")
    @_OperationBlock public var perRecordCompletionBlock: ((CKRecord, (any Error)?) -> Void)?

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` whose
    /// `partialErrorsByItemID` repeats every failed item, keyed by the IDs you passed.
    @_OperationBlock public var modifyRecordsResultBlock: ((Result<Void, any Error>) -> Void)?

    /// The legacy final block, with the saved records and deleted IDs; ignored when
    /// ``modifyRecordsResultBlock`` is set.
    @available(*, deprecated, message: "Use modifyRecordsResultBlock instead")
    @_OperationBlock public var modifyRecordsCompletionBlock: (([CKRecord]?, [CKRecord.ID]?, (any Error)?) -> Void)?

    // MARK: - Request

    private func makePlan() -> ModifyRecordsPlan {
        ModifyRecordsPlan(
            saving: recordsToSave ?? [],
            deleting: recordIDsToDelete ?? [],
            policy: savePolicy,
            isAtomic: isAtomic,
            clientChangeTokenData: clientChangeTokenData
        )
    }

    override func run() async {
        var plan = makePlan()
        var failure: CKError?
        var uploaded: [String: URL] = [:]
        if plan.request != nil, plan.sendsAssets {
            switch await uploadAssets(of: &plan) {
            case .success(let copies): uploaded = copies
            case .failure(let error):
                plan.record(error)
                failure = error
            }
        }
        if failure == nil, let request = plan.request {
            let (cache, copies) = (assetCache, uploaded)
            let response = await send(to: runDatabase) { service, context async throws(WireError) in
                var downloads = AssetDownloads(service: service, cache: cache, copies: copies)
                return await downloads.localize(try await service.modifyRecords(request(context)))
            }
            switch response {
            case .success(let response): plan.record(response)
            case .failure(let error):
                plan.record(error)
                failure = error
            }
        }
        finish(with: failure ?? plan.partialFailure) { self.deliver(plan, failure: failure) }
    }

    override func reportFailure(_ error: CKError) {
        var plan = makePlan()
        plan.record(error)
        deliver(plan, failure: error)
    }

    // MARK: - Result mapping

    /// Calls the per-record blocks in order, then the final block. Runs on the callback queue.
    private func deliver(_ plan: ModifyRecordsPlan, failure: CKError?) {
        let progress = perRecordProgressBlock
        let perSave = perRecordSaveBlock
        let legacyPerRecord: ((CKRecord, (any Error)?) -> Void)? = blocks[\CKModifyRecordsOperation._perRecordCompletionBlock]
        for (record, (recordID, result)) in zip(plan.saves, plan.orderedSaveResults) {
            if case .success = result, let progress {
                if record.hasAssets { progress(record, 0.5) }
                progress(record, 1.0)
            }
            if let perSave {
                perSave(recordID, result)
            } else if let legacyPerRecord {
                switch result {
                case .success(let saved): legacyPerRecord(saved, nil)
                case .failure(let error): legacyPerRecord(record, error)
                }
            }
        }
        deliverEach(plan.orderedDeleteResults, to: perRecordDeleteBlock)
        let results = ModifyReport(saves: plan.orderedSaveResults, deletes: plan.orderedDeleteResults, failure: failure)
        let legacyFinal = blocks[\CKModifyRecordsOperation._modifyRecordsCompletionBlock]
        deliverFinal(results.finalError, to: modifyRecordsResultBlock, orLegacy: legacyFinal.map { legacy in { legacy(results.saves.values, results.deletes.succeededIDs, $0) } })
    }
}
