import Foundation
import StratusWire

extension CloudServer {
    /// Runs a query request in `database` for `scope`'s caller, through the read view
    /// (``ZoneView``): its own query or its cursor's, in one zone or (outside the shared
    /// database) all of them, a page at a time (``queryRecords(_:)``).
    func query(_ request: WireQueryRequest, in database: DatabaseStore, scope: RequestScope) throws(WireError) -> WireQueryResponse {
        let (resolvedQuery, zoneID, after) = try resolve(request, scope: scope)
        var query = resolvedQuery
        let schema = scope.container.schema.withLock { $0 }
        guard schema.hasRecordType(query.recordType) || query.recordType == "Users" else {
            throw WireError(.unknownItem, "record type '\(query.recordType)' does not exist")
        }
        if let error = schema.checkIndexes(for: query) ?? schema.checkLocations(for: query) { throw error }
        if database.scope == .public {
            let permissions = scope.container.permissions(for: query.recordType)
            guard !(permissions.world.union(permissions.authenticated).union(permissions.creator)).intersection(.read).isEmpty else {
                throw WireError(.permissionFailure, "reading records of type '\(query.recordType)' is not allowed")
            }
        }

        let views: [ZoneView]
        if let zoneID {
            let view = try view(of: zoneID, in: database, scope: scope)
            // A shared zone's records are its owner's: query them as the owner's database
            // names them.
            query.predicate = view.storedForm(of: query.predicate)
            views = [view]
        } else if database.scope == .shared {
            throw WireError(.invalidArguments, "a query in the shared database names the zone to search")
        } else {
            views = self.views(of: database, scope: scope)
        }

        let context = WirePredicateContext(now: clock.now, currentUserRecordName: scope.userRecordName)
        let order = QueryOrder(descriptors: query.sortDescriptors)
        let limit = request.resultsLimit > 0 ? request.resultsLimit : defaultQueryResultsLimit
        let equality = query.predicate.indexableEquality.map { scope.storedForm(of: $0) }
        let plan = QueryPlan(query: query, equality: equality, context: context)
        var matches: [(key: QueryOrder.Key, record: WireRecord, view: Int)] = []
        var examined = 0
        for (position, view) in views.enumerated() {
            // Each zone gives at most one page and one more, in order, when its index gives
            // them in order; every match otherwise.
            var view = view
            var found = 0
            do throws(WireError) {
                try view.acquire()
            } catch {
                // A shared zone the caller no longer sees is an error; a zone of their own
                // deleted meanwhile has no records.
                if view.shared != nil { throw error }
                continue
            }
            plan.forEachCandidate(in: view.store, order: order, after: after, examined: &examined) { stored, key in
                if view.canRead(stored), query.predicate.evaluate(stored.record, in: context) {
                    matches.append((key, stored.record, position))
                    found += 1
                }
                return !plan.isOrdered || found <= limit
            }
            view.release()
        }
        matches.sort { order.precedes($0.key, $1.key) }
        registry.withLock { $0.examinedByLastQuery = examined }

        let page = matches.prefix(limit)
        var cursor: [UInt8]?
        if matches.count > limit, let last = page.last {
            cursor = QueryCursor(
                containerIdentifier: scope.container.identifier,
                database: scope.databaseScope,
                userRecordName: scope.userRecordName,
                zoneID: zoneID,
                query: query,
                lastValues: last.key.values,
                lastRecordID: last.key.recordID
            ).sealed(with: sealingKey)
        }
        return WireQueryResponse(records: page.map { match in
            present(match.record, in: views[match.view], desiredKeys: request.desiredKeys)
        }, cursor: cursor)
    }

    /// The query, zone and starting point of a request: its own, or its cursor's, checked to
    /// belong to this server, database and user.
    ///
    /// The query's predicate is checked against ``WirePredicate/maximumDepth`` here, before
    /// anything else reads it: validation, index planning, evaluation, hashing and the cursor's
    /// encoding all recurse into the predicate, and a request need not come from Stratus's
    /// parser. The depth is measured without recursion.
    private func resolve(_ request: WireQueryRequest, scope: RequestScope) throws(WireError) -> (WireQuery, WireZoneID?, QueryOrder.Key?) {
        guard let bytes = request.cursor else {
            guard let query = request.query else { throw WireError(.invalidArguments, "a query request needs a query or a cursor") }
            try Self.checkPredicate(of: query)
            return (query, request.zoneID, nil)
        }
        let cursor = try QueryCursor.open(bytes, key: sealingKey)
        try Self.checkPredicate(of: cursor.query)
        guard cursor.containerIdentifier == scope.container.identifier, cursor.database == scope.databaseScope else {
            throw WireError(.invalidArguments, "the query cursor belongs to another container or database")
        }
        guard cursor.userRecordName == scope.userRecordName else {
            throw WireError(.invalidArguments, "the query cursor belongs to another user")
        }
        guard cursor.lastValues.count == cursor.query.sortDescriptors.count else {
            throw WireError(.invalidArguments, "the query cursor is not one this server issued, or it was altered")
        }
        return (cursor.query, cursor.zoneID, QueryOrder.Key(values: cursor.lastValues, recordID: cursor.lastRecordID))
    }

    /// Refuses a query whose predicate nests deeper than ``WirePredicate/maximumDepth``, or
    /// holds a value its cursor could not carry (``WirePredicate/valueProblem``), or whose
    /// location sort measures from a location that is not valid: what the server answers, it
    /// can also page.
    private static func checkPredicate(of query: WireQuery) throws(WireError) {
        guard query.predicate.isWithinMaximumDepth else {
            throw WireError(.invalidArguments, "the query's predicate nests more than \(WirePredicate.maximumDepth) levels deep (each NOT, AND and list of values is a level)")
        }
        if let problem = query.predicate.valueProblem {
            throw WireError(.invalidArguments, "the query's predicate cannot be used: \(problem)")
        }
        for descriptor in query.sortDescriptors {
            if let problem = descriptor.relativeLocation?.problem {
                throw WireError(.invalidArguments, "the location sort on '\(descriptor.field)' measures from a location whose \(problem)")
            }
        }
    }
}
