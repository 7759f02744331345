import Foundation
import StratusCore
import StratusWire

/// The iOS 8 way to fetch one zone's changes since a token, as the 2014 and 2015 talks show
/// it: one request, one batch; run it again from the returned token while ``moreComing``.
///
/// Its tokens and `CKFetchRecordZoneChangesOperation`'s are the same, so code moving to the
/// newer operation keeps its stored token.
///
/// CloudKit document: *CKFetchRecordChangesOperation*.
@available(*, deprecated, message: "Use CKFetchRecordZoneChangesOperation instead")
public final class CKFetchRecordChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    // MARK: - Properties

    /// The zone whose changes to fetch.
    @_Locked public var recordZoneID: CKRecordZone.ID? = nil

    /// Where to start: a token from an earlier fetch of this zone, or nil for everything.
    @_Locked public var previousServerChangeToken: CKServerChangeToken? = nil

    /// The most changes to return; 0 lets the server choose.
    @_Locked public var resultsLimit: Int = 0

    /// The fields of changed records to fetch: nil for every field, empty for system fields only.
    @_Locked public var desiredKeys: [CKRecord.FieldKey]? = nil

    /// Whether more changes wait after this batch; set before the completion block runs.
    @_Locked public private(set) var moreComing = false

    /// Creates an operation that fetches the changes of `recordZoneID` since
    /// `previousServerChangeToken`.
    public convenience init(recordZoneID: CKRecordZone.ID, previousServerChangeToken: CKServerChangeToken?) {
        self.init()
        self.recordZoneID = recordZoneID
        self.previousServerChangeToken = previousServerChangeToken
    }

    // MARK: - Per-item callbacks

    /// Called once per record saved since the token, with the record in its latest version.
    @_OperationBlock public var recordChangedBlock: ((CKRecord) -> Void)?

    /// Called once per record deleted since the token.
    @_OperationBlock public var recordWithIDWasDeletedBlock: ((CKRecord.ID) -> Void)?

    // MARK: - Completion

    /// Called once, last: the token to keep and the zone's `clientChangeTokenData`, or the
    /// error (`changeTokenExpired`: fetch again from nil).
    @_OperationBlock public var fetchRecordChangesCompletionBlock: ((CKServerChangeToken?, Data?, (any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        guard let zoneID = recordZoneID else {
            let error = CKError(.invalidArguments, message: "a CKFetchRecordChangesOperation needs a recordZoneID")
            finish(with: error) { self.fetchRecordChangesCompletionBlock?(nil, nil, error) }
            return
        }
        let since = previousServerChangeToken.map { Array($0.bytes) }
        let (limit, desiredKeys) = (max(0, resultsLimit), self.desiredKeys)
        let cache = assetCache
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            var downloads = AssetDownloads(service: service, cache: cache)
            return await downloads.localize(try await service.recordChanges(WireRecordChangesRequest(context: context, zoneID: zoneID.wireValue, sinceToken: since, resultsLimit: limit, desiredKeys: desiredKeys)))
        }
        switch response {
        case .failure(let error):
            finish(with: error) { self.fetchRecordChangesCompletionBlock?(nil, nil, error) }
        case .success(let batch):
            moreComing = batch.moreComing
            finish(with: nil) {
                if let changed = self.recordChangedBlock {
                    for record in batch.changed { changed(CKRecord.make(wire: record)) }
                }
                if let deleted = self.recordWithIDWasDeletedBlock {
                    for deletion in batch.deleted { deleted(CKRecord.ID(wire: deletion.recordID)) }
                }
                self.fetchRecordChangesCompletionBlock?(CKServerChangeToken(bytes: Data(batch.token)), batch.clientChangeTokenData, nil)
            }
        }
    }

    override func reportFailure(_ error: CKError) {
        fetchRecordChangesCompletionBlock?(nil, nil, error)
    }
}
