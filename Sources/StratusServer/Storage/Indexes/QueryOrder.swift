import Foundation
import StratusWire

/// The total order of query results: the sort descriptors in turn (a missing value first,
/// except that a record without a location comes after every record with one in a location
/// sort), then record name, zone name and owner, so every query returns records in one
/// repeatable order and a cursor can say exactly where it stopped.
struct QueryOrder {
    let descriptors: [WireSortDescriptor]

    /// The sort key of `record`: for a location sort, the distance in metres (nil without a
    /// location).
    func key(of record: WireRecord) -> Key {
        Key(values: descriptors.map { descriptor in
            let value = record.value(for: descriptor.field)
            guard let center = descriptor.relativeLocation else { return value }
            guard case .location(let location)? = value else { return nil }
            return .double(EarthDistance.geodesic(location, center))
        }, recordID: record.recordID)
    }

    struct Key {
        var values: [WireFieldValue?]
        var recordID: WireRecordID
    }

    /// Whether `lhs` comes before `rhs`. Names compare by Unicode scalars, as strings sort.
    func precedes(_ lhs: Key, _ rhs: Key) -> Bool {
        for (index, descriptor) in descriptors.enumerated() {
            var order = Self.order(lhs.values[index], rhs.values[index])
            if descriptor.relativeLocation != nil, (lhs.values[index] == nil) != (rhs.values[index] == nil) {
                order = order.reversed
            }
            if order != .orderedSame {
                return descriptor.ascending ? order == .orderedAscending : order == .orderedDescending
            }
        }
        for (left, right) in [
            (lhs.recordID.recordName, rhs.recordID.recordName),
            (lhs.recordID.zoneID.zoneName, rhs.recordID.zoneID.zoneName),
            (lhs.recordID.zoneID.ownerName, rhs.recordID.zoneID.ownerName),
        ] where !left.unicodeScalars.elementsEqual(right.unicodeScalars) {
            return TextSearch.scalarOrder(left, right)
        }
        return false
    }

    /// A total order of optional values: missing first, then by value, and values of kinds
    /// that cannot be compared by kind.
    static func order(_ lhs: WireFieldValue?, _ rhs: WireFieldValue?) -> ComparisonResult {
        switch (lhs, rhs) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case (let left?, let right?):
            if let order = WireFieldValue.order(left, right) { return order }
            let (a, b) = (rank(left), rank(right))
            return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        }
    }

    private static func rank(_ value: WireFieldValue) -> Int {
        switch value {
        case .int64, .double: 0
        case .string: 1
        case .date: 2
        case .bytes: 3
        case .reference: 4
        case .asset: 5
        case .location: 6
        case .list: 7
        }
    }
}
