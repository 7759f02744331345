/// How big each scenario runs: the sizes, or the small ones of `--quick`.
struct Sizes: Sendable {
    /// Fastest of how many runs, for the scenarios that repeat.
    var repetitions: Int
    /// Fastest of how many runs for the runs that take under a second or so, which the
    /// machine's other work disturbs most.
    var shortRepetitions: Int
    /// Fastest of how many runs for a run that takes tens of seconds at the size:
    /// scenario 9's saves with subscriptions.
    var longRepetitions: Int
    /// Records saved in scenario 1 (and in the controls of 2 and 9).
    var batchedSaves: Int
    /// Records saved one by one in scenario 2.
    var oneByOneSaves: Int
    /// The zone sizes of scenario 3, smallest first; each runs in its own process.
    var querySizes: [Int]
    /// Queries per timed round at each size of scenario 3; the cost is the fastest round's.
    var queries: Int
    /// Records paged through in scenario 4.
    var paging: Int
    /// Changes fetched in scenario 5.
    var deltaSync: Int
    /// Operations of each kind in scenario 6.
    var operations: Int
    /// Records each thread writes in scenario 7.
    var scalingPerThread: Int
    /// Records held in scenario 8.
    var memoryRecords: Int
    /// Records saved in scenario 9.
    var subscribedSaves: Int
    /// Query subscriptions in scenario 9.
    var subscriptions: Int
    /// Records fetched by the second device's engine in scenario 10.
    var syncEngine: Int

    /// The sizes.
    static let full = Sizes(
        repetitions: 3,
        shortRepetitions: 5,
        longRepetitions: 1,
        batchedSaves: 100_000,
        oneByOneSaves: 100_000,
        querySizes: [10_000, 100_000, 1_000_000],
        queries: 200,
        paging: 100_000,
        deltaSync: 100_000,
        operations: 10_000,
        scalingPerThread: 50_000,
        memoryRecords: 1_000_000,
        subscribedSaves: 100_000,
        subscriptions: 1_000,
        syncEngine: 100_000
    )

    /// The sizes of `--quick`: the same scenarios in under a minute.
    static let quick = Sizes(
        repetitions: 3,
        shortRepetitions: 5,
        longRepetitions: 2,
        batchedSaves: 10_000,
        oneByOneSaves: 2_000,
        querySizes: [1_000, 10_000, 100_000],
        queries: 100,
        paging: 10_000,
        deltaSync: 10_000,
        operations: 1_000,
        scalingPerThread: 5_000,
        memoryRecords: 50_000,
        subscribedSaves: 10_000,
        subscriptions: 1_000,
        syncEngine: 10_000
    )
}
