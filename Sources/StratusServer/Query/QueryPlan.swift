import StratusWire

/// How a query finds its candidates in each zone: which index it reads, and whether the index
/// gives them in the query's order (so a zone's scan stops after a page and one more).
enum QueryPlan {
    /// From a query index, in the query's order: the records whose equality field holds the
    /// value (all records without one), within the sort field's range.
    case ordered(QueryIndexKey, equalTo: WireFieldValue?, range: QueryRange?)
    /// From a spatial index, nearest first, then the records without a location; when the
    /// predicate also asks for a circle around the same point, the search ends at its edge.
    case nearest(LocationIndexKey, center: WireLocation, circle: Circle?)
    /// From a spatial index, the records inside a circle, in no order.
    case inCircle(LocationIndexKey, Circle)
    /// From a query index without order: every record of the type (with the equality's
    /// value), for an order no index gives: a location sort after another key, or a
    /// descending one.
    case unordered(QueryIndexKey, equalTo: WireFieldValue?)

    /// A circle of a `distanceToLocation:fromLocation:` condition.
    struct Circle: Equatable {
        var field: String
        var center: WireLocation
        var kilometres: Double
        var inclusive: Bool
    }

    /// The plan for `query`; `equality` is its indexable equality as the stored records
    /// spell it.
    init(query: WireQuery, equality: (field: WireQueryField, value: WireFieldValue)?, context: WirePredicateContext) {
        let circle = query.predicate.indexableCircle
        if let sort = query.sortDescriptors.first, let center = sort.relativeLocation, case .field(let field) = sort.field,
           query.sortDescriptors.count == 1, sort.ascending,
           circle.map({ $0.field == field && EarthDistance.measuresAlike(from: $0.center, and: center) }) ?? true {
            // Nearest first, ending at the circle's edge when there is one: it is measured
            // from the same point. A circle around another point is read whole instead.
            self = .nearest(LocationIndexKey(recordType: query.recordType, field: field), center: center, circle: circle)
        } else if let circle {
            self = .inCircle(LocationIndexKey(recordType: query.recordType, field: circle.field), circle)
        } else if query.sortDescriptors.contains(where: { $0.relativeLocation != nil }) {
            self = .unordered(QueryIndexKey(recordType: query.recordType, equalityField: equality?.field, sortDescriptors: []), equalTo: equality?.value)
        } else {
            self = .ordered(
                QueryIndexKey(recordType: query.recordType, equalityField: equality?.field, sortDescriptors: query.sortDescriptors),
                equalTo: equality?.value, range: QueryRange(query: query, context: context)
            )
        }
    }

    /// Whether candidates come in the query's order.
    var isOrdered: Bool {
        switch self {
        case .ordered, .nearest: true
        case .inCircle, .unordered: false
        }
    }

    /// Calls `consider` with the candidates of `zone` after `start` (a cursor's position, or
    /// the range's first key), in the query's order when ``isOrdered``, until it returns
    /// false. Counts in `examined` every record read or measured. Call with the zone's lock held.
    func forEachCandidate(
        in zone: ZoneStore, order: QueryOrder, after start: QueryOrder.Key?, examined: inout Int,
        _ consider: (StoredRecord, QueryOrder.Key) -> Bool
    ) {
        func isAfterStart(_ key: QueryOrder.Key) -> Bool {
            start.map { order.precedes($0, key) } ?? true
        }
        switch self {
        case .ordered(let indexKey, let value, let range):
            zone.index(for: indexKey).scan(equalTo: value, from: start ?? range?.start) { key in
                if let range, range.isPast(key) { return false }
                guard let stored = zone.record(named: key.recordID.recordName) else { return true }
                examined += 1
                return consider(stored, key)
            }
        case .nearest(let indexKey, let center, let circle):
            let index = zone.locationIndex(for: indexKey)
            var going = true
            // A cursor already in the records without a location skips every located one.
            if start.map({ $0.values.first ?? nil }) != .some(nil) {
                index.nearest(to: center, examined: &examined) { entry, distance in
                    if let circle, !WirePredicate.isWithin(distance, kilometres: circle.kilometres, inclusive: circle.inclusive) {
                        going = false
                        return false
                    }
                    guard let stored = zone.record(named: entry.name) else { return true }
                    let key = QueryOrder.Key(values: [.double(distance)], recordID: stored.record.recordID)
                    guard isAfterStart(key) else { return true }
                    going = consider(stored, key)
                    return going
                }
            }
            guard going, circle == nil else { return }
            // From the cursor's name on, its own record included: the same name in a later
            // zone comes after it.
            let from = start.flatMap { ($0.values.first ?? nil) == nil ? $0.recordID.recordName : nil }
            index.forEachUnlocated(from: from) { name in
                guard let stored = zone.record(named: name) else { return true }
                let key = QueryOrder.Key(values: [nil], recordID: stored.record.recordID)
                guard isAfterStart(key) else { return true }
                examined += 1
                return consider(stored, key)
            }
        case .inCircle(let indexKey, let circle):
            zone.locationIndex(for: indexKey).within(circle.center, kilometres: circle.kilometres, inclusive: circle.inclusive, examined: &examined) { entry, _ in
                guard let stored = zone.record(named: entry.name) else { return }
                let key = order.key(of: stored.record)
                if isAfterStart(key) { _ = consider(stored, key) }
            }
        case .unordered(let indexKey, let value):
            zone.index(for: indexKey).scan(equalTo: value, from: nil) { key in
                guard let stored = zone.record(named: key.recordID.recordName) else { return true }
                examined += 1
                let key = order.key(of: stored.record)
                if isAfterStart(key) { _ = consider(stored, key) }
                return true
            }
        }
    }
}

extension WirePredicate {
    /// A `distanceToLocation:fromLocation:` circle on a record field that must hold for the
    /// predicate to hold: the predicate itself, or one part of its top-level AND.
    var indexableCircle: QueryPlan.Circle? {
        switch self {
        case .near(.field(let field), let center, let kilometres, let inclusive):
            return QueryPlan.Circle(field: field, center: center, kilometres: kilometres, inclusive: inclusive)
        case .and(let parts):
            return parts.lazy.compactMap(\.indexableCircle).first
        default:
            return nil
        }
    }
}
