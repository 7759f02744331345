import Foundation
import StratusCore
import StratusWire

/// Fetches records by ID, in one request.
///
/// ```swift
/// let operation = CKFetchRecordsOperation(recordIDs: [partyID, clownID])
/// operation.desiredKeys = ["title"]
/// operation.perRecordResultBlock = { recordID, result in … }
/// operation.fetchRecordsResultBlock = { result in … }
/// database.add(operation)
/// ```
///
/// A missing record gets `unknownItem` in its per-record result, and the final result is then
/// a `partialFailure` keyed by the IDs you passed.
///
/// More than 400 record IDs fail the whole operation with `limitExceeded` before any request is
/// sent, every record getting that error in its per-record result: split the IDs into
/// operations of at most 400. CloudKit's documentation states the 400-item limit for modify
/// operations only; apps report iCloud failing larger fetches this way ("Your request contains
/// N items which is more than the maximum number of items in a single request (400)"), and the
/// server enforces it too.
///
/// CloudKit document: *CKFetchRecordsOperation*.
public final class CKFetchRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    // MARK: - Properties

    /// The records to fetch.
    @_Locked public var recordIDs: [CKRecord.ID]? = nil

    /// The fields to fetch: nil for every field, an empty array for system fields only.
    @_Locked public var desiredKeys: [CKRecord.FieldKey]? = nil

    /// Creates an operation that fetches `recordIDs`.
    public convenience init(recordIDs: [CKRecord.ID]) {
        self.init()
        self.recordIDs = recordIDs
    }

    /// An operation that fetches the current user's `Users` record.
    public class func fetchCurrentUserRecordOperation() -> CKFetchRecordsOperation {
        CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: CKCurrentUserDefaultName)])
    }

    // MARK: - Per-item callbacks

    /// Called at least once per record with its download progress, ending at exactly 1.0
    /// before the record's result; values in between come only for records with assets.
    @_OperationBlock public var perRecordProgressBlock: ((CKRecord.ID, Double) -> Void)?

    /// Called once per record with the record or why it could not be fetched.
    @_OperationBlock public var perRecordResultBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?

    /// The legacy per-record block; ignored when ``perRecordResultBlock`` is set.
    @available(*, deprecated, message: "Use perRecordResultBlock instead")
    @_OperationBlock public var perRecordCompletionBlock: ((CKRecord?, CKRecord.ID?, (any Error)?) -> Void)?

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` whose
    /// `partialErrorsByItemID` repeats the per-record failures.
    @_OperationBlock public var fetchRecordsResultBlock: ((Result<Void, any Error>) -> Void)?

    /// The legacy final block, with the fetched records by ID; ignored when
    /// ``fetchRecordsResultBlock`` is set.
    @available(*, deprecated, message: "Use fetchRecordsResultBlock instead")
    @_OperationBlock public var fetchRecordsCompletionBlock: (([CKRecord.ID: CKRecord]?, (any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let recordIDs = self.recordIDs ?? []
        guard !recordIDs.isEmpty else {
            report([], failure: nil)
            return
        }
        let wireIDs = recordIDs.map(\.wireValue)
        if let tooMany = WireValidation.checkLookupSize(wireIDs) {
            let error = CKError(tooMany)
            report(recordIDs.map { ($0, .failure(error)) }, failure: error)
            return
        }
        let (desiredKeys, cache) = (self.desiredKeys, assetCache)
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            var downloads = AssetDownloads(service: service, cache: cache)
            return await downloads.localize(try await service.lookupRecords(WireRecordsLookupRequest(context: context, recordIDs: wireIDs, desiredKeys: desiredKeys)))
        }
        switch response {
        case .success(let response):
            let results = zip(recordIDs, response.results).map { recordID, answer in
                (recordID, answer.result.map { CKRecord.make(wire: $0) }.mapError { CKError($0) as any Error })
            }
            report(results, failure: nil)
        case .failure(let error):
            report(recordIDs.map { ($0, .failure(error)) }, failure: error)
        }
    }

    override func reportFailure(_ error: CKError) {
        deliverResults((recordIDs ?? []).map { ($0, .failure(error)) }, failure: error)
    }

    // MARK: - Result mapping

    private func report(_ results: [(CKRecord.ID, Result<CKRecord, any Error>)], failure: CKError?) {
        finish(with: failure) { self.deliverResults(results, failure: failure) }
    }

    /// Calls the per-record blocks in order, then the final block. Runs on the callback queue.
    private func deliverResults(_ results: [(CKRecord.ID, Result<CKRecord, any Error>)], failure: CKError?) {
        let progress = perRecordProgressBlock
        let perRecord = perRecordResultBlock
        let legacyPerRecord: ((CKRecord?, CKRecord.ID?, (any Error)?) -> Void)? = blocks[\CKFetchRecordsOperation._perRecordCompletionBlock]
        for (recordID, result) in results {
            if case .success(let record) = result, let progress {
                if record.hasAssets { progress(recordID, 0.5) }
                progress(recordID, 1.0)
            }
            if let perRecord {
                perRecord(recordID, result)
            } else if let legacyPerRecord {
                switch result {
                case .success(let record): legacyPerRecord(record, recordID, nil)
                case .failure(let error): legacyPerRecord(nil, recordID, error)
                }
            }
        }
        let report = ItemReport(results, failure: failure)
        let legacyFinal = blocks[\CKFetchRecordsOperation._fetchRecordsCompletionBlock]
        deliverFinal(report.finalError, to: fetchRecordsResultBlock, orLegacy: legacyFinal.map { legacy in { legacy(report.valuesByID, $0) } })
    }
}

extension CKRecord {
    /// Whether any field holds an asset, which makes a transfer report progress in between.
    var hasAssets: Bool {
        wireSnapshot.fields.values.contains(where: \.holdsAsset)
    }
}
