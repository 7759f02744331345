@_spi(Testing) import Stratus
import Synchronization

/// Scenario 4, paging: every record of a zone read in creation order through query cursors,
/// 100 per page, against one sorted scan of everything (one page as large as the zone); the
/// baselines do the same with keyset pages over their type index.
///
/// Target: all the pages at most 1.5× the one scan.
enum PagingBenchmarks {
    /// Records per page.
    static let pageSize = 100

    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let count = sizes.paging
        let fixture = try await StratusFixture.make()
        try await fixture.load(count)
        let baselines = try DeltaSyncBenchmarks.Baselines(count: count)
        let (sqlite, dictionary) = (baselines.sqlite, baselines.dictionary)
        let database = fixture.database
        let zoneID = fixture.zoneID

        try await fullAPI(database, zoneID, count: count, pageSize: pageSize)   // builds the index
        let sqliteType = SampleRecord.recordType
        let times = try await Measure.fastest(rounds: sizes.shortRepetitions, interleaving: [
            { try await Measure.time { try await fullAPI(database, zoneID, count: count, pageSize: pageSize) } },
            { try await Measure.time { try await fullAPI(database, zoneID, count: count, pageSize: count) } },
            { try await Measure.time { try await serverAlone(fixture, count: count, pageSize: pageSize) } },
            { try await Measure.time { try await serverAlone(fixture, count: count, pageSize: count) } },
            { try Measure.time { try scan(count: count, pageSize: pageSize) { try sqlite.page(ofType: sqliteType, zone: "Photos", after: $0, limit: $1) } } },
            { try Measure.time { try scan(count: count, pageSize: count) { try sqlite.page(ofType: sqliteType, zone: "Photos", after: $0, limit: $1) } } },
            { try Measure.time { try scan(count: count, pageSize: pageSize) { dictionary.page(ofType: sqliteType, after: $0, limit: $1) } } },
            { try Measure.time { try scan(count: count, pageSize: count) { dictionary.page(ofType: sqliteType, after: $0, limit: $1) } } },
        ])
        let (fullAPIPaged, fullAPIScan, serverPaged, serverScan) = (times[0], times[1], times[2], times[3])
        let (sqlitePaged, sqliteScan, dictionaryPaged, dictionaryScan) = (times[4], times[5], times[6], times[7])

        var report = ScenarioReport(
            number: 4, name: "paging",
            title: "all \(Format.count(count)) records in creation order through cursors, \(pageSize) per page, against one sorted scan of everything"
        )
        report.add("stratus_full_api_paged_rps", "Stratus, full API, CKQueryOperation cursors", Measure.rate(count, in: fullAPIPaged), .perSecond)
        report.add("stratus_full_api_scan_rps", "Stratus, full API, one page of everything", Measure.rate(count, in: fullAPIScan), .perSecond)
        report.add("stratus_server_paged_rps", "Stratus, server alone, cursors", Measure.rate(count, in: serverPaged), .perSecond)
        report.add("stratus_server_scan_rps", "Stratus, server alone, one page", Measure.rate(count, in: serverScan), .perSecond)
        report.add("sqlite_paged_rps", "SQLite, keyset pages on (zone, type, created, name)", Measure.rate(count, in: sqlitePaged), .perSecond)
        report.add("sqlite_scan_rps", "SQLite, one sorted scan", Measure.rate(count, in: sqliteScan), .perSecond)
        report.add("dictionary_paged_rps", "Swift dictionary, keyset pages", Measure.rate(count, in: dictionaryPaged), .perSecond)
        report.add("dictionary_scan_rps", "Swift dictionary, one scan", Measure.rate(count, in: dictionaryScan), .perSecond)
        report.ratio("ratio_full_api_paged_vs_scan", "full API: pages' time ÷ one scan's", fullAPIPaged / fullAPIScan, target: .atMost(1.5))
        report.ratio("ratio_server_paged_vs_scan", "server alone: pages' time ÷ one scan's", serverPaged / serverScan)
        report.ratio("ratio_sqlite_paged_vs_scan", "SQLite: pages' time ÷ one scan's", sqlitePaged / sqliteScan)
        report.ratio("ratio_dictionary_paged_vs_scan", "dictionary: pages' time ÷ one scan's", dictionaryPaged / dictionaryScan)
        report.ratio("ratio_full_api_paged_vs_sqlite", "full API pages ÷ SQLite pages (speed)", sqlitePaged / fullAPIPaged)
        return report
    }

    /// The query every page continues: all photos of the zone, oldest first.
    private static func query() -> CKQuery {
        let query = CKQuery(recordType: SampleRecord.recordType, predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: true)]
        return query
    }

    /// Reads every record through `CKQueryOperation`s of `pageSize`, each continuing the last
    /// one's cursor.
    private static func fullAPI(_ database: CKDatabase, _ zoneID: CKRecordZone.ID, count: Int, pageSize: Int) async throws {
        let fetched = Atomic(0)
        var operation = CKQueryOperation(query: query())
        operation.zoneID = zoneID
        while true {
            operation.resultsLimit = pageSize
            operation.recordMatchedBlock = { _, result in
                if case .success = result { fetched.add(1, ordering: .relaxed) }
            }
            guard let cursor = try await database.completing(operation) else { break }
            operation = CKQueryOperation(cursor: cursor)
        }
        let counted = fetched.load(ordering: .relaxed)
        guard counted == count else { throw Miscount(what: "the query's pages", counted: counted, expected: count) }
    }

    /// Reads every record through `CloudServer.queryRecords` pages of `pageSize`.
    private static func serverAlone(_ fixture: StratusFixture, count: Int, pageSize: Int) async throws {
        let context = fixture.database.rawRequestContext()
        let zoneID = StratusFixture.wireZoneID(fixture.zoneID)
        let photos = WireQuery(recordType: SampleRecord.recordType, predicate: .constant(true), sortDescriptors: [WireSortDescriptor(field: .creationDate, ascending: true)])
        var response = try await fixture.server.queryRecords(WireQueryRequest(context: context, query: photos, zoneID: zoneID, resultsLimit: pageSize))
        var fetched = response.records.count
        while let cursor = response.cursor {
            response = try await fixture.server.queryRecords(WireQueryRequest(context: context, query: nil, cursor: cursor, resultsLimit: pageSize))
            fetched += response.records.count
        }
        guard fetched == count else { throw Miscount(what: "the server's pages", counted: fetched, expected: count) }
    }

    /// Reads every record of a baseline through `page` (the last position, the page size),
    /// until a page comes back short.
    private static func scan(count: Int, pageSize: Int, _ page: (BaselinePosition?, Int) throws -> [BaselineRecord]) throws {
        var position: BaselinePosition?
        var fetched = 0
        while true {
            let records = try page(position, pageSize)
            fetched += records.count
            guard records.count == pageSize, let last = records.last else { break }
            position = BaselinePosition(created: last.created, name: last.name)
        }
        guard fetched == count else { throw Miscount(what: "the baseline's pages", counted: fetched, expected: count) }
    }
}
