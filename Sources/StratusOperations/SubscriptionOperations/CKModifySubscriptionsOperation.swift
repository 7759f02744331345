import StratusCore
import StratusWire

/// Saves and deletes subscriptions in one request.
///
/// Each item succeeds or fails on its own. Saving a subscription whose ID exists replaces it;
/// deleting an unknown ID is an `unknownItem` error for that item. A subscription whose
/// predicate CloudKit does not accept fails with `invalidArguments` before anything is sent
/// and the others are still sent; the server refuses a subscription without notification info,
/// a query subscription that fires on nothing, and kinds the database does not allow.
///
/// CloudKit document: *CKModifySubscriptionsOperation*.
public final class CKModifySubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    // MARK: - Properties

    /// The subscriptions to save.
    @_Locked public var subscriptionsToSave: [CKSubscription]? = nil

    /// The IDs of the subscriptions to delete.
    @_Locked public var subscriptionIDsToDelete: [CKSubscription.ID]? = nil

    /// Creates an operation that saves `subscriptionsToSave` and deletes `subscriptionIDsToDelete`.
    public convenience init(subscriptionsToSave: [CKSubscription]? = nil, subscriptionIDsToDelete: [CKSubscription.ID]? = nil) {
        self.init()
        self.subscriptionsToSave = subscriptionsToSave
        self.subscriptionIDsToDelete = subscriptionIDsToDelete
    }

    // MARK: - Per-item callbacks

    /// Called once per subscription to save, with the subscription as the server keeps it, or
    /// why not.
    @_OperationBlock public var perSubscriptionSaveBlock: ((_ subscriptionID: CKSubscription.ID, _ saveResult: Result<CKSubscription, any Error>) -> Void)?

    /// Called once per subscription to delete.
    @_OperationBlock public var perSubscriptionDeleteBlock: ((_ subscriptionID: CKSubscription.ID, _ deleteResult: Result<Void, any Error>) -> Void)?

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` repeating the
    /// per-item failures, keyed by subscription ID.
    @_OperationBlock public var modifySubscriptionsResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?

    /// The legacy final block, with the saved subscriptions and deleted IDs; ignored when
    /// ``modifySubscriptionsResultBlock`` is set.
    @available(*, deprecated, message: "Use modifySubscriptionsResultBlock instead")
    @_OperationBlock public var modifySubscriptionsCompletionBlock: ((_ savedSubscriptions: [CKSubscription]?, _ deletedSubscriptionIDs: [CKSubscription.ID]?, _ operationError: (any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let subscriptions = subscriptionsToSave ?? []
        let deletes = subscriptionIDsToDelete ?? []
        guard !subscriptions.isEmpty || !deletes.isEmpty else {
            finish(reporting: ModifyReport(saves: [], deletes: []), through: deliverResults)
            return
        }
        // Refused on the client: a predicate outside CloudKit's subset. The rest are sent.
        let prepared = subscriptions.map { $0.wireValue() }
        let wireSaves = prepared.compactMap { try? $0.get() }
        guard !wireSaves.isEmpty || !deletes.isEmpty else {
            finish(reporting: ModifyReport(saves: zip(subscriptions, prepared).map { subscription, value in
                (subscription.subscriptionID, .failure(Self.clientError(value)))
            }, deletes: []), through: deliverResults)
            return
        }
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.modifySubscriptions(WireSubscriptionsModifyRequest(context: context, saves: wireSaves, deletes: deletes))
        }
        switch response {
        case .success(let response):
            var answers = response.saveResults.makeIterator()
            let saves = zip(subscriptions, prepared).map { subscription, value -> (CKSubscription.ID, Result<CKSubscription, any Error>) in
                guard case .success = value else { return (subscription.subscriptionID, .failure(Self.clientError(value))) }
                guard let answer = answers.next() else {
                    return (subscription.subscriptionID, .failure(CKError(.internalError, message: "the server gave no result for subscription '\(subscription.subscriptionID)'")))
                }
                return (subscription.subscriptionID, answer.result.map { CKSubscription.make(wire: $0) }.mapError { CKError($0) as any Error })
            }
            finish(reporting: ModifyReport(saves: saves, deletes: zip(deletes, response.deleteResults).map { subscriptionID, answer in
                (subscriptionID, answer.result.mapError { CKError($0) as any Error })
            }), through: deliverResults)
        case .failure(let error):
            finish(reporting: .failing(saving: subscriptions.map(\.subscriptionID), deleting: deletes, with: error), through: deliverResults)
        }
    }

    private static func clientError(_ value: Result<WireSubscription, CKError>) -> any Error {
        if case .failure(let error) = value { return error }
        return CKError(.internalError, message: "no client error")
    }

    override func reportFailure(_ error: CKError) {
        deliverResults(.failing(saving: (subscriptionsToSave ?? []).map(\.subscriptionID), deleting: subscriptionIDsToDelete ?? [], with: error))
    }

    // MARK: - Result mapping

    /// Calls the per-item blocks in order, saves first, then the final block. Runs on the
    /// callback queue.
    private func deliverResults(_ results: ModifyReport<CKSubscription.ID, CKSubscription>) {
        deliverEach(results.saves.items, to: perSubscriptionSaveBlock)
        deliverEach(results.deletes.items, to: perSubscriptionDeleteBlock)
        let legacyFinal = blocks[\CKModifySubscriptionsOperation._modifySubscriptionsCompletionBlock]
        deliverFinal(results.finalError, to: modifySubscriptionsResultBlock, orLegacy: legacyFinal.map { legacy in { legacy(results.saves.values, results.deletes.succeededIDs, $0) } })
    }
}
