/// A first-in, first-out queue of values that repeat, kept as runs: queuing a value
/// `Int.max` times takes one entry, not `Int.max`.
struct CountedQueue<Element: Sendable>: Sendable {
    private var runs: [(element: Element, count: Int)] = []
    private var head = 0

    /// Whether nothing is queued.
    var isEmpty: Bool { head == runs.count }

    /// Queues `element` `count` times; a count of zero or less queues nothing.
    mutating func append(_ element: Element, count: Int) {
        guard count > 0 else { return }
        runs.append((element, count))
    }

    /// Takes the first queued value.
    mutating func popFirst() -> Element? {
        guard head < runs.count else { return nil }
        let element = runs[head].element
        runs[head].count -= 1
        if runs[head].count == 0 {
            head += 1
            if head == runs.count {
                runs.removeAll(keepingCapacity: false)
                head = 0
            }
        }
        return element
    }
}
