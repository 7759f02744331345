import _StratusTestSupport
import Stratus
import XCTest

/// The server bounds how deeply a query's predicate nests, whatever the client parsed: a raw
/// request too deep is answered with `invalidArguments`, never a crash, and a predicate
/// exactly at the limit runs and pages with a cursor.
final class QueryDepthTests: ServerTestCase {
    private let limit = WirePredicate.maximumDepth
    private var john: CKContainer!
    private var guest: CKContainer!

    override func setUp() {
        super.setUp()
        john = device("john")
        guest = device(nil)
    }

    override func tearDown() {
        john = nil
        guest = nil
        super.tearDown()
    }

    /// Raw requests read the public database from a device without an account, which needs
    /// no session: anyone may send such a request, whatever its predicate.
    private var context: WireRequestContext {
        WireRequestContext(containerIdentifier: identifier, database: .public, deviceID: guest.deviceID)
    }

    /// Saves clowns c0… in the public database, with `a == 1` and `b` cycling through 1, 2, 3.
    private func saveClowns(_ count: Int) async throws {
        let clowns = (0..<count).map { index -> CKRecord in
            let clown = CKRecord(recordType: "Clown", recordID: CKRecord.ID(recordName: "c\(index)"))
            clown["a"] = 1
            clown["b"] = index % 3 + 1
            return clown
        }
        _ = try await john.publicCloudDatabase.modifyRecords(saving: clowns, deleting: [])
    }

    private func query(_ predicate: WirePredicate, cursor: [UInt8]? = nil, limit: Int = 0) async throws(WireError) -> WireQueryResponse {
        try await server.queryRecords(WireQueryRequest(
            context: context,
            query: cursor == nil ? WireQuery(recordType: "Clown", predicate: predicate) : nil,
            cursor: cursor,
            resultsLimit: limit
        ))
    }

    private func assertRefused(_ predicate: WirePredicate, _ label: String, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            _ = try await query(predicate)
            XCTFail("\(label): accepted", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .invalidArguments, "\(label): \(error.message)", file: file, line: line)
            XCTAssertTrue(error.message.contains("\(limit)"), "\(label): \(error.message)", file: file, line: line)
        }
    }

    private let leaf = WirePredicate.compare(.field("a"), .equal, .value(.int64(1)))

    private func nots(_ count: Int, _ leaf: WirePredicate? = nil) -> WirePredicate {
        var predicate = leaf ?? self.leaf
        for _ in 0..<count { predicate = .not(predicate) }
        return predicate
    }

    private func ands(_ count: Int) -> WirePredicate {
        var predicate = leaf
        for _ in 0..<count { predicate = .and([predicate]) }
        return predicate
    }

    // MARK: - A raw request thousands of levels deep

    func testRawQueryWithThousandsOfNestedNOTsIsRefusedNotACrash() async throws {
        try await saveClowns(3)
        await assertRefused(nots(4_000), "4,000 NOTs")
    }

    func testRawQueryWithThousandsOfNestedANDsIsRefusedNotACrash() async throws {
        try await saveClowns(3)
        await assertRefused(ands(4_000), "4,000 ANDs")
        var wide = leaf
        for _ in 0..<4_000 { wide = .and([leaf, wide, leaf]) }
        await assertRefused(wide, "4,000 three-way ANDs")
    }

    func testRawQueryWithListsNestedThousandsDeepIsRefusedNotACrash() async throws {
        try await saveClowns(3)
        var list = WireFieldValue.int64(1)
        for _ in 0..<4_000 { list = .list([list]) }
        await assertRefused(.isIn(.field("b"), [list]), "IN a nested list")
        await assertRefused(.compare(.field("b"), .equal, .value(list)), "== a nested list")
        await assertRefused(.listContains(.field("b"), list), "CONTAINS a nested list")
        await assertRefused(.between(.field("b"), .value(list), .value(.int64(2))), "BETWEEN a nested list")
    }

    func testDeepRawQueryIsRefusedInTheProductionEnvironmentToo() async throws {
        try await saveClowns(3)
        server.markIndexes([.queryable], field: "a", recordType: "Clown", containerIdentifier: identifier)
        server.deployDevelopmentSchema(containerIdentifier: identifier)
        server.setEnvironment(.production, containerIdentifier: identifier)
        let indexed = try await query(leaf)
        XCTAssertEqual(indexed.records.count, 3, "the index check lets a shallow query through")
        await assertRefused(nots(4_000), "4,000 NOTs in production")
    }

    // MARK: - One limit, the same for the request and its cursor

    /// Queries page by page with `pageSize` records a page; the names of every page.
    private func pages(_ predicate: WirePredicate, pageSize: Int) async throws(WireError) -> [[String]] {
        var response = try await query(predicate, limit: pageSize)
        var pages = [response.records.map(\.recordID.recordName)]
        while let cursor = response.cursor {
            response = try await query(predicate, cursor: cursor, limit: pageSize)
            pages.append(response.records.map(\.recordID.recordName))
        }
        return pages
    }

    func testRawQueryExactlyAtTheLimitPagesWithACursor() async throws {
        try await saveClowns(5)
        let notPages = try await pages(nots(limit), pageSize: 2)
        XCTAssertEqual(notPages, [["c0", "c1"], ["c2", "c3"], ["c4"]])
        // AND, NOT and the IN list each count one level.
        let mixed = WirePredicate.and([leaf, nots(limit - 2, .isIn(.field("b"), [.int64(1), .int64(2)]))])
        let mixedPages = try await pages(mixed, pageSize: 1)
        XCTAssertEqual(mixedPages, [["c0"], ["c1"], ["c3"], ["c4"]])
        await assertRefused(nots(limit + 1), "one NOT too many")
        await assertRefused(.and([leaf, nots(limit - 1, .isIn(.field("b"), [.int64(1)]))]), "one level too many")
        await assertRefused(nots(limit, .between(.field("b"), .value(.int64(1)), .value(.int64(2)))), "BETWEEN one level too deep")
    }

    func testParsedQueryExactlyAtTheLimitPagesWithACursor() async throws {
        try await saveClowns(5)
        let database = john.publicCloudDatabase
        let format = "a == 1 AND " + String(repeating: "NOT ", count: limit - 2) + "b IN {1, 2}"
        var page = try await database.records(matching: CKQuery(recordType: "Clown", predicate: NSPredicate(format: format)), resultsLimit: 1)
        var names = page.matchResults.map(\.0.recordName)
        while let cursor = page.queryCursor {
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 1)
            names += page.matchResults.map(\.0.recordName)
        }
        XCTAssertEqual(names, ["c0", "c1", "c3", "c4"])

        let tooDeep = "a == 1 AND " + String(repeating: "NOT ", count: limit - 1) + "b IN {1, 2}"
        let error = await assertThrowsCKError(.invalidArguments) {
            try await database.records(matching: CKQuery(recordType: "Clown", predicate: NSPredicate(format: tooDeep)))
        }
        XCTAssertTrue(error?.localizedDescription.contains("\(limit)") == true, error?.localizedDescription ?? "")
    }

    // MARK: - What the server answers, its cursor carries

    func testAggregateMixingIntegersAndDoublesPagesWithACursor() async throws {
        try await saveClowns(5)
        let database = john.publicCloudDatabase
        var page = try await database.records(matching: CKQuery(recordType: "Clown", predicate: NSPredicate(format: "b IN {1, 2.5, 3}")), resultsLimit: 1)
        var names = page.matchResults.map(\.0.recordName)
        while let cursor = page.queryCursor {
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 1)
            names += page.matchResults.map(\.0.recordName)
        }
        XCTAssertEqual(names, ["c0", "c2", "c3"])
    }

    func testRawValuesACursorCouldNotCarryAreRefused() async throws {
        try await saveClowns(3)
        let refused: [(WirePredicate, String)] = [
            (.isIn(.field("b"), [.int64(1), .list([.int64(2)])]), "IN aggregate"),
            (.listContainsAny(.field("b"), [.list([])]), "IN aggregate"),
            (.compare(.field("b"), .equal, .value(.list([.list([.int64(1)])]))), "another list"),
            (.compare(.field("b"), .equal, .value(.list([.int64(1), .string("x")]))), "mixes"),
            (.not(.listContains(.field("b"), .list([.string("x"), .int64(1)]))), "mixes"),
            (.between(.field("b"), .value(.int64(1)), .value(.list([.list([])]))), "another list"),
            (.compare(.field("b"), .less, .value(.double(.infinity))), "not finite"),
            (.not(.isIn(.field("b"), [.int64(1), .double(-.infinity)])), "not finite"),
            (.between(.field("b"), .value(.double(.nan)), .value(.int64(2))), "not finite"),
            (.compare(.field("b"), .equal, .value(.list([.double(1), .double(.infinity)]))), "not finite"),
            (.compare(.creationDate, .less, .value(.date(Date(timeIntervalSinceReferenceDate: .infinity)))), "not finite"),
        ]
        for (predicate, part) in refused {
            do {
                _ = try await query(predicate, limit: 1)
                XCTFail("accepted \(predicate)")
            } catch {
                XCTAssertEqual(error.code, .invalidArguments)
                XCTAssertTrue(error.message.contains(part), error.message)
            }
        }
        // Lists of one kind, IN aggregates mixing numbers, and large finite numbers page.
        let large = try await pages(.compare(.field("b"), .less, .value(.double(.greatestFiniteMagnitude))), pageSize: 2)
        XCTAssertEqual(large, [["c0", "c1"], ["c2"]])
        let mixedNumbers = try await pages(.isIn(.field("b"), [.int64(1), .double(3)]), pageSize: 1)
        XCTAssertEqual(mixedNumbers, [["c0"], ["c2"]])
    }

    // MARK: - Fuzz

    /// A raw predicate exactly `depth` deep: a leaf of depth 0 to 2 wrapped in NOTs and ANDs
    /// whose other parts are shallower. A leaf 2 deep holds a list in a list, which the server
    /// refuses whatever the depth.
    private func randomPredicate(depth: Int, using random: inout SeededGenerator) -> (predicate: WirePredicate, nestsLists: Bool) {
        let leafDepth = min(depth, Int.random(in: 0...2, using: &random))
        var predicate: WirePredicate = switch leafDepth {
        case 0: leaf
        case 1: Bool.random(using: &random) ? .isIn(.field("b"), [.int64(1), .double(2)]) : .between(.field("b"), .value(.int64(1)), .value(.int64(2)))
        default: .isIn(.field("b"), [.int64(1), .list([.int64(2)])])
        }
        for _ in 0..<(depth - leafDepth) {
            predicate = Int.random(in: 0..<3, using: &random) == 0 ? .and([leaf, predicate]) : .not(predicate)
        }
        return (predicate, leafDepth == 2)
    }

    func testRandomRawPredicatesAroundTheLimitAreAnsweredOrRefusedNeverACrash() async throws {
        try await saveClowns(3)
        var random = SeededGenerator(seed: 0xDEE9_5E2F)
        for _ in 0..<(60 * stressScale) {
            let depth = Int.random(in: 0..<8, using: &random) == 0
                ? Int.random(in: 1_000...5_000, using: &random)
                : limit + Int.random(in: -3...2, using: &random)
            let (predicate, nestsLists) = randomPredicate(depth: depth, using: &random)
            do {
                // Pages of one record, so every accepted query also opens a cursor.
                var response = try await query(predicate, limit: 1)
                var pages = 1
                while let cursor = response.cursor {
                    response = try await query(predicate, cursor: cursor, limit: 1)
                    pages += 1
                }
                XCTAssertLessThanOrEqual(depth, limit, "a predicate \(depth) deep was answered")
                XCTAssertFalse(nestsLists, "a list in a list was answered")
                XCTAssertLessThanOrEqual(pages, 4)
            } catch {
                XCTAssertTrue(depth > limit || nestsLists, "\(depth) deep: \(error.message)")
                XCTAssertEqual(error.code, .invalidArguments)
                XCTAssertTrue(error.message.contains(depth > limit ? "\(limit)" : "list"), error.message)
            }
        }
    }
}
