import Foundation
import StratusCore
import StratusOperations

/// The per-record outcome of a modify recipe, as if one operation had run: each save's and
/// delete's result in the order given, and the final result such an operation would report.
struct ModifyRecipeOutcome {
    var saves: [(CKRecord.ID, Result<CKRecord, any Error>)]
    var deletes: [(CKRecord.ID, Result<Void, any Error>)]
    /// nil on success; the request's error when every item failed with that one error;
    /// otherwise a `partialFailure` keyed by the IDs given.
    var failure: CKError?

    /// The results keyed by record ID, as `CKDatabase.modifyRecords(saving:deleting:)` gives them.
    var keyed: (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>]) {
        (Dictionary(saves, uniquingKeysWith: { first, _ in first }), Dictionary(deletes, uniquingKeysWith: { first, _ in first }))
    }
}

/// The engine behind every modify recipe: it splits (when asked), sends, retries transient
/// failures (when asked) and merges conflicts (when asked), and keeps one final result per item.
///
/// How it keeps per-record results and never writes a record twice:
/// - an item gets a final result once, from the attempt that settled it, and is never sent
///   again after that: a retry sends only the items still pending, so a record that was saved
///   is not saved again;
/// - after a partial failure, an item is pending again only if its own error is transient, its
///   conflict was merged, or it failed with `batchRequestFailed` in a zone whose every real
///   failure is being retried (the atomic batch is resent whole, so it stays all or nothing);
/// - a retry of pending items carries fresh `clientChangeTokenData`, so the server applies it
///   instead of answering it as a repeat of the device's last modify in the zone; a retry of a
///   whole request that may have reached the server (`serverResponseLost`, or a timeout) carries
///   the same bytes, so if the first request did land, the server answers the repeat without
///   applying it again;
/// - a request split on `limitExceeded` was not applied (the server checks the limits before
///   applying anything), so its halves are first sends.
struct ModifyRecipeRun {
    let database: CKDatabase
    let options: ModifyRecipeOptions
    let saves: [CKRecord]
    let deletes: [CKRecord.ID]

    private var saveResults: [Result<CKRecord, any Error>?]
    private var deleteResults: [Result<Void, any Error>?]
    /// The distinct errors that failed whole requests, and how many items they failed.
    private var requestErrors: [CKError] = []
    private var itemsFailedByRequests = 0
    private var generator: RetryJitterGenerator
    private var retriesSoFar = 0
    /// Whether a request carried the caller's `clientChangeTokenData` already.
    private var callerTokenUsed = false

    init(database: CKDatabase, saving saves: [CKRecord], deleting deletes: [CKRecord.ID], options: ModifyRecipeOptions) {
        self.database = database
        self.options = options
        self.saves = saves
        self.deletes = deletes
        saveResults = Array(repeating: nil, count: saves.count)
        deleteResults = Array(repeating: nil, count: deletes.count)
        generator = RetryJitterGenerator(seed: options.retry?.seed ?? 0)
    }

    /// Runs the whole modification and returns every item's result.
    mutating func run() async -> ModifyRecipeOutcome {
        let all = ModifyBatch(
            saves: saves.enumerated().map { ($0.offset, $0.element) },
            deletes: deletes.enumerated().map { ($0.offset, $0.element) },
            isAtomic: options.isAtomic
        )
        if !all.isEmpty {
            if let splitting = options.splitting {
                await runSplit(all, splitting: splitting)
            } else {
                if case .tooLarge(let pending, let error) = await runBatch(all, splitting: nil) {
                    settle(pending, with: error, byRequest: true)
                }
            }
        }
        return outcome
    }

    // MARK: - Splitting

    private mutating func runSplit(_ all: ModifyBatch, splitting: BatchSplitting) async {
        let planner = BatchPlanner(splitting: splitting, savePolicy: options.savePolicy, isAtomic: options.isAtomic)
        // A record named twice fails every time it is named, as in one operation, rather than
        // being saved by whichever request comes first.
        let (unique, duplicates) = Self.separatingDuplicates(all)
        for (recordID, batch) in duplicates {
            settle(batch, with: CKError(.invalidArguments, message: "record '\(recordID.recordName)' appears \(batch.count) times in one modification; save or delete each record once"), byRequest: false)
        }
        let (batches, refusals) = planner.plan(unique)
        for refusal in refusals { settle(refusal.batch, with: refusal.error, byRequest: false) }
        var queue = batches
        while !queue.isEmpty {
            let batch = queue.removeFirst()
            guard case .tooLarge(let pending, let error) = await runBatch(batch, splitting: splitting) else { continue }
            if pending.isAtomic, !splitting.allowsSplittingAtomicBatches, pending.count > 1 {
                let refusal = CKError(
                    .limitExceeded,
                    message: "the server refused the atomic batch of \(pending.count) items in zone '\(pending.recordIDs.first?.zoneID.zoneName ?? "?")' as too large (\(error.localizedDescription)); splitting it would break its all-or-nothing guarantee, so it was not split. Pass allowsSplittingAtomicBatches: true to split it"
                )
                settle(pending, with: refusal, byRequest: false)
            } else if let (first, second) = planner.halve(pending) {
                queue.insert(contentsOf: [first, second], at: 0)
            } else {
                settle(pending, with: error, byRequest: false)
            }
        }
    }

    /// The items whose record ID appears once, and the others grouped by ID.
    private static func separatingDuplicates(_ batch: ModifyBatch) -> (unique: ModifyBatch, duplicates: [(CKRecord.ID, ModifyBatch)]) {
        var counts: [CKRecord.ID: Int] = [:]
        for recordID in batch.recordIDs { counts[recordID, default: 0] += 1 }
        guard counts.values.contains(where: { $0 > 1 }) else { return (batch, []) }
        var unique = ModifyBatch(isAtomic: batch.isAtomic)
        var duplicates: [CKRecord.ID: ModifyBatch] = [:]
        var order: [CKRecord.ID] = []
        for item in batch.saves {
            let recordID = item.record.recordID
            if counts[recordID, default: 0] > 1 {
                if duplicates[recordID] == nil { order.append(recordID) }
                duplicates[recordID, default: ModifyBatch()].saves.append(item)
            } else {
                unique.saves.append(item)
            }
        }
        for item in batch.deletes {
            if counts[item.recordID, default: 0] > 1 {
                if duplicates[item.recordID] == nil { order.append(item.recordID) }
                duplicates[item.recordID, default: ModifyBatch()].deletes.append(item)
            } else {
                unique.deletes.append(item)
            }
        }
        return (unique, order.compactMap { id in duplicates[id].map { (id, $0) } })
    }

    // MARK: - One request, retried

    private enum BatchEnd {
        case done
        /// The request failed as a whole with `limitExceeded`; these items are still to send.
        case tooLarge(ModifyBatch, CKError)
    }

    /// Sends `batch` and retries what the options allow until every item is settled, or the
    /// request is too large to send as it is.
    private mutating func runBatch(_ batch: ModifyBatch, splitting: BatchSplitting?) async -> BatchEnd {
        var pending = batch
        // The caller's bytes go with the run's first request only: the server answers a later
        // request in the zone with the same bytes as a repeat and applies nothing.
        var token = (callerTokenUsed ? nil : options.clientChangeTokenData) ?? ModifyAttempt.freshClientChangeTokenData()
        callerTokenUsed = true
        var attempt = 0
        let attemptLimit = max(1, options.maximumAttempts)
        while !pending.isEmpty {
            attempt += 1
            if Task.isCancelled {
                settle(pending, with: Self.cancelled, byRequest: true)
                return .done
            }
            let result = await ModifyAttempt.run(
                on: database,
                saving: pending.saves.map(\.record),
                deleting: pending.deletes.map(\.recordID),
                options: options,
                clientChangeTokenData: token
            )

            if let requestError = result.requestError {
                if requestError.code == .limitExceeded, splitting != nil { return .tooLarge(pending, requestError) }
                guard let retry = options.retry, retry.retries(requestError), attempt < attemptLimit else {
                    settle(pending, with: requestError, byRequest: true)
                    return .done
                }
                // A request that may have reached the server is resent with the same bytes, so
                // the server answers it as a repeat if it did; any other with fresh bytes.
                if !Self.mayHaveLanded(requestError) { token = ModifyAttempt.freshClientChangeTokenData() }
                guard await wait(after: attempt, for: [requestError], retrying: pending, policy: retry) else {
                    settle(pending, with: Self.cancelled, byRequest: true)
                    return .done
                }
                continue
            }

            // Per-item outcomes: settle what is final, keep what may be retried.
            var next = ModifyBatch(isAtomic: pending.isAtomic)
            var transient: [CKError] = []
            var merged = false
            var decisions: [Decision] = []
            var zoneRetried: [CKRecordZone.ID: Bool] = [:]
            let lastAttempt = attempt >= attemptLimit
            for (item, itemResult) in zip(pending.saves, result.saveResults) {
                let decision = decide(itemResult.map { Optional($0) }, record: item.record, lastAttempt: lastAttempt)
                decisions.append(decision)
                note(decision, zone: item.record.recordID.zoneID, in: &zoneRetried)
            }
            var deleteDecisions: [Decision] = []
            for (item, itemResult) in zip(pending.deletes, result.deleteResults) {
                let decision = decide(itemResult.map { _ in nil }, record: nil, lastAttempt: lastAttempt)
                deleteDecisions.append(decision)
                note(decision, zone: item.recordID.zoneID, in: &zoneRetried)
            }
            for (item, decision) in zip(pending.saves, decisions) {
                switch resolve(decision, zone: item.record.recordID.zoneID, zoneRetried: zoneRetried) {
                case .settled(let outcome): saveResults[item.index] = outcome.map { $0 ?? item.record }
                case .retry(let record, let error):
                    next.saves.append((item.index, record ?? item.record))
                    if let error { transient.append(error) } else if record != nil { merged = true }
                case .companion(let error): saveResults[item.index] = .failure(error)
                }
            }
            for (item, decision) in zip(pending.deletes, deleteDecisions) {
                switch resolve(decision, zone: item.recordID.zoneID, zoneRetried: zoneRetried) {
                case .settled(let outcome): deleteResults[item.index] = outcome.map { _ in () }
                case .retry(_, let error):
                    next.deletes.append(item)
                    if let error { transient.append(error) }
                case .companion(let error): deleteResults[item.index] = .failure(error)
                }
            }
            pending = next
            guard !pending.isEmpty else { return .done }
            token = ModifyAttempt.freshClientChangeTokenData()
            if !transient.isEmpty, let retry = options.retry {
                guard await wait(after: attempt, for: transient, retrying: pending, policy: retry) else {
                    settle(pending, with: Self.cancelled, byRequest: true)
                    return .done
                }
            } else if merged, let retry = options.retry {
                let event = RetryEvent(attempt: attempt, error: CKError(.serverRecordChanged, message: "conflicts were merged"), wait: .none, recordIDs: pending.recordIDs)
                retry.onRetry?(event)
            }
        }
        return .done
    }

    // MARK: - Item decisions

    /// What became of one item in an attempt.
    private enum Decision {
        /// Final: the saved record (nil for a delete, or to keep the sent one) or the error.
        case settled(Result<CKRecord?, any Error>)
        /// Sent again: the record to send (nil: the same), and the transient error, if that is why.
        case retry(CKRecord?, CKError?)
        /// `batchRequestFailed`: sent again only if every real failure of its zone is.
        case companion(CKError)
    }

    private func decide(_ result: Result<CKRecord?, any Error>, record: CKRecord?, lastAttempt: Bool) -> Decision {
        guard case .failure(let failure) = result else { return .settled(result) }
        guard let error = failure as? CKError else { return .settled(result) }
        if error.code == .batchRequestFailed { return lastAttempt ? .settled(result) : .companion(error) }
        if lastAttempt { return .settled(result) }
        if error.code == .serverRecordChanged, let merge = options.merge, let record, let server = error.serverRecord {
            do {
                let merged = try merge(server, error.clientRecord ?? record, error.ancestorRecord)
                guard merged.recordID == record.recordID else {
                    return .settled(.failure(CKError(.invalidArguments, message: "the conflict merge returned record '\(merged.recordID.recordName)' for record '\(record.recordID.recordName)'; it must return a record with the same ID")))
                }
                return .retry(merged, nil)
            } catch {
                return .settled(.failure(error))
            }
        }
        if let retry = options.retry, retry.retries(error) { return .retry(nil, error) }
        return .settled(result)
    }

    /// Notes whether the zone's real failures are all being retried.
    private func note(_ decision: Decision, zone: CKRecordZone.ID, in zoneRetried: inout [CKRecordZone.ID: Bool]) {
        switch decision {
        case .retry: zoneRetried[zone] = zoneRetried[zone] ?? true
        case .settled(.failure): zoneRetried[zone] = false
        case .settled(.success), .companion: break
        }
    }

    private func resolve(_ decision: Decision, zone: CKRecordZone.ID, zoneRetried: [CKRecordZone.ID: Bool]) -> Decision {
        guard case .companion(let error) = decision else { return decision }
        return zoneRetried[zone] == true ? .retry(nil, nil) : .settled(.failure(error))
    }

    // MARK: - Waiting

    /// Waits before a retry of `pending` after `errors`: for an account change, the largest
    /// retry-after among them, or the policy's backoff. False when cancelled.
    private mutating func wait(after attempt: Int, for errors: [CKError], retrying pending: ModifyBatch, policy: RetryPolicy) async -> Bool {
        retriesSoFar += 1
        return await RecipeWait.beforeRetry(
            after: errors, attempt: attempt, retry: retriesSoFar, recordIDs: pending.recordIDs,
            policy: policy, generator: &generator, in: database.container
        )
    }

    private static func mayHaveLanded(_ error: CKError) -> Bool {
        error.code == .serverResponseLost || (error.userInfo[NSUnderlyingErrorKey] as? URLError)?.code == .timedOut
    }

    private static var cancelled: CKError {
        CKError(.operationCancelled, message: "the recipe was cancelled before this item was settled")
    }

    // MARK: - Results

    private mutating func settle(_ batch: ModifyBatch, with error: CKError, byRequest: Bool) {
        for item in batch.saves { saveResults[item.index] = .failure(error) }
        for item in batch.deletes { deleteResults[item.index] = .failure(error) }
        guard byRequest else { return }
        itemsFailedByRequests += batch.count
        if !requestErrors.contains(where: { $0 == error }) { requestErrors.append(error) }
    }

    private var outcome: ModifyRecipeOutcome {
        let missing = CKError(.internalError, message: "the recipe settled no result for this item")
        let saveList = zip(saves, saveResults).map { ($0.recordID, $1 ?? .failure(missing)) }
        let deleteList = zip(deletes, deleteResults).map { ($0, $1 ?? .failure(missing)) }
        var failure: CKError?
        if itemsFailedByRequests == saves.count + deletes.count, requestErrors.count == 1, let only = requestErrors.first {
            failure = only
        } else {
            failure = ModifyReport(saves: saveList, deletes: deleteList).finalError
        }
        return ModifyRecipeOutcome(saves: saveList, deletes: deleteList, failure: failure)
    }
}
