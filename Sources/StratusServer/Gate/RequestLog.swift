/// The newest requests a server received, at most ``limit`` of them, oldest first.
struct RequestLog: Sendable {
    /// How many requests the log keeps unless set: 10,000.
    static let defaultLimit = 10_000

    /// How many requests the log keeps; older ones are dropped.
    var limit: Int {
        didSet { trim(to: limit) }
    }
    private var entries: [RecordedRequest] = []

    init(limit: Int) {
        self.limit = limit
    }

    /// The kept requests, oldest first.
    var requests: [RecordedRequest] { Array(entries.suffix(limit)) }

    /// Whether no request is kept.
    var isEmpty: Bool { entries.isEmpty || limit == 0 }

    /// Keeps `request`, dropping the oldest once more than ``limit`` are kept. Dropping
    /// happens in batches, so appending costs O(1) amortised.
    mutating func append(_ request: RecordedRequest) {
        guard limit > 0 else { return }
        entries.append(request)
        if entries.count >= 2 * limit { trim(to: limit) }
    }

    private mutating func trim(to count: Int) {
        if entries.count > count { entries.removeFirst(entries.count - count) }
    }
}
