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
        let (query, zoneID, after) = try resolve(request, scope: scope)
        let schema = scope.container.schema.withLock { $0 }
        guard schema.hasRecordType(query.recordType) || query.recordType == "Users" else {
            throw WireError(.unknownItem, "record type '\(query.recordType)' does not exist")
        }
        if let error = schema.checkIndexes(for: query) { throw error }
        if database.scope == .public {
            let permissions = scope.container.permissions(for: query.recordType)
            guard !(permissions.world.union(permissions.authenticated).union(permissions.creator)).intersection(.read).isEmpty else {
                throw WireError(.permissionFailure, "reading records of type '\(query.recordType)' is not allowed")
            }
        }

        let zones: [ZoneStore]
        if let zoneID {
            guard let zone = database.zone(scope.normalized(zoneID)) else {
                throw WireError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist")
            }
            zones = [zone]
        } else {
            zones = database.allZones
        }

        let context = WirePredicateContext(now: clock.now, currentUserRecordName: scope.userRecordName)
        let order = QueryOrder(descriptors: query.sortDescriptors)
        let limit = request.resultsLimit > 0 ? request.resultsLimit : defaultQueryResultsLimit
        let equality = query.predicate.indexableEquality.map { scope.storedForm(of: $0) }
        let indexKey = QueryIndexKey(recordType: query.recordType, equalityField: equality?.field, sortDescriptors: query.sortDescriptors)
        var matches: [(key: QueryOrder.Key, record: WireRecord)] = []
        var examined = 0
        for zone in zones {
            // Each zone gives at most one page and one more, in order, from its index.
            var found = 0
            zone.acquire()
            if !zone.isDeleted {
                zone.index(for: indexKey).scan(equalTo: equality?.value, after: after) { key in
                    guard let stored = zone.records[key.recordID.recordName] else { return true }
                    examined += 1
                    if query.predicate.evaluate(stored.record, in: context), canRead(stored, scope: scope) {
                        matches.append((key, stored.record))
                        found += 1
                    }
                    return found <= limit
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
        return WireQueryResponse(records: page.map { present($0.record, to: scope, desiredKeys: request.desiredKeys) }, cursor: cursor)
    }

    /// The query, zone and starting point of a request: its own, or its cursor's, checked to
    /// belong to this server, database and user.
    private func resolve(_ request: WireQueryRequest, scope: RequestScope) throws(WireError) -> (WireQuery, WireZoneID?, QueryOrder.Key?) {
        guard let bytes = request.cursor else {
            guard let query = request.query else { throw WireError(.invalidArguments, "a query request needs a query or a cursor") }
            return (query, request.zoneID, nil)
        }
        let cursor = try QueryCursor.open(bytes, key: sealingKey)
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
              reference.recordID.recordName == WireZoneID.currentUserOwnerName,
              let user = userRecordName
        else { return equality }
        return (equality.field, .reference(WireReference(recordID: WireRecordID(recordName: user), action: .none)))
    }
}
