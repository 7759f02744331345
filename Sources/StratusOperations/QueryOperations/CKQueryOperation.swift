import Foundation
import StratusCore
import StratusWire

/// Finds the records that match a query, one page per operation.
///
/// ```swift
/// let operation = CKQueryOperation(query: query)
/// operation.resultsLimit = 20
/// operation.desiredKeys = ["thumbnail"]
/// operation.recordMatchedBlock = { recordID, result in … }       // in sort order
/// operation.queryResultBlock = { result in
///     if case .success(let cursor?) = result { /* more: CKQueryOperation(cursor: cursor) */ }
/// }
/// database.add(operation)
/// ```
///
/// Decide whether to continue by the cursor, never by counting records. A predicate CloudKit
/// does not accept, or an unknown record type, fails the operation (`invalidArguments`,
/// `unknownItem`).
///
/// CloudKit document: *CKQueryOperation*.
public final class CKQueryOperation: CKDatabaseOperation, @unchecked Sendable {
    /// An opaque position in a query's results.
    public typealias Cursor = CKQueryCursor

    /// The `resultsLimit` that lets the server choose how many records a page holds: 0.
    public static let maximumResults = 0

    // MARK: - Properties

    /// The query to run; ignored when ``cursor`` is set.
    @_Locked public var query: CKQuery? = nil

    /// Where to continue an earlier query; it carries the query and zone.
    @_Locked public var cursor: Cursor? = nil

    /// The zone to search; nil searches every zone of the database. Ignored with a cursor.
    @_Locked public var zoneID: CKRecordZone.ID? = nil

    /// The most records to return; ``maximumResults`` (0) lets the server choose.
    @_Locked public var resultsLimit: Int = CKQueryOperation.maximumResults

    /// The fields to fetch: nil for every field, an empty array for system fields only.
    @_Locked public var desiredKeys: [CKRecord.FieldKey]? = nil

    /// Creates an operation that runs `query`.
    public convenience init(query: CKQuery) {
        self.init()
        self.query = query
    }

    /// Creates an operation that continues a query from `cursor`.
    public convenience init(cursor: Cursor) {
        self.init()
        self.cursor = cursor
    }

    // MARK: - Per-item callbacks

    /// Called once per matching record, in the query's order.
    @_OperationBlock public var recordMatchedBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?

    /// The legacy per-record block; ignored when ``recordMatchedBlock`` is set.
    @available(*, deprecated, message: "Use recordMatchedBlock instead")
    @_OperationBlock public var recordFetchedBlock: ((CKRecord) -> Void)?

    // MARK: - Completion

    /// Called once, last, with the cursor of the next page (nil when there is none) or the error.
    @_OperationBlock public var queryResultBlock: ((Result<Cursor?, any Error>) -> Void)?

    /// The legacy final block; ignored when ``queryResultBlock`` is set.
    @available(*, deprecated, message: "Use queryResultBlock instead")
    @_OperationBlock public var queryCompletionBlock: ((Cursor?, (any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let resultsLimit = self.resultsLimit
        let desiredKeys = self.desiredKeys
        let wireQuery: WireQuery?
        let cursorBytes: [UInt8]?
        let zoneID: WireZoneID?
        if let cursor {
            (wireQuery, cursorBytes, zoneID) = (nil, Array(cursor.bytes), nil)
        } else if let query {
            switch query.wireQuery() {
            case .success(let parsed):
                (wireQuery, cursorBytes, zoneID) = (parsed, nil, self.zoneID?.wireValue)
            case .failure(let error):
                report([], cursor: nil, failure: error)
                return
            }
        } else {
            report([], cursor: nil, failure: CKError(.invalidArguments, message: "a CKQueryOperation needs a query or a cursor"))
            return
        }
        let cache = assetCache
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            var downloads = AssetDownloads(service: service, cache: cache)
            return await downloads.localize(try await service.queryRecords(WireQueryRequest(
                context: context, query: wireQuery, zoneID: zoneID, cursor: cursorBytes,
                resultsLimit: resultsLimit, desiredKeys: desiredKeys
            )))
        }
        switch response {
        case .success(let response):
            report(response.records.map { CKRecord.make(wire: $0) }, cursor: response.cursor.map { CKQueryCursor(bytes: Data($0)) }, failure: nil)
        case .failure(let error):
            report([], cursor: nil, failure: error)
        }
    }

    override func reportFailure(_ error: CKError) {
        deliverResults([], cursor: nil, failure: error)
    }

    // MARK: - Result mapping

    private func report(_ records: [CKRecord], cursor: Cursor?, failure: CKError?) {
        finish(with: failure) { self.deliverResults(records, cursor: cursor, failure: failure) }
    }

    private func deliverResults(_ records: [CKRecord], cursor: Cursor?, failure: CKError?) {
        if let matched = recordMatchedBlock {
            for record in records { matched(record.recordID, .success(record)) }
        } else if let legacy: (CKRecord) -> Void = blocks[\CKQueryOperation._recordFetchedBlock] {
            for record in records { legacy(record) }
        }
        if let final = queryResultBlock {
            final(failure.map { .failure($0) } ?? .success(cursor))
        } else if let legacyFinal: (Cursor?, (any Error)?) -> Void = blocks[\CKQueryOperation._queryCompletionBlock] {
            legacyFinal(cursor, failure)
        }
    }
}
