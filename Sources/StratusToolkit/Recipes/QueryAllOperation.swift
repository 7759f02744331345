import Foundation
import StratusCore
import StratusOperations

/// Runs a query to its end, following cursors, as one operation.
///
/// CloudKit has no such operation: its documentation asks apps to run
/// `CKQueryOperation(cursor:)` again, with the same `desiredKeys` and `resultsLimit`, for as
/// long as the final block returns a cursor, and to decide by the cursor, never by counting
/// records. Each page is a fresh `CKQueryOperation`. Each record is delivered once, even if
/// it moves between pages while the query runs. With a ``retry`` policy, a page that fails
/// transiently is fetched again from the same cursor.
///
/// ```swift
/// let operation = QueryAllOperation(database: database, query: CKQuery(recordType: "Photo", predicate: NSPredicate(value: true)))
/// operation.resultsLimit = 100
/// operation.recordMatchedBlock = { recordID, result in … }
/// operation.queryResultBlock = { result in … }
/// queue.addOperation(operation)
/// ```
///
/// CloudKit document: *CKQueryOperation*.
public final class QueryAllOperation: RecipeOperation, @unchecked Sendable {
    /// The database to query.
    public let database: CKDatabase
    /// The query.
    public let query: CKQuery

    /// Creates the operation.
    ///
    /// - Parameters:
    ///   - database: The database to query.
    ///   - query: The query.
    ///   - retry: How a page's transient failures are retried; nil retries none.
    public init(database: CKDatabase, query: CKQuery, retry: RetryPolicy? = nil) {
        self.database = database
        self.query = query
        _retry = _Locked(wrappedValue: retry)
        super.init()
    }

    /// The zone to search; nil (unless set) searches every zone. Cursors stay in the zone of
    /// the first page.
    @_Locked public var zoneID: CKRecordZone.ID? = nil

    /// The fields to fetch, for every page: nil (unless set) for all, empty for system fields only.
    @_Locked public var desiredKeys: [CKRecord.FieldKey]? = nil

    /// The most records per page, for every page: `CKQueryOperation.maximumResults` (the
    /// server chooses) unless set.
    @_Locked public var resultsLimit: Int = CKQueryOperation.maximumResults

    /// How a page's transient failures are retried; nil (unless set) retries none.
    @_Locked public var retry: RetryPolicy?

    /// Called once per matching record, in the query's order, page after page.
    @_OperationBlock public var recordMatchedBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?

    /// Called once, last: success once the last page came, or the error that ended the query.
    @_OperationBlock public var queryResultBlock: ((Result<Void, any Error>) -> Void)?

    override func execute() async {
        let run = QueryAllRun(
            database: database, query: query, zoneID: zoneID, desiredKeys: desiredKeys,
            resultsLimit: resultsLimit, retry: retry, appliesConvenienceSettings: false
        )
        let matched = recordMatchedBlock
        let failure = await run.run { recordID, result in matched?(recordID, result) }
        deliverFinal(failure, to: queryResultBlock)
    }

    override func reportFailure(_ error: CKError) {
        deliverFinal(error, to: queryResultBlock)
    }
}
