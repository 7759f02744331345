import StratusCore

// The subscription convenience methods of CKDatabase. Each runs one operation at
// `.userInitiated` quality of service, so each costs one request. Single-subscription methods
// throw the subscription's own error; batch methods throw only when the whole request fails.

extension CKDatabase {
    /// Fetches one subscription.
    ///
    /// - Throws: `unknownItem` when the user has no subscription with that ID in this
    ///   database, or the request's error.
    public func subscription(for subscriptionID: CKSubscription.ID) async throws -> CKSubscription {
        let results = try await subscriptions(for: [subscriptionID])
        return try results.result(for: subscriptionID, of: "subscription '\(subscriptionID)'")
    }

    /// Fetches one subscription and passes it, or the error, to `completionHandler`.
    @preconcurrency
    public func fetch(withSubscriptionID subscriptionID: CKSubscription.ID, completionHandler: @escaping @Sendable (CKSubscription?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.subscription(for: subscriptionID) }
    }

    /// Fetches every subscription the user has in this database, by ID.
    @discardableResult
    public func allSubscriptions() async throws -> [CKSubscription] {
        try await perform(CKFetchSubscriptionsOperation.fetchAllSubscriptionsOperation()) { operation, resume in
            var subscriptions: [CKSubscription] = []
            operation.perSubscriptionResultBlock = { _, result in
                if case .success(let subscription) = result { subscriptions.append(subscription) }
            }
            operation.fetchSubscriptionsResultBlock = { final in
                resume(final.map { subscriptions })
            }
        }
    }

    /// Fetches every subscription and passes them, or the error, to `completionHandler`.
    @preconcurrency
    public func fetchAllSubscriptions(completionHandler: @escaping @Sendable ([CKSubscription]?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.allSubscriptions() }
    }

    /// Saves one subscription, replacing a saved one with the same ID.
    ///
    /// - Returns: The subscription as the server keeps it, a new object.
    /// - Throws: `invalidArguments` (no notification info, a query subscription that fires on
    ///   nothing, a predicate CloudKit does not accept, a zone without `fetchChanges`),
    ///   `badDatabase` (a kind the database does not allow), `zoneNotFound`, or the request's
    ///   error.
    @discardableResult
    public func save(_ subscription: CKSubscription) async throws -> CKSubscription {
        let (saveResults, _) = try await modifySubscriptions(saving: [subscription], deleting: [])
        return try saveResults.result(for: subscription.subscriptionID, of: "subscription '\(subscription.subscriptionID)'")
    }

    /// Saves one subscription and passes it, or the error, to `completionHandler`.
    @preconcurrency
    public func save(_ subscription: CKSubscription, completionHandler: @escaping @Sendable (CKSubscription?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.save(subscription) }
    }

    /// Deletes one subscription.
    ///
    /// - Returns: The ID you passed.
    /// - Throws: `unknownItem` when there is no such subscription, or the request's error.
    @discardableResult
    public func deleteSubscription(withID subscriptionID: CKSubscription.ID) async throws -> CKSubscription.ID {
        let (_, deleteResults) = try await modifySubscriptions(saving: [], deleting: [subscriptionID])
        try deleteResults.result(for: subscriptionID, of: "subscription '\(subscriptionID)'")
        return subscriptionID
    }

    /// Deletes one subscription and passes its ID, or the error, to `completionHandler`.
    @preconcurrency
    public func delete(withSubscriptionID subscriptionID: CKSubscription.ID, completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.deleteSubscription(withID: subscriptionID) }
    }

    /// Fetches subscriptions by ID.
    ///
    /// - Returns: Each subscription, or why it could not be fetched (`unknownItem` for an
    ///   unknown ID), keyed by the IDs you passed.
    /// - Throws: Only when the whole request fails.
    public func subscriptions(for ids: [CKSubscription.ID]) async throws -> [CKSubscription.ID: Result<CKSubscription, any Error>] {
        try await performItems(CKFetchSubscriptionsOperation(subscriptionIDs: ids)) { operation, item, final in
            operation.perSubscriptionResultBlock = item
            operation.fetchSubscriptionsResultBlock = final
        }
    }

    /// Fetches subscriptions by ID and passes the results to `completionHandler`.
    @preconcurrency
    public func fetch(
        withSubscriptionIDs subscriptionIDs: [CKSubscription.ID],
        completionHandler: @escaping @Sendable (Result<[CKSubscription.ID: Result<CKSubscription, any Error>], any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.subscriptions(for: subscriptionIDs) }
    }

    /// Saves and deletes subscriptions in one request.
    ///
    /// - Returns: Each item's outcome, keyed by subscription ID.
    /// - Throws: Only when the whole request fails.
    public func modifySubscriptions(
        saving subscriptionsToSave: [CKSubscription],
        deleting subscriptionIDsToDelete: [CKSubscription.ID]
    ) async throws -> (saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>], deleteResults: [CKSubscription.ID: Result<Void, any Error>]) {
        let operation = CKModifySubscriptionsOperation(subscriptionsToSave: subscriptionsToSave, subscriptionIDsToDelete: subscriptionIDsToDelete)
        let outcome = try await performModify(operation) { operation, save, delete, final in
            operation.perSubscriptionSaveBlock = save
            operation.perSubscriptionDeleteBlock = delete
            operation.modifySubscriptionsResultBlock = final
        }
        return (outcome.saveResults, outcome.deleteResults)
    }

    /// Saves and deletes subscriptions in one request and passes the results to
    /// `completionHandler`.
    @preconcurrency
    public func modifySubscriptions(
        saving subscriptionsToSave: [CKSubscription],
        deleting subscriptionIDsToDelete: [CKSubscription.ID],
        completionHandler: @escaping @Sendable (Result<(saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>], deleteResults: [CKSubscription.ID: Result<Void, any Error>]), any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.modifySubscriptions(saving: subscriptionsToSave, deleting: subscriptionIDsToDelete) }
    }
}
