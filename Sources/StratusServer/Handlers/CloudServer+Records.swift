import Foundation
import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/lookupRecords(_:)``
    public func lookupRecords(_ request: WireRecordsLookupRequest) async throws(WireError) -> WireRecordsLookupResponse {
        let scope = try await begin(request.context, .lookupRecords)
        let database = try scope.databaseForReading()
        if let error = WireValidation.checkLookupSize(request.recordIDs) { throw error }
        var results: [WireItemResult<WireRecordID, WireRecord>] = []
        results.reserveCapacity(request.recordIDs.count)
        for recordID in request.recordIDs {
            results.append(WireItemResult(id: recordID, result: lookUp(recordID, in: database, scope: scope, desiredKeys: request.desiredKeys)))
        }
        return WireRecordsLookupResponse(results: results)
    }

    /// - SeeAlso: ``CloudService/modifyRecords(_:)``
    ///
    /// The rules that need no stored data come first, exactly as the client checks them
    /// (``WireModifyChecks``): a request that skipped the client's checks gets the same answer.
    /// Within each zone the request's deletes are applied first, then its saves in order, so a
    /// save may not reference a record the same request deletes (`referenceViolation`). A
    /// delete that would leave a record under a parent that is gone deletes nothing
    /// (`referenceViolation`, ``orphaningDeletes(_:in:)``). A reference to a record the same
    /// request saves holds only if that save succeeds. Failures spread to the other items of a
    /// zone by ``WireAtomicBatch``'s rule. Every change goes
    /// through the zones' transactions and is committed only once the quota allows it.
    public func modifyRecords(_ request: WireRecordsModifyRequest) async throws(WireError) -> WireRecordsModifyResponse {
        let scope = try await begin(request.context, .modifyRecords)
        let database = try scope.databaseForWriting()
        if let error = WireValidation.checkRequestSize(saves: request.saves, deletes: request.deletes) { throw error }
        if database.scope == .shared { return try modifyShared(request, scope: scope) }
        return try modify(request, in: database, scope: scope, sharing: nil)
    }
}
