import StratusCore
import StratusWire

/// What one run of an operation with per-item results reports: each item's result, in the
/// order the items were given, and the error of the whole request, if one failed it.
package struct ItemReport<ID: Hashable, Value> {
    /// Each item with its result, in the order given.
    package var items: [(ID, Result<Value, any Error>)]
    /// The error of the whole request (every item then carries it too); nil when the request
    /// was answered, whatever became of its items.
    package var failure: CKError?

    /// Results of a request that was answered (`failure` nil) or failed as a whole.
    package init(_ items: [(ID, Result<Value, any Error>)], failure: CKError? = nil) {
        self.items = items
        self.failure = failure
    }

    /// Every item of `ids` failing with `error`, the error of the whole request.
    package static func failing(_ ids: [ID], with error: CKError) -> Self {
        Self(ids.map { ($0, .failure(error)) }, failure: error)
    }

    /// The error the final block reports: the request's, or else the `partialFailure` of the
    /// items that failed, or nil.
    package var finalError: CKError? {
        failure ?? CKError.partialFailure(of: items)
    }

    /// The values of the items that succeeded by ID, for a legacy final block; nil when the
    /// request failed.
    package var valuesByID: [ID: Value]? {
        guard failure == nil else { return nil }
        return Dictionary(items.compactMap { id, result in (try? result.get()).map { (id, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The values of the items that succeeded, in order, for a legacy final block; nil when
    /// the request failed.
    package var values: [Value]? {
        guard failure == nil else { return nil }
        return items.compactMap { try? $0.1.get() }
    }

    /// The IDs of the items that succeeded, in order, for a legacy final block; nil when the
    /// request failed.
    package var succeededIDs: [ID]? {
        guard failure == nil else { return nil }
        return items.compactMap { id, result in (try? result.get()).map { _ in id } }
    }

    /// The results without their values, to sum up with other items' results.
    package var outcomes: [(ID, Result<Void, any Error>)] {
        items.map { ($0.0, $0.1.map { _ in () }) }
    }
}

/// What one run of an operation that saves and deletes items reports: the saves' results, the
/// deletes' results, and the error of the whole request, if one failed it.
package struct ModifyReport<ID: Hashable, Value> {
    /// The items to save, with their results.
    package var saves: ItemReport<ID, Value>
    /// The items to delete, with their results.
    package var deletes: ItemReport<ID, Void>

    /// Results of a request that was answered (`failure` nil) or failed as a whole.
    package init(saves: [(ID, Result<Value, any Error>)], deletes: [(ID, Result<Void, any Error>)], failure: CKError? = nil) {
        self.saves = ItemReport(saves, failure: failure)
        self.deletes = ItemReport(deletes, failure: failure)
    }

    /// Every item failing with `error`, the error of the whole request.
    package static func failing(saving: [ID], deleting: [ID], with error: CKError) -> Self {
        Self(saves: ItemReport.failing(saving, with: error).items, deletes: ItemReport.failing(deleting, with: error).items, failure: error)
    }

    /// The error the final block reports: the request's, or else the `partialFailure` of the
    /// saves and deletes that failed, or nil.
    package var finalError: CKError? {
        saves.failure ?? CKError.partialFailure(of: saves.outcomes + deletes.items)
    }
}

extension _AsyncOperation {
    /// Hands each of `items` in order to `perItem`, or, when it is not set, to `legacy` (a
    /// legacy per-item block in the shape of the modern one). Runs where the operation calls
    /// its blocks.
    package func deliverEach<ID, Value>(
        _ items: [(ID, Result<Value, any Error>)],
        to perItem: ((ID, Result<Value, any Error>) -> Void)?,
        orLegacy legacy: ((ID, Result<Value, any Error>) -> Void)? = nil
    ) {
        guard let block = perItem ?? legacy else { return }
        for (id, result) in items { block(id, result) }
    }

    /// Notes `error` as the error the operation reports (its `reportedErrors` once it has
    /// finished), then calls `final` with it, or, when that is not set, `legacy`. Runs where
    /// the operation calls its blocks, last.
    package func deliverFinal<Success>(
        _ result: Result<Success, any Error>,
        to final: ((Result<Success, any Error>) -> Void)?,
        orLegacy legacy: ((Result<Success, any Error>) -> Void)? = nil
    ) {
        if case .failure(let error) = result { finishedError.value = error }
        (final ?? legacy)?(result)
    }

    /// ``deliverFinal(_:to:orLegacy:)`` for an operation whose final block reports success or
    /// `error`; a legacy final block gets the error alone.
    package func deliverFinal(
        _ error: CKError?,
        to final: ((Result<Void, any Error>) -> Void)?,
        orLegacy legacy: (((any Error)?) -> Void)? = nil
    ) {
        deliverFinal(error.map { .failure($0) } ?? .success(()), to: final, orLegacy: legacy.map { legacy in { legacy($0.failure) } })
    }
}

extension CKOperation {
    /// Finishes the operation with `report`'s request error, handing `report` to `deliver` on
    /// the callback queue.
    func finish<Report: ItemReporting>(reporting report: Report, through deliver: @escaping (Report) -> Void) {
        finish(with: report.requestError) { deliver(report) }
    }

    /// Looks up `ids` in one request, unless there are none (then it sends nothing), and
    /// finishes the operation with each item's result, in the order of `ids`: the value
    /// `make` builds from the server's, or the server's error for that item; if the request
    /// fails as a whole, every item gets its error.
    func lookUp<ID, WireID, Wire, Value>(
        _ ids: [ID],
        _ call: @escaping @Sendable (any CloudService, WireRequestContext) async throws(WireError) -> [WireItemResult<WireID, Wire>],
        making make: (Wire) -> Value,
        through deliver: @escaping (ItemReport<ID, Value>) -> Void
    ) async {
        guard !ids.isEmpty else { return finish(reporting: ItemReport([]), through: deliver) }
        let report: ItemReport<ID, Value> = switch await send(to: runDatabase, call) {
        case .success(let answers): ItemReport(zip(ids, answers).map { id, answer in (id, answer.result.map(make).mapError { CKError($0) as any Error }) })
        case .failure(let error): .failing(ids, with: error)
        }
        finish(reporting: report, through: deliver)
    }
}

/// A run's results, whose request may have failed as a whole.
protocol ItemReporting {
    /// The error of the whole request, if one failed it.
    var requestError: CKError? { get }
}

extension ItemReport: ItemReporting {
    var requestError: CKError? { failure }
}

extension ModifyReport: ItemReporting {
    var requestError: CKError? { saves.failure }
}

extension Result {
    /// The error of a failure; nil for a success.
    package var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension CKError {
    /// The `partialFailure` summing up the failed items of `results`, keyed by their IDs, or
    /// nil when every item succeeded.
    package static func partialFailure<ID: Hashable, Value>(of results: [(ID, Result<Value, any Error>)]) -> CKError? {
        var errors: [AnyHashable: any Error] = [:]
        for (id, result) in results {
            if case .failure(let error) = result { errors[AnyHashable(id)] = error }
        }
        guard !errors.isEmpty else { return nil }
        return CKError(.partialFailure, message: "\(errors.count) of \(results.count) items failed; see partialErrorsByItemID", extra: [CKPartialErrorsByItemIDKey: errors])
    }
}
