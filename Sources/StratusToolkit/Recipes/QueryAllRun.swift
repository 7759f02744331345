import Foundation
import StratusCore
import StratusOperations

/// The engine of the cursor-following recipe: pages of one query, each a fresh
/// `CKQueryOperation`, until the server returns no cursor.
struct QueryAllRun {
    let database: CKDatabase
    let query: CKQuery
    let zoneID: CKRecordZone.ID?
    let desiredKeys: [CKRecord.FieldKey]?
    let resultsLimit: Int
    let retry: RetryPolicy?
    let appliesConvenienceSettings: Bool

    /// Runs the query to its end, handing each record to `deliver` once, in the query's
    /// order, page after page.
    ///
    /// - Returns: nil once the last page came, or the error that ended it (records delivered
    ///   before it stay delivered).
    func run(_ deliver: (CKRecord.ID, Result<CKRecord, any Error>) -> Void) async -> CKError? {
        var cursor: CKQueryOperation.Cursor?
        var seen: Set<CKRecord.ID> = []
        var generator = RetryJitterGenerator(seed: retry?.seed ?? 0)
        var retries = 0
        var attempt = 0
        var page = 0
        while true {
            if Task.isCancelled { return CKError(.operationCancelled, message: "the query was cancelled before its next page") }
            attempt += 1
            let (matches, result) = await fetchPage(after: cursor, first: page == 0)
            switch result {
            case .success(let next):
                for (recordID, match) in matches where seen.insert(recordID).inserted {
                    deliver(recordID, match)
                }
                guard let next else { return nil }
                cursor = next
                page += 1
                attempt = 0
            case .failure(let error):
                guard let retry, retry.retries(error), attempt < retry.attemptLimit else { return error }
                retries += 1
                let waited = await RecipeWait.beforeRetry(after: [error], attempt: attempt, retry: retries, policy: retry, generator: &generator, in: database.container)
                if !waited { return CKError(.operationCancelled, message: "the query was cancelled while it waited to retry a page") }
            }
        }
    }

    /// One page: a fresh operation from the query (the first page) or from `cursor`, with the
    /// same desired keys and results limit every time.
    private func fetchPage(after cursor: CKQueryOperation.Cursor?, first: Bool) async -> ([(CKRecord.ID, Result<CKRecord, any Error>)], Result<CKQueryOperation.Cursor?, CKError>) {
        let operation: CKQueryOperation
        if let cursor, !first {
            operation = CKQueryOperation(cursor: cursor)
        } else {
            operation = CKQueryOperation(query: query)
            operation.zoneID = zoneID
        }
        operation.desiredKeys = desiredKeys
        operation.resultsLimit = resultsLimit
        if appliesConvenienceSettings { database.applyConvenienceSettings(to: operation) }
        let matches = Locked<[(CKRecord.ID, Result<CKRecord, any Error>)]>([])
        operation.recordMatchedBlock = { recordID, result in matches.withValue { $0.append((recordID, result)) } }
        let final: Result<CKQueryOperation.Cursor?, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                operation.queryResultBlock = { continuation.resume(returning: $0) }
                database.add(operation)
            }
        } onCancel: {
            operation.cancel()
        }
        let mapped = final.mapError { ($0 as? CKError) ?? CKError(.internalError, message: "the query failed with \($0)") }
        return (matches.value, mapped)
    }
}
