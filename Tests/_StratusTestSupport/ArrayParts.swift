extension Array {
    /// The array cut, in order, into consecutive parts of at most `size` elements (at least
    /// one each): for requests under a per-request item limit, such as CloudKit's 400 record
    /// IDs per fetch.
    public func parts(ofAtMost size: Int) -> [ArraySlice<Element>] {
        let step = Swift.max(1, size)
        return stride(from: 0, to: count, by: step).map { self[$0..<Swift.min($0 + step, count)] }
    }
}
