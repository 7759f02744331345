import StratusCore
import StratusOperations

extension CKDatabase {
    /// Runs `query` to its end, following cursors with the same `desiredKeys` and
    /// `resultsLimit`, and returns every matching record once; see ``QueryAllOperation``.
    ///
    /// ```swift
    /// let photos = try await database.allRecords(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(value: true)), resultsLimit: 100)
    /// ```
    ///
    /// - Parameters:
    ///   - query: The query.
    ///   - zoneID: The zone to search; nil searches every zone.
    ///   - desiredKeys: The fields to fetch on every page; nil for all, empty for system fields.
    ///   - resultsLimit: The most records per page; `CKQueryOperation.maximumResults` lets the
    ///     server choose.
    ///   - retry: How a page's transient failures are retried; nil retries none.
    /// - Returns: Every match in the query's order, each once.
    /// - Throws: The error of the page that failed (`invalidArguments` for a predicate CloudKit
    ///   does not accept, or a request's error).
    public func allRecords(
        matching query: CKQuery,
        inZoneWith zoneID: CKRecordZone.ID? = nil,
        desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults,
        retry: RetryPolicy? = nil
    ) async throws -> [(CKRecord.ID, Result<CKRecord, any Error>)] {
        let run = QueryAllRun(
            database: self, query: query, zoneID: zoneID, desiredKeys: desiredKeys,
            resultsLimit: resultsLimit, retry: retry, appliesConvenienceSettings: true
        )
        var matches: [(CKRecord.ID, Result<CKRecord, any Error>)] = []
        if let failure = await run.run({ matches.append(($0, $1)) }) { throw failure }
        return matches
    }
}
