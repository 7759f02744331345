import StratusCore
import StratusWire

/// Fetches subscriptions by ID, or every subscription the user has in the database, in one
/// request.
///
/// An unknown ID is an `unknownItem` error for that item; the final block then reports a
/// `partialFailure` whose per-item errors are keyed by the subscription ID strings.
///
/// CloudKit document: *CKFetchSubscriptionsOperation*.
public final class CKFetchSubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    // MARK: - Properties

    @_Locked private var fetchesAllSubscriptions = false

    /// The subscriptions to fetch; nil for an operation made by
    /// ``fetchAllSubscriptionsOperation()``.
    @_Locked public var subscriptionIDs: [CKSubscription.ID]? = nil

    /// Creates an operation with no subscriptions to fetch yet.
    public override init() {
        super.init()
    }

    /// Creates an operation that fetches `subscriptionIDs`.
    public convenience init(subscriptionIDs: [CKSubscription.ID]) {
        self.init()
        self.subscriptionIDs = subscriptionIDs
    }

    /// An operation that fetches every subscription the user has in the database.
    public class func fetchAllSubscriptionsOperation() -> Self {
        let operation = Self()
        operation.fetchesAllSubscriptions = true
        return operation
    }

    // MARK: - Per-item callbacks

    /// Called once per subscription with the subscription or why it could not be fetched.
    @_OperationBlock public var perSubscriptionResultBlock: ((_ subscriptionID: CKSubscription.ID, _ subscriptionResult: Result<CKSubscription, any Error>) -> Void)?

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` repeating the
    /// per-subscription failures, keyed by subscription ID.
    @_OperationBlock public var fetchSubscriptionsResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?

    /// The legacy final block, with the subscriptions by ID; ignored when
    /// ``fetchSubscriptionsResultBlock`` is set. After a partial failure it gets the
    /// subscriptions that were fetched and a `partialFailure` keyed by subscription ID strings.
    @available(*, deprecated, message: "Use fetchSubscriptionsResultBlock instead")
    @_OperationBlock public var fetchSubscriptionCompletionBlock: ((_ subscriptionsBySubscriptionID: [CKSubscription.ID: CKSubscription]?, _ operationError: (any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        if fetchesAllSubscriptions {
            let response = await send(to: runDatabase) { service, context async throws(WireError) in
                try await service.listSubscriptions(context)
            }
            switch response {
            case .success(let response):
                report(response.subscriptions.map { ($0.subscriptionID, .success(CKSubscription.make(wire: $0))) }, failure: nil)
            case .failure(let error):
                report([], failure: error)
            }
            return
        }
        let subscriptionIDs = subscriptionIDs ?? []
        guard !subscriptionIDs.isEmpty else {
            report([], failure: nil)
            return
        }
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.lookupSubscriptions(WireSubscriptionsLookupRequest(context: context, subscriptionIDs: subscriptionIDs))
        }
        switch response {
        case .success(let response):
            report(zip(subscriptionIDs, response.results).map { subscriptionID, answer in
                (subscriptionID, answer.result.map { CKSubscription.make(wire: $0) }.mapError { CKError($0) as any Error })
            }, failure: nil)
        case .failure(let error):
            report(subscriptionIDs.map { ($0, .failure(error)) }, failure: error)
        }
    }

    override func reportFailure(_ error: CKError) {
        deliverResults((subscriptionIDs ?? []).map { ($0, .failure(error)) }, failure: error)
    }

    // MARK: - Result mapping

    private func report(_ results: [(CKSubscription.ID, Result<CKSubscription, any Error>)], failure: CKError?) {
        finish(with: failure) { self.deliverResults(results, failure: failure) }
    }

    private func deliverResults(_ results: [(CKSubscription.ID, Result<CKSubscription, any Error>)], failure: CKError?) {
        if let perSubscription = perSubscriptionResultBlock {
            for (subscriptionID, result) in results { perSubscription(subscriptionID, result) }
        }
        let error = failure ?? CKError.partialFailure(of: results)
        finishedError.value = error   // what `reportedErrors` gives the toolkit
        if let final = fetchSubscriptionsResultBlock {
            final(error.map { .failure($0) } ?? .success(()))
        } else if let legacyFinal: ([CKSubscription.ID: CKSubscription]?, (any Error)?) -> Void = blocks[\CKFetchSubscriptionsOperation._fetchSubscriptionCompletionBlock] {
            let subscriptions = Dictionary(results.compactMap { id, result in (try? result.get()).map { (id, $0) } }, uniquingKeysWith: { first, _ in first })
            legacyFinal(failure == nil ? subscriptions : nil, error)
        }
    }
}
