extension RandomAccessCollection {
    /// The first index whose element belongs in the second partition, by binary search, or
    /// `endIndex` when none does. The collection must already be partitioned: every element
    /// for which `isInSecondPartition` is false comes before every element for which it is true.
    func partitioningIndex(where isInSecondPartition: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try isInSecondPartition(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
