import Foundation
import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/queryRecords(_:)``
    ///
    /// Results come in the order of the query's sort descriptors, ties broken by record name
    /// and zone. A page holds `resultsLimit` records (``defaultQueryResultsLimit`` for 0) while
    /// more match, and then a cursor: a keyset position after the last record, so a record
    /// that stays put between pages is never returned twice or skipped; a record whose sort
    /// key or membership changes between pages may move.
    public func queryRecords(_ request: WireQueryRequest) async throws(WireError) -> WireQueryResponse {
        let scope = try await begin(request.context, .queryRecords)
        let database = try scope.databaseForReading()
        return try query(request, in: database, scope: scope)
    }
}
