@testable import StratusServer
import StratusWire
import XCTest
import _StratusTestSupport

/// The spatial index alone, under seeded churn: whatever was inserted, moved and removed, and
/// however its leaves split and merged, its searches answer as measuring every record does.
final class LocationIndexTests: XCTestCase {
    private func record(_ name: String, _ location: WireLocation?) -> WireRecord {
        WireRecord(recordID: WireRecordID(recordName: name), recordType: "Place", fields: location.map { ["at": .location($0)] } ?? [:])
    }

    private func randomLocation(_ generator: inout SeededGenerator, clusteredNear point: WireLocation? = nil) -> WireLocation {
        if let point, Bool.random(using: &generator) {
            // Dense clusters make leaves split deep and merge back.
            return WireLocation(
                latitude: min(90, max(-90, point.latitude + Double.random(in: -0.01...0.01, using: &generator))),
                longitude: min(180, max(-180, point.longitude + Double.random(in: -0.01...0.01, using: &generator)))
            )
        }
        // One in eight on the antimeridian, under either of its names.
        let onTheLine = Int.random(in: 0..<8, using: &generator) == 0
        return WireLocation(
            latitude: asin(Double.random(in: -1...1, using: &generator)) * 180 / .pi,
            longitude: onTheLine ? (Bool.random(using: &generator) ? 180 : -180) : Double.random(in: -180...180, using: &generator)
        )
    }

    func testSearchesAgreeWithMeasuringEveryRecordThroughInsertsMovesAndRemovals() {
        let rounds = 4 * stressScale
        for seed in 0..<UInt64(rounds) {
            var generator = SeededGenerator(seed: 900 + seed)
            let index = LocationIndex(key: LocationIndexKey(recordType: "Place", field: "at"), records: [StoredRecord]())
            var current: [String: WireLocation?] = [:]
            let cluster = WireLocation(latitude: Double.random(in: -89...89, using: &generator), longitude: Double.random(in: -179...179, using: &generator))
            for step in 0..<3_000 {
                let name = "r\(Int.random(in: 0..<800, using: &generator))"
                if let old = current[name] {
                    index.remove(record(name, old))
                    current[name] = nil
                }
                if step % 5 != 0 {
                    let location: WireLocation? = Int.random(in: 0..<10, using: &generator) == 0 ? nil : randomLocation(&generator, clusteredNear: cluster)
                    index.insert(record(name, location))
                    current[name] = .some(location)
                }
            }
            let located = current.compactMap { name, location in location.map { (name, $0) } }
            XCTAssertEqual(index.count, located.count, "seed \(seed)")
            // The same records loaded at once, as a zone's first location query builds its index.
            let built = LocationIndex(
                key: LocationIndexKey(recordType: "Place", field: "at"),
                records: current.map { StoredRecord(record: record($0.key, $0.value), assetBytes: 0) }
            )

            for center in [cluster, WireLocation(latitude: 90, longitude: 0), WireLocation(latitude: 0, longitude: -180), randomLocation(&generator)] {
                let expected = located.map { ($0.0, EarthDistance.geodesic($0.1, center)) }
                    .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : TextSearch.scalarOrder($0.0, $1.0) }
                var examined = 0
                var nearest: [String] = []
                index.nearest(to: center, examined: &examined) { entry, _ in
                    nearest.append(entry.name)
                    return true
                }
                XCTAssertEqual(nearest, expected.map(\.0), "seed \(seed), nearest to \(center)")
                var nearestBuilt: [String] = []
                built.nearest(to: center, examined: &examined) { entry, _ in
                    nearestBuilt.append(entry.name)
                    return true
                }
                XCTAssertEqual(nearestBuilt, nearest, "seed \(seed), built at once")

                let kilometres = (expected.dropFirst(expected.count / 3).first?.1 ?? 1000) / 1000
                var inside: [String] = []
                index.within(center, kilometres: kilometres, inclusive: true, examined: &examined) { entry, _ in inside.append(entry.name) }
                XCTAssertEqual(Set(inside), Set(expected.filter { $0.1 / 1000 <= kilometres }.map(\.0)), "seed \(seed), within \(kilometres) km of \(center)")
            }
            var unlocated: [String] = []
            index.forEachUnlocated(from: nil) { unlocated.append($0); return true }
            XCTAssertEqual(unlocated, current.filter { $0.value == nil }.keys.sorted { TextSearch.scalarOrder($0, $1) }, "seed \(seed)")
            var unlocatedBuilt: [String] = []
            built.forEachUnlocated(from: nil) { unlocatedBuilt.append($0); return true }
            XCTAssertEqual(unlocatedBuilt, unlocated, "seed \(seed), built at once")
        }
    }

    func testTheBoxBoundNeverExceedsTheDistanceOfAPointInside() {
        var generator = SeededGenerator(seed: 77)
        var boxes = [LocationBox.world]
        for _ in 0..<6 { boxes = boxes.flatMap(\.quarters) }
        for _ in 0..<20_000 {
            let box = boxes[Int.random(in: 0..<boxes.count, using: &generator)]
            let inside = WireLocation(latitude: Double.random(in: box.south...box.north, using: &generator), longitude: Double.random(in: box.west...box.east, using: &generator))
            let point = randomLocation(&generator)
            XCTAssertLessThanOrEqual(box.lowerBound(from: point), EarthDistance.geodesic(point, inside), "\(box) from \(point)")
        }
    }
}
