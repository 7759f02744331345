import Foundation
import StratusWire

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
