import StratusCore

// The query convenience methods of CKDatabase. Each runs one CKQueryOperation at
// `.userInitiated` quality of service: one request, one page.

extension CKDatabase {
    /// The records of one query page, in order, and the cursor of the next page.
    public typealias QueryPage = (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?)

    /// Runs `query` and returns its first page.
    ///
    /// - Parameters:
    ///   - query: The query.
    ///   - zoneID: The zone to search; nil searches every zone of the database.
    ///   - desiredKeys: The fields to fetch; nil for all, empty for system fields only.
    ///   - resultsLimit: The most records to return; `CKQueryOperation.maximumResults` lets
    ///     the server choose.
    /// - Returns: The matching records in the query's order, and a cursor when more match.
    /// - Throws: `invalidArguments` for a predicate CloudKit does not accept, `unknownItem`
    ///   for an unknown record type, or the request's error.
    public func records(
        matching query: CKQuery,
        inZoneWith zoneID: CKRecordZone.ID? = nil,
        desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults
    ) async throws -> QueryPage {
        let operation = CKQueryOperation(query: query)
        operation.zoneID = zoneID
        return try await page(of: operation, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    /// Returns the next page of a query from `queryCursor`.
    public func records(
        continuingMatchFrom queryCursor: CKQueryOperation.Cursor,
        desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults
    ) async throws -> QueryPage {
        try await page(of: CKQueryOperation(cursor: queryCursor), desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    /// Runs `query` and passes its first page to `completionHandler`.
    @preconcurrency
    public func fetch(
        withQuery query: CKQuery,
        inZoneWith zoneID: CKRecordZone.ID? = nil,
        desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults,
        completionHandler: @escaping @Sendable (Result<QueryPage, any Error>) -> Void
    ) {
        complete(completionHandler) {
            try await self.records(matching: query, inZoneWith: zoneID, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
        }
    }

    /// Passes the next page of a query from `queryCursor` to `completionHandler`.
    @preconcurrency
    public func fetch(
        withCursor queryCursor: CKQueryOperation.Cursor,
        desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults,
        completionHandler: @escaping @Sendable (Result<QueryPage, any Error>) -> Void
    ) {
        complete(completionHandler) {
            try await self.records(continuingMatchFrom: queryCursor, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
        }
    }

    /// Runs `query` and returns the records of its first page.
    @available(*, deprecated, message: "Use records(matching:inZoneWith:desiredKeys:resultsLimit:)")
    @discardableResult
    public func perform(_ query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?) async throws -> [CKRecord] {
        try await records(matching: query, inZoneWith: zoneID, desiredKeys: nil).matchResults.compactMap { try? $0.1.get() }
    }

    /// Runs `query` and returns the records of its first page: the iOS 15 beta spelling that
    /// CloudKit keeps, deprecated from the start.
    ///
    /// A call that names only a query and a zone picks this method over
    /// ``records(matching:inZoneWith:desiredKeys:resultsLimit:)`` unless the result is read as
    /// a `(matchResults, queryCursor)` pair, as it does on iOS.
    @available(*, deprecated, message: "renamed to records(matching:inZoneWith:desiredKeys:resultsLimit:)")
    public func records(matching query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?) async throws -> [CKRecord] {
        try await records(matching: query, inZoneWith: zoneID, desiredKeys: nil).matchResults.compactMap { try? $0.1.get() }
    }

    /// Runs `query` and passes the records of its first page to `completionHandler`.
    @available(*, deprecated, message: "Use fetch(withQuery:inZoneWith:desiredKeys:resultsLimit:completionHandler:)")
    @preconcurrency
    public func perform(_ query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?, completionHandler: @escaping @Sendable ([CKRecord]?, (any Error)?) -> Void) {
        complete(completionHandler) {
            try await self.records(matching: query, inZoneWith: zoneID, desiredKeys: nil).matchResults.compactMap { try? $0.1.get() }
        }
    }

    private func page(of operation: CKQueryOperation, desiredKeys: [CKRecord.FieldKey]?, resultsLimit: Int) async throws -> QueryPage {
        operation.desiredKeys = desiredKeys
        operation.resultsLimit = resultsLimit
        return try await perform(operation) { operation, resume in
            var matches: [(CKRecord.ID, Result<CKRecord, any Error>)] = []
            operation.recordMatchedBlock = { recordID, result in matches.append((recordID, result)) }
            operation.queryResultBlock = { final in
                resume(final.map { (matches, $0) })
            }
        }
    }
}
