import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/listSubscriptions(_:)``
    public func listSubscriptions(_ context: WireRequestContext) async throws(WireError) -> WireSubscriptionsListResponse {
        let scope = try await begin(context, .listSubscriptions)
        let (database, owner) = try subscriptionOwner(scope)
        return WireSubscriptionsListResponse(subscriptions: database.subscriptions.all(owner: owner))
    }

    /// - SeeAlso: ``CloudService/lookupSubscriptions(_:)``
    public func lookupSubscriptions(_ request: WireSubscriptionsLookupRequest) async throws(WireError) -> WireSubscriptionsLookupResponse {
        let scope = try await begin(request.context, .lookupSubscriptions)
        let (database, owner) = try subscriptionOwner(scope)
        try Self.checkItemCount(request.ids.count, of: "subscriptions")
        return WireSubscriptionsLookupResponse(results: request.ids.map { subscriptionID in
            if let error = Self.checkSubscriptionID(subscriptionID) {
                return WireItemResult(id: subscriptionID, result: .failure(error))
            }
            guard let subscription = database.subscriptions.subscription(subscriptionID, owner: owner) else {
                return WireItemResult(id: subscriptionID, result: .failure(Self.unknownSubscription(subscriptionID)))
            }
            return WireItemResult(id: subscriptionID, result: .success(subscription))
        })
    }

    /// - SeeAlso: ``CloudService/modifySubscriptions(_:)``
    ///
    /// Each item succeeds or fails on its own, saves first, in request order. The rules:
    /// - a subscription needs `notificationInfo` (`invalidArguments`);
    /// - query subscriptions are not allowed in the shared database, zone and database
    ///   subscriptions not in the public database, and zone subscriptions not in the shared
    ///   database either, as CloudKit's header says (`badDatabase`);
    /// - a query subscription fires on at least one of creation, update and deletion, names a
    ///   record type, and has a predicate in CloudKit's subset, no deeper than
    ///   ``WirePredicate/maximumDepth``, whose fields are queryable in production
    ///   (`invalidArguments`); its zone, when it names one, exists (`zoneNotFound`);
    /// - a zone subscription's zone exists (`zoneNotFound`) and supports `fetchChanges`
    ///   (`invalidArguments`, so never the default zone);
    /// - a silent push (`shouldSendContentAvailable`) with UI keys is `invalidArguments` unless
    ///   ``allowsSilentPushesWithUIKeys`` is set;
    /// - an ID named twice in one request fails every time it appears (`invalidArguments`);
    /// - deleting an unknown ID is `unknownItem`.
    public func modifySubscriptions(_ request: WireSubscriptionsModifyRequest) async throws(WireError) -> WireSubscriptionsModifyResponse {
        let scope = try await begin(request.context, .modifySubscriptions)
        let (database, owner) = try subscriptionOwner(scope)
        return try modify(request, in: database, owner: owner, scope: scope)
    }

    /// The database whose subscriptions a request reads or changes, and the user they belong
    /// to. Subscriptions need an account in every database, the public one included.
    private func subscriptionOwner(_ scope: RequestScope) throws(WireError) -> (DatabaseStore, String) {
        let account = try scope.requireAccount()
        return (scope.container.database(scope.databaseScope, account: account.account), account.userRecordName)
    }

}
