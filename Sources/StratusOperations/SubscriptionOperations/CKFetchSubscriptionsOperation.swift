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
                finish(reporting: ItemReport(response.subscriptions.map { ($0.subscriptionID, .success(CKSubscription.make(wire: $0))) }), through: deliverResults)
            case .failure(let error):
                finish(reporting: ItemReport([], failure: error), through: deliverResults)
            }
            return
        }
        let subscriptionIDs = subscriptionIDs ?? []
        await lookUp(subscriptionIDs, { service, context async throws(WireError) in
            try await service.lookupSubscriptions(WireSubscriptionsLookupRequest(context: context, ids: subscriptionIDs)).results
        }, making: CKSubscription.make(wire:), through: deliverResults)
    }

    override func reportFailure(_ error: CKError) {
        deliverResults(.failing(subscriptionIDs ?? [], with: error))
    }

    // MARK: - Result mapping

    /// Calls the per-item blocks in order, then the final block. Runs on the callback queue.
    private func deliverResults(_ results: ItemReport<CKSubscription.ID, CKSubscription>) {
        deliverEach(results.items, to: perSubscriptionResultBlock)
        let legacyFinal = blocks[\CKFetchSubscriptionsOperation._fetchSubscriptionCompletionBlock]
        deliverFinal(results.finalError, to: fetchSubscriptionsResultBlock, orLegacy: legacyFinal.map { legacy in { legacy(results.valuesByID, $0) } })
    }
}
