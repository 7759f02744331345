/// An ordered collection kept in chunks of at most a few hundred elements: inserting, removing
/// and finding a position cost a binary search and a short array move, so an index of a
/// million records stays cheap to maintain and to seek in.
struct SortedIndex<Element> {
    private var chunks: [[Element]] = []
    private let precedes: (Element, Element) -> Bool
    private static var chunkLimit: Int { 512 }

    init(precedes: @escaping (Element, Element) -> Bool) {
        self.precedes = precedes
    }

    /// The number of elements.
    private(set) var count = 0

    /// The chunk that holds, or would hold, `element`: the first whose last element does not
    /// precede it.
    private func chunkIndex(for element: Element) -> Int {
        let index = chunks.partitioningIndex { chunk in chunk.last.map { !precedes($0, element) } ?? true }
        return min(index, max(0, chunks.count - 1))
    }

    /// The first position in `chunk` whose element does not precede `element`.
    private func position(in chunk: [Element], of element: Element) -> Int {
        chunk.partitioningIndex { !precedes($0, element) }
    }

    mutating func insert(_ element: Element) {
        count += 1
        guard !chunks.isEmpty else {
            chunks = [[element]]
            return
        }
        let index = chunkIndex(for: element)
        let at = position(in: chunks[index], of: element)
        chunks[index].insert(element, at: at)
        if chunks[index].count > Self.chunkLimit {
            let upper = Array(chunks[index][(Self.chunkLimit / 2)...])
            chunks[index].removeSubrange((Self.chunkLimit / 2)...)
            chunks.insert(upper, at: index + 1)
        }
    }

    /// Removes the element equal in order to `element` for which `matches` holds.
    mutating func remove(_ element: Element, where matches: (Element) -> Bool) {
        guard !chunks.isEmpty else { return }
        var chunk = chunkIndex(for: element)
        var at = position(in: chunks[chunk], of: element)
        while chunk < chunks.count {
            while at < chunks[chunk].count {
                let candidate = chunks[chunk][at]
                if matches(candidate) {
                    chunks[chunk].remove(at: at)
                    if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
                    count -= 1
                    return
                }
                if precedes(element, candidate) { return }
                at += 1
            }
            chunk += 1
            at = 0
        }
    }

    /// Calls `body` with the elements from the first that does not precede `start` (or from
    /// the beginning), in order, until `body` returns false.
    func forEach(from start: Element?, _ body: (Element) -> Bool) {
        guard !chunks.isEmpty else { return }
        var chunk = 0
        var at = 0
        if let start {
            chunk = chunkIndex(for: start)
            at = position(in: chunks[chunk], of: start)
        }
        while chunk < chunks.count {
            let elements = chunks[chunk]
            while at < elements.count {
                guard body(elements[at]) else { return }
                at += 1
            }
            chunk += 1
            at = 0
        }
    }
}
