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

    private let storedRecordsToSave = Locked<[CKRecord]?>(nil)
    private let storedRecordIDsToDelete = Locked<[CKRecord.ID]?>(nil)
    private let storedSavePolicy = Locked(RecordSavePolicy.ifServerRecordUnchanged)
    private let storedClientChangeTokenData = Locked<Data?>(nil)
    private let storedIsAtomic = Locked(true)

    /// The records to save; they are not changed by the save.
    public var recordsToSave: [CKRecord]? {
        get { storedRecordsToSave.value }
        set { storedRecordsToSave.value = newValue }
    }

    /// The records to delete, with the records their `deleteSelf` references tie to them.
    ///
    /// A record that is the `parent` of a record that stays is not deleted: its item fails
    /// with `referenceViolation`. Delete the children in the same operation (in any order),
    /// before, or through a `deleteSelf` cascade. (This follows a report of iCloud's answer;
    /// Apple's documents say only that deleting a parent does not delete its children.)
    public var recordIDsToDelete: [CKRecord.ID]? {
        get { storedRecordIDsToDelete.value }
        set { storedRecordIDsToDelete.value = newValue }
    }

    /// How saves treat the server's copies: `.ifServerRecordUnchanged` unless set.
    public var savePolicy: RecordSavePolicy {
        get { storedSavePolicy.value }
        set { storedSavePolicy.value = newValue }
    }

    /// Opaque bytes the server keeps with each zone the operation changes, and echoes back in
    /// zone change fetches so you can tell whether your last write landed.
    ///
    /// A modify that carries the same bytes as this device's last applied modify in a zone is
    /// taken for a repeat of it and not applied again: its saves get the records as the server
    /// has them. A retry that means to apply its changes again sends fresh bytes.
    public var clientChangeTokenData: Data? {
        get { storedClientChangeTokenData.value }
        set { storedClientChangeTokenData.value = newValue }
    }

    /// Whether each zone that supports it applies its part of the batch all or nothing:
    /// true unless set.
    public var isAtomic: Bool {
        get { storedIsAtomic.value }
        set { storedIsAtomic.value = newValue }
    }

    /// Creates an operation with nothing to save or delete yet.
    public override init() {
        super.init()
    }

    /// Creates an operation that saves `recordsToSave` and deletes `recordIDsToDelete`.
    public convenience init(recordsToSave: [CKRecord]? = nil, recordIDsToDelete: [CKRecord.ID]? = nil) {
        self.init()
        self.recordsToSave = recordsToSave
        self.recordIDsToDelete = recordIDsToDelete
    }

    // MARK: - Per-item callbacks

    /// Called at least once per record saved with its upload progress, ending at exactly 1.0
    /// before the record's result; values in between come only for records with assets.
    public var perRecordProgressBlock: ((CKRecord, Double) -> Void)? {
        get { blocks.get() }
        set { blocks.set(newValue) }
    }

    /// Called once per record to save: the saved record (a new object with the server's change
    /// tag) or why it was not saved.
    public var perRecordSaveBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)? {
        get { blocks.get() }
        set { blocks.set(newValue) }
    }

    /// Called once per record to delete. Records deleted by a cascade are not reported.
    public var perRecordDeleteBlock: ((CKRecord.ID, Result<Void, any Error>) -> Void)? {
        get { blocks.get() }
        set { blocks.set(newValue) }
    }

    /// The legacy per-record block, with the record you passed; ignored when
    /// ``perRecordSaveBlock`` is set.
    @available(*, deprecated, message: "Use perRecordSaveBlock instead")
    public var perRecordCompletionBlock: ((CKRecord, (any Error)?) -> Void)? {
        get { blocks.get() }
        set { blocks.set(newValue) }
    }

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` whose
    /// `partialErrorsByItemID` repeats every failed item, keyed by the IDs you passed.
    public var modifyRecordsResultBlock: ((Result<Void, any Error>) -> Void)? {
        get { blocks.get() }
        set { blocks.set(newValue) }
    }

    /// The legacy final block, with the saved records and deleted IDs; ignored when
    /// ``modifyRecordsResultBlock`` is set.
    @available(*, deprecated, message: "Use modifyRecordsResultBlock instead")
    public var modifyRecordsCompletionBlock: (([CKRecord]?, [CKRecord.ID]?, (any Error)?) -> Void)? {
        get { blocks.get() }
        set { blocks.set(newValue) }
    }

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
        let legacyPerRecord: ((CKRecord, (any Error)?) -> Void)? = blocks.get("perRecordCompletionBlock")
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
        if let perDelete = perRecordDeleteBlock {
            for (recordID, result) in plan.orderedDeleteResults { perDelete(recordID, result) }
        }
        let error = failure ?? plan.partialFailure
        if let final = modifyRecordsResultBlock {
            final(error.map { .failure($0) } ?? .success(()))
        } else if let legacyFinal: ([CKRecord]?, [CKRecord.ID]?, (any Error)?) -> Void = blocks.get("modifyRecordsCompletionBlock") {
            let saved = plan.orderedSaveResults.compactMap { try? $0.1.get() }
            let deleted = plan.orderedDeleteResults.compactMap { entry in (try? entry.1.get()).map { _ in entry.0 } }
            legacyFinal(failure == nil ? saved : nil, failure == nil ? deleted : nil, error)
        }
    }
}
