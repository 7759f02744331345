/// A binary min-heap: the smallest element comes out first.
struct Heap<Element: Comparable> {
    private var elements: [Element] = []

    var isEmpty: Bool { elements.isEmpty }

    mutating func insert(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the smallest element; nil when empty.
    mutating func popFirst() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let first = elements.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < elements.count, elements[left] < elements[smallest] { smallest = left }
            if right < elements.count, elements[right] < elements[smallest] { smallest = right }
            guard smallest != parent else { return first }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
