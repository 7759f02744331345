import StratusWire

/// Which spatial index: one location field of one record type.
struct LocationIndexKey: Hashable {
    var recordType: String
    var field: String
}

/// A spatial index of one zone's records of one type by the location in one field: a
/// quadtree over latitude and longitude whose leaves hold up to ``leafCapacity`` records, so
/// a location query reads the records near its point or inside its circle, not the zone.
///
/// Searches go down the tree nearest box first, bounding each box's distance from below
/// (``LocationBox/lowerBound(from:)``) and measuring each record read exactly with
/// ``EarthDistance/geodesic(_:_:)``; the records whose exact distance was measured are the query's examined
/// count. Records of the type without a location in the field are kept by name, for the tail
/// of a location sort. Made the first time a query needs it and kept up to date on every
/// write after that, under the zone's lock.
final class LocationIndex {
    let key: LocationIndexKey

    /// A record in the index: its name and coordinate, all a query's distance depends on
    /// (``EarthDistance/geodesic(_:_:)`` ignores altitude).
    struct Entry {
        var name: String
        var latitude: Double
        var longitude: Double

        init(name: String, location: WireLocation) {
            self.name = name
            latitude = location.latitude
            longitude = location.longitude
        }

        var location: WireLocation { WireLocation(latitude: latitude, longitude: longitude) }
    }

    private final class Node {
        let box: LocationBox
        let depth: Int
        var entries: [Entry] = []
        var children: [Node]?
        var count = 0

        init(box: LocationBox, depth: Int) {
            self.box = box
            self.depth = depth
        }

        /// Every record of the subtree.
        func collectEntries() -> [Entry] {
            var collected: [Entry] = []
            var pending = [self]
            while let node = pending.popLast() {
                collected.append(contentsOf: node.entries)
                pending.append(contentsOf: node.children ?? [])
            }
            return collected
        }
    }

    /// Records a leaf holds before it splits in four.
    static let leafCapacity = 32
    /// How deep the tree goes (boxes of about 60 cm): many records at one point stay in one leaf.
    static let maximumDepth = 25

    private let root = Node(box: .world, depth: 0)
    private var unlocated = SortedIndex<String>(precedes: TextSearch.scalarOrder)

    /// An index of `records`, built in one pass: the located records are split among the
    /// quarters of the tree level by level, instead of being inserted one by one.
    init(key: LocationIndexKey, records: some Sequence<StoredRecord>) {
        self.key = key
        var located: [Entry] = []
        var unlocatedNames: [String] = []
        for stored in records where stored.record.recordType == key.recordType {
            if case .location(let location)? = stored.record.fields[key.field] {
                located.append(Entry(name: stored.record.recordID.recordName, location: location))
            } else {
                unlocatedNames.append(stored.record.recordID.recordName)
            }
        }
        for name in unlocatedNames.sorted(by: TextSearch.scalarOrder) { unlocated.insert(name) }
        root.entries = located
        root.count = located.count
        if located.count > Self.leafCapacity { split(root) }
    }

    /// The number of records with a location in the field.
    var count: Int { root.count }

    func insert(_ record: WireRecord) {
        let name = record.recordID.recordName
        guard case .location(let location)? = record.fields[key.field] else {
            unlocated.insert(name)
            return
        }
        var node = root
        while true {
            node.count += 1
            guard let children = node.children else { break }
            node = children[node.box.quarter(of: location)]
        }
        node.entries.append(Entry(name: name, location: location))
        if node.entries.count > Self.leafCapacity, node.depth < Self.maximumDepth { split(node) }
    }

    private func split(_ node: Node) {
        let children = node.box.quarters.map { Node(box: $0, depth: node.depth + 1) }
        for entry in node.entries {
            let child = children[node.box.quarter(of: entry.location)]
            child.entries.append(entry)
            child.count += 1
        }
        node.entries = []
        node.children = children
        for child in children where child.entries.count > Self.leafCapacity && child.depth < Self.maximumDepth { split(child) }
    }

    func remove(_ record: WireRecord) {
        let name = record.recordID.recordName
        guard case .location(let location)? = record.fields[key.field] else {
            unlocated.remove(name) { $0.hasSameUTF8Bytes(as: name) }
            return
        }
        var path: [Node] = [root]
        while let children = path[path.count - 1].children {
            path.append(children[path[path.count - 1].box.quarter(of: location)])
        }
        let leaf = path[path.count - 1]
        guard let position = leaf.entries.firstIndex(where: { $0.name.hasSameUTF8Bytes(as: name) }) else { return }
        leaf.entries.remove(at: position)
        for node in path {
            node.count -= 1
            // A subtree small enough for one leaf becomes one again.
            if node.children != nil, node.count <= Self.leafCapacity / 2 {
                node.entries = node.collectEntries()
                node.children = nil
            }
        }
    }

    /// Calls `body` with every record whose location lies within `kilometres` of `center`
    /// (on the circle too when `inclusive`), with its distance in metres, in no particular order.
    func within(_ center: WireLocation, kilometres: Double, inclusive: Bool, examined: inout Int, _ body: (Entry, Double) -> Void) {
        var pending = [root]
        while let node = pending.popLast() {
            guard node.count > 0, WirePredicate.isWithin(node.box.lowerBound(from: center), kilometres: kilometres, inclusive: true) else { continue }
            if let children = node.children {
                pending.append(contentsOf: children)
                continue
            }
            for entry in node.entries where WirePredicate.isWithin(Self.lowerBound(entry.location, center), kilometres: kilometres, inclusive: true) {
                examined += 1
                let distance = EarthDistance.geodesic(entry.location, center)
                if WirePredicate.isWithin(distance, kilometres: kilometres, inclusive: inclusive) { body(entry, distance) }
            }
        }
    }

    /// Calls `body` with the records nearest `center` first, with their distance in metres;
    /// records at the same distance in record-name order (as ``QueryOrder`` breaks ties);
    /// until `body` returns false.
    ///
    /// A best-first search: boxes, records known by a lower bound of their distance, and
    /// records measured exactly wait in one queue ordered by distance (at the same distance in
    /// that order, records by name), so a measured record leaves the queue only when nothing
    /// still waiting can be nearer; a record is measured exactly (the costly part) only when
    /// its bound comes up.
    func nearest(to center: WireLocation, examined: inout Int, _ body: (Entry, Double) -> Bool) {
        // The tree does not change during the search (the zone's lock is held), so the queue
        // refers to boxes without retaining them.
        var queue = Heap<Candidate>()
        queue.insert(Candidate(distance: root.box.lowerBound(from: center), kind: .box, node: Unmanaged.passUnretained(root), slot: 0))
        while let candidate = queue.popFirst() {
            let node = candidate.node.takeUnretainedValue()
            switch candidate.kind {
            case .measured:
                guard body(node.entries[candidate.slot], candidate.distance) else { return }
            case .bounded:
                examined += 1
                let distance = EarthDistance.geodesic(node.entries[candidate.slot].location, center)
                queue.insert(Candidate(distance: distance, kind: .measured, node: candidate.node, slot: candidate.slot))
            case .box:
                if let children = node.children {
                    for child in children where child.count > 0 {
                        queue.insert(Candidate(distance: child.box.lowerBound(from: center), kind: .box, node: Unmanaged.passUnretained(child), slot: 0))
                    }
                } else {
                    for (slot, entry) in node.entries.enumerated() {
                        queue.insert(Candidate(distance: Self.lowerBound(entry.location, center), kind: .bounded, node: candidate.node, slot: slot))
                    }
                }
            }
        }
    }

    /// A distance in metres that `location` is no nearer to `center` than, as a box's
    /// (``LocationBox/lowerBound(from:)``): a haversine on a smaller sphere, several times
    /// cheaper than the distance itself.
    private static func lowerBound(_ location: WireLocation, _ center: WireLocation) -> Double {
        let angle = EarthDistance.centralAngle(latitude: center.latitude, longitude: center.longitude, latitude: location.latitude, longitude: location.longitude)
        return LocationBox.lowerBound(ofAngle: angle)
    }

    /// Calls `body` with the names of the records without a location in the field, in
    /// record-name order, from `name` itself (from the first when nil), until `body` returns
    /// false.
    func forEachUnlocated(from name: String?, _ body: (String) -> Bool) {
        unlocated.forEach(from: name, body)
    }

    /// A box, or a record of a leaf (by its slot) known by a bound or measured; at the same
    /// distance in that order, and measured records by name.
    private struct Candidate: Comparable {
        var distance: Double
        var kind: Kind
        var node: Unmanaged<Node>
        var slot: Int

        enum Kind: UInt8 {
            case box, bounded, measured
        }

        static func < (lhs: Candidate, rhs: Candidate) -> Bool {
            if lhs.distance != rhs.distance { return lhs.distance < rhs.distance }
            if lhs.kind != rhs.kind { return lhs.kind.rawValue < rhs.kind.rawValue }
            guard lhs.kind == .measured else { return false }
            return TextSearch.scalarOrder(lhs.name, rhs.name)
        }

        static func == (lhs: Candidate, rhs: Candidate) -> Bool {
            !(lhs < rhs) && !(rhs < lhs)
        }

        private var name: String {
            node.takeUnretainedValue().entries[slot].name
        }
    }
}
