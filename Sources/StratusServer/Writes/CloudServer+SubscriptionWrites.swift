import StratusWire

extension CloudServer {
    /// Applies a subscription modify request to `owner`'s subscriptions in `database`: each
    /// item succeeds or fails on its own, saves first (``modifySubscriptions(_:)`` lists the
    /// rules).
    func modify(_ request: WireSubscriptionsModifyRequest, in database: DatabaseStore, owner: String, scope: RequestScope) throws(WireError) -> WireSubscriptionsModifyResponse {
        try Self.checkItemCount(request.saves.count + request.deletes.count, of: "subscriptions")
        var seen: [WireName: Int] = [:]
        for subscriptionID in request.saves.map(\.subscriptionID) + request.deletes { seen[WireName(subscriptionID), default: 0] += 1 }
        let duplicate = { (subscriptionID: String) -> WireError? in
            (seen[WireName(subscriptionID)] ?? 0) > 1
                ? WireError(.invalidArguments, "subscription '\(subscriptionID)' appears more than once in the request")
                : nil
        }
        let schema = scope.container.schema.withLock { $0 }
        let saveResults = request.saves.map { subscription -> WireItemResult<String, WireSubscription> in
            if let error = duplicate(subscription.subscriptionID)
                ?? check(subscription, in: database, scope: scope, schema: schema) {
                return WireItemResult(id: subscription.subscriptionID, result: .failure(error))
            }
            database.subscriptions.save(subscription, owner: owner)
            return WireItemResult(id: subscription.subscriptionID, result: .success(subscription))
        }
        let deleteResults = request.deletes.map { subscriptionID -> WireItemResult<String, Void> in
            if let error = duplicate(subscriptionID) ?? Self.checkSubscriptionID(subscriptionID) {
                return WireItemResult(id: subscriptionID, result: .failure(error))
            }
            guard database.subscriptions.remove(subscriptionID, owner: owner) else {
                return WireItemResult(id: subscriptionID, result: .failure(Self.unknownSubscription(subscriptionID)))
            }
            return WireItemResult(id: subscriptionID, result: .success(()))
        }
        return WireSubscriptionsModifyResponse(saveResults: saveResults, deleteResults: deleteResults)
    }

    /// Why `subscription` cannot be saved in `database`, or nil.
    private func check(_ subscription: WireSubscription, in database: DatabaseStore, scope: RequestScope, schema: ServerSchema) -> WireError? {
        let name = subscription.subscriptionID
        if let error = Self.checkSubscriptionID(name) { return error }
        guard let info = subscription.notificationInfo else {
            return WireError(.invalidArguments, "subscription '\(name)' has no notificationInfo; set one before saving it")
        }
        if info.shouldSendContentAvailable, !storeSettings.allowsSilentPushesWithUIKeys, let key = info.uiKeys.first {
            return WireError(.invalidArguments, "subscription '\(name)' asks for a silent push (shouldSendContentAvailable) and sets \(key); a silent push carries no alert, sound or badge")
        }
        switch (subscription.kind, database.scope) {
        case (.query, .shared):
            return WireError(.badDatabase, "query subscriptions are not supported in the shared database; subscription '\(name)' cannot be saved there")
        case (.recordZone, .public), (.database, .public):
            return WireError(.badDatabase, "\(subscription.kind == .database ? "database" : "zone") subscriptions are not supported in the public database; subscription '\(name)' cannot be saved there")
        case (.recordZone, .shared):
            return WireError(.badDatabase, "zone subscriptions are not supported in the shared database; use a database subscription; subscription '\(name)' cannot be saved there")
        default:
            break
        }
        switch subscription.kind {
        case .query:
            return checkQuery(subscription, in: database, scope: scope, schema: schema)
        case .recordZone:
            guard let zoneID = subscription.zoneID else {
                return WireError(.invalidArguments, "zone subscription '\(name)' names no zone")
            }
            if let error = WireValidation.checkZoneName(zoneID.zoneName) { return error }
            let normalized = scope.normalized(zoneID)
            guard let zone = database.zone(normalized) else { return database.missingZoneError(normalized) }
            guard zone.zone.capabilities.contains(.fetchChanges) else {
                return WireError(.invalidArguments, "zone '\(zoneID.zoneName)' does not support fetchChanges, so zone subscription '\(name)' cannot watch it (the default zone never does)")
            }
        case .database:
            break
        }
        if let recordType = subscription.recordType, recordType.isEmpty {
            return WireError(.invalidArguments, "subscription '\(name)' names an empty record type")
        }
        return nil
    }

    private func checkQuery(_ subscription: WireSubscription, in database: DatabaseStore, scope: RequestScope, schema: ServerSchema) -> WireError? {
        let name = subscription.subscriptionID
        guard !subscription.queryOptions.isDisjoint(with: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion]) else {
            return WireError(.invalidArguments, "query subscription '\(name)' fires on none of record creation, update and deletion; give it at least one of firesOnRecordCreation, firesOnRecordUpdate and firesOnRecordDeletion")
        }
        guard let recordType = subscription.recordType, !recordType.isEmpty else {
            return WireError(.invalidArguments, "query subscription '\(name)' names no record type")
        }
        guard let predicate = subscription.predicate else {
            return WireError(.invalidArguments, "query subscription '\(name)' has no predicate")
        }
        guard predicate.isWithinMaximumDepth else {
            return WireError(.invalidArguments, "the predicate of query subscription '\(name)' nests more than \(WirePredicate.maximumDepth) levels deep (each NOT, AND and list of values is a level)")
        }
        if let problem = predicate.valueProblem {
            return WireError(.invalidArguments, "the predicate of query subscription '\(name)' cannot be used: \(problem)")
        }
        let query = WireQuery(recordType: recordType, predicate: predicate)
        if let error = schema.checkIndexes(for: query) ?? schema.checkLocations(for: query) { return error }
        if let zoneID = subscription.zoneID {
            if let error = WireValidation.checkZoneName(zoneID.zoneName) { return error }
            let normalized = scope.normalized(zoneID)
            if database.zone(normalized) == nil { return database.missingZoneError(normalized) }
        }
        return nil
    }

    static func checkSubscriptionID(_ subscriptionID: String) -> WireError? {
        if subscriptionID.isEmpty { return WireError(.invalidArguments, "a subscription ID cannot be empty") }
        if subscriptionID.utf8.count > WireLimits.maximumNameBytes {
            return WireError(.invalidArguments, "subscription ID '\(subscriptionID.prefix(40))…' is \(subscriptionID.utf8.count) UTF-8 bytes; the limit is \(WireLimits.maximumNameBytes)")
        }
        return nil
    }

    static func unknownSubscription(_ subscriptionID: String) -> WireError {
        WireError(.unknownItem, "subscription '\(subscriptionID)' does not exist")
    }
}
