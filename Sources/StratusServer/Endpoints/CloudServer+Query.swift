import Foundation
import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/queryRecords(_:)``
    ///
    /// Results come in the order of the query's sort descriptors, ties broken by record name
    /// and zone. A page holds `resultsLimit` records (``defaultQueryResultsLimit`` for 0) while
    /// more match, and then a cursor: a keyset position after the last record, so a record
    /// that stays put between pages is never returned twice or skipped; a record whose sort
    /// key or membership changes between pages may move.
    public func queryRecords(_ request: WireQueryRequest) async throws(WireError) -> WireQueryResponse {
        let scope = try await begin(request.context, .queryRecords)
        let database = try scope.databaseForReading()
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

        let zones: [ZoneStore]
        var shared: SharedZone?
        if database.scope == .shared {
            // The shared database's records are an owner's: query that owner's zone, as the
            // owner's database names its records, and show only what the caller's shares cover.
            guard let zoneID else { throw WireError(.invalidArguments, "a query in the shared database names the zone to search") }
            if let refusal = scope.refusalInSharedDatabase(of: zoneID) { throw refusal }
            guard let zone = scope.sharedZone(zoneID) else { throw Self.notShared(zoneID) }
            query.predicate = query.predicate.relabelingOwner(zone.ownerUserRecordName, as: WireZoneID.currentUserOwnerName)
            shared = zone
            zones = [zone.store]
        } else if let zoneID {
            guard let zone = database.zone(scope.normalized(zoneID)) else {
                throw database.missingZoneError(scope.normalized(zoneID))
            }
            zones = [zone]
        } else {
            zones = database.allZones
        }

        let context = WirePredicateContext(now: clock.now, currentUserRecordName: scope.userRecordName)
        let order = QueryOrder(descriptors: query.sortDescriptors)
        let limit = request.resultsLimit > 0 ? request.resultsLimit : defaultQueryResultsLimit
        let equality = query.predicate.indexableEquality.map { scope.storedForm(of: $0) }
        let plan = QueryPlan(query: query, equality: equality, context: context)
        var matches: [(key: QueryOrder.Key, record: WireRecord)] = []
        var examined = 0
        for zone in zones {
            // Each zone gives at most one page and one more, in order, when its index gives
            // them in order; every match otherwise.
            var found = 0
            zone.acquire()
            let grants = shared != nil && !zone.isDeleted ? zone.grants(for: scope.userRecordName ?? "") : []
            if shared != nil, grants.isEmpty {
                zone.release()
                throw Self.notShared(zoneID ?? zone.zoneID)
            }
            if !zone.isDeleted {
                plan.forEachCandidate(in: zone, order: order, after: after, examined: &examined) { stored, key in
                    let readable = shared == nil ? canRead(stored, scope: scope) : zone.permission(on: WireName(key.recordID.recordName), grants: grants) != nil
                    if readable, query.predicate.evaluate(stored.record, in: context) {
                        matches.append((key, stored.record))
                        found += 1
                    }
                    return !plan.isOrdered || found <= limit
                }
            }
            zone.release()
        }
        matches.sort { order.precedes($0.key, $1.key) }
        registry.withLock { $0.lastQueryExaminedCount = examined }

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
            shared.map { presentShared(match.record, of: $0, to: scope, desiredKeys: request.desiredKeys) } ?? present(match.record, to: scope, desiredKeys: request.desiredKeys)
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

    private func canRead(_ stored: StoredRecord, scope: RequestScope) -> Bool {
        guard scope.databaseScope == .public else { return true }
        return scope.container.permissions(for: stored.record.recordType)
            .grants(signedIn: scope.account != nil, isCreator: isCreator(stored, scope))
            .contains(.read)
    }
}

extension WirePredicate {
    /// An equality of a field with a value that must hold for the predicate to hold: the
    /// predicate itself, or one part of its top-level AND. An index on that field narrows the
    /// query to the records with that value.
    var indexableEquality: (field: WireQueryField, value: WireFieldValue)? {
        switch self {
        case .compare(let field, .equal, .value(let value)):
            return (field, value)
        case .and(let parts):
            for part in parts {
                if let equality = part.indexableEquality { return equality }
            }
            return nil
        default:
            return nil
        }
    }
}

extension RequestScope {
    /// An equality as the stored records spell it: `__defaultOwner__` in a user field stands
    /// for the reader's own user record name, which is what the records hold.
    func storedForm(of equality: (field: WireQueryField, value: WireFieldValue)) -> (field: WireQueryField, value: WireFieldValue) {
        guard equality.field == .creatorUserRecordID || equality.field == .lastModifiedUserRecordID,
              case .reference(let reference) = equality.value,
              reference.recordID.recordName.hasSameUTF8Bytes(as: WireZoneID.currentUserOwnerName),
              let user = userRecordName
        else { return equality }
        return (equality.field, .reference(WireReference(recordID: WireRecordID(recordName: user), action: .none)))
    }
}

/// The bounds a query puts on its only sort field, which let its index scan start at the
/// first record in range and stop after the last, instead of reading the records outside it.
struct QueryRange {
    private let ascending: Bool
    private var low: WireFieldValue?
    private var high: WireFieldValue?
    private var prefix: String?

    init?(query: WireQuery, context: WirePredicateContext) {
        guard query.sortDescriptors.count == 1, let sort = query.sortDescriptors.first, sort.relativeLocation == nil else { return nil }
        ascending = sort.ascending
        let conditions: [WirePredicate] = if case .and(let parts) = query.predicate { parts } else { [query.predicate] }
        for condition in conditions {
            switch condition {
            case .compare(sort.field, .greater, let operand), .compare(sort.field, .greaterOrEqual, let operand):
                low = Self.tighter(low, operand.resolved(in: context), keepLarger: true)
            case .compare(sort.field, .less, let operand), .compare(sort.field, .lessOrEqual, let operand):
                high = Self.tighter(high, operand.resolved(in: context), keepLarger: false)
            case .between(sort.field, let lower, let upper):
                low = Self.tighter(low, lower.resolved(in: context), keepLarger: true)
                high = Self.tighter(high, upper.resolved(in: context), keepLarger: false)
            case .beginsWith(sort.field, let text):
                prefix = text
                low = Self.tighter(low, .string(text), keepLarger: true)
            default:
                break
            }
        }
        guard low != nil || high != nil else { return nil }
    }

    private static func tighter(_ current: WireFieldValue?, _ candidate: WireFieldValue, keepLarger: Bool) -> WireFieldValue {
        guard let current, let order = WireFieldValue.order(candidate, current) else { return candidate }
        return (order == .orderedDescending) == keepLarger ? candidate : current
    }

    /// The first key of the range in the index's order: before every record whose sort value
    /// is the bound.
    var start: QueryOrder.Key? {
        guard let bound = ascending ? low : high else { return nil }
        return QueryOrder.Key(values: [bound], recordID: WireRecordID(recordName: "", zoneID: WireZoneID(zoneName: "", ownerName: "")))
    }

    /// Whether `key` and every key after it in the index's order lie beyond the range.
    func isPast(_ key: QueryOrder.Key) -> Bool {
        guard let value = key.values.first ?? nil else { return !ascending }
        if ascending {
            if let prefix, case .string(let text) = value, !text.unicodeScalars.starts(with: prefix.unicodeScalars),
               TextSearch.scalarOrder(prefix, text) {
                return true
            }
            if let high, WireFieldValue.order(value, high) == .orderedDescending { return true }
        } else if let low, WireFieldValue.order(value, low) == .orderedAscending {
            return true
        }
        return false
    }
}
