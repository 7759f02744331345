import Stratus
import XCTest

/// Queries: predicates on the server, order, pages and cursors (cloudkit-api.md §7, §15).
final class QueryTests: ServerTestCase {
    private var john: CKDatabase!
    private let party = CKRecord.ID(recordName: "bash")

    override func setUp() {
        super.setUp()
        john = device("john").privateCloudDatabase
    }

    /// Saves photos named p00…, with an attendee count, a party reference and a caption.
    private func savePhotos(_ count: Int, in database: CKDatabase? = nil, zoneID: CKRecordZone.ID = .default) async throws {
        let photos = (0..<count).map { index -> CKRecord in
            let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: String(format: "p%02d", index), zoneID: zoneID))
            photo["likes"] = index % 5
            photo["party"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "bash", zoneID: zoneID), action: .none)
            photo["caption"] = index.isMultiple(of: 2) ? "Clowns juggling" : "Balloons"
            return photo
        }
        _ = try await (database ?? john).modifyRecords(saving: photos, deleting: [])
    }

    private func names(_ page: CKDatabase.QueryPage) -> [String] {
        page.matchResults.compactMap { try? $0.1.get().recordID.recordName }
    }

    func testEqualityQueryReturnsTheMatchingRecordsInNameOrder() async throws {
        try await savePhotos(10)
        let query = CKQuery(recordType: "Photo", predicate: NSPredicate(format: "likes == %d", 3))
        let page = try await john.records(matching: query)
        XCTAssertEqual(names(page), ["p03", "p08"])
        XCTAssertNil(page.queryCursor)
    }

    func testReferenceAndTokenPredicatesRunOnTheServer() async throws {
        try await savePhotos(6)
        let byParty = try await john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(format: "party == %@", party)))
        XCTAssertEqual(names(byParty).count, 6)
        let juggling = try await john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(format: "self CONTAINS 'JUGGLING'")))
        XCTAssertEqual(names(juggling), ["p00", "p02", "p04"])
    }

    func testSortDescriptorsOrderTheResultsAndTiesFallBackToTheRecordName() async throws {
        try await savePhotos(10)
        let query = CKQuery(recordType: "Photo", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "likes", ascending: false)]
        let page = try await john.records(matching: query)
        XCTAssertEqual(names(page), ["p04", "p09", "p03", "p08", "p02", "p07", "p01", "p06", "p00", "p05"])
    }

    func testSortingBySystemDates() async throws {
        for name in ["c", "a", "b"] {
            clock.advance(by: 1)
            _ = try await john.save(CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: name)))
        }
        let query = CKQuery(recordType: "Photo", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
        let sorted = try await john.records(matching: query)
        XCTAssertEqual(names(sorted), ["b", "a", "c"])
        let since = clock.now.addingTimeInterval(-1.5)
        let recent = try await john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(format: "creationDate > %@", since as NSDate)))
        XCTAssertEqual(names(recent), ["a", "b"])
    }

    func testPagesHoldExactlyResultsLimitAndCursorsContinue() async throws {
        try await savePhotos(25)
        let query = CKQuery(recordType: "Photo", predicate: NSPredicate(value: true))
        var seen: [String] = []
        var page = try await john.records(matching: query, resultsLimit: 10)
        XCTAssertEqual(page.matchResults.count, 10)
        seen += names(page)
        while let cursor = page.queryCursor {
            page = try await john.records(continuingMatchFrom: cursor, resultsLimit: 10)
            seen += names(page)
        }
        XCTAssertEqual(seen, (0..<25).map { String(format: "p%02d", $0) })
        XCTAssertEqual(server.requestCount, 1 + 3)
    }

    func testMaximumResultsLetsTheServerChooseThePageSize() async throws {
        try await savePhotos(12)
        server.defaultQueryResultsLimit = 5
        let page = try await john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(value: true)), resultsLimit: CKQueryOperation.maximumResults)
        XCTAssertEqual(page.matchResults.count, 5)
        XCTAssertNotNil(page.queryCursor)
    }

    func testDesiredKeysLimitTheFetchedFields() async throws {
        try await savePhotos(2)
        let page = try await john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(value: true)), desiredKeys: ["likes"])
        let record = try XCTUnwrap(try page.matchResults.first?.1.get())
        XCTAssertEqual(record.allKeys(), ["likes"])
    }

    func testANilZoneSearchesEveryZoneAndAZoneOnlyItself() async throws {
        let zoneID = CKRecordZone.ID(zoneName: "Parties")
        _ = try await john.save(CKRecordZone(zoneID: zoneID))
        try await savePhotos(2)
        try await savePhotos(3, zoneID: zoneID)
        let everywhere = try await john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(value: true)))
        XCTAssertEqual(everywhere.matchResults.count, 5)
        let inZone = try await john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(value: true)), inZoneWith: zoneID, desiredKeys: nil)
        XCTAssertEqual(inZone.matchResults.count, 3)
        XCTAssertTrue(inZone.matchResults.allSatisfy { $0.0.zoneID == zoneID })
        await assertThrowsCKError(.zoneNotFound) {
            try await self.john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(value: true)), inZoneWith: CKRecordZone.ID(zoneName: "Nowhere"), desiredKeys: nil)
        }
    }

    func testAnUnknownRecordTypeIsUnknownItem() async {
        await assertThrowsCKError(.unknownItem) {
            try await self.john.records(matching: CKQuery(recordType: "Nothing", predicate: NSPredicate(value: true)))
        }
    }

    func testARefusedPredicateFailsWhenTheQueryRunsWithoutARequest() async throws {
        try await savePhotos(1)
        let before = server.requestCount
        let error = await assertThrowsCKError(.invalidArguments) {
            try await self.john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(format: "caption ENDSWITH 'x'")))
        }
        XCTAssertTrue(error?.localizedDescription.contains("ENDSWITH") == true)
        XCTAssertEqual(server.requestCount, before)
        let unsortable = CKQuery(recordType: "Photo", predicate: NSPredicate(value: true))
        unsortable.sortDescriptors = [NSSortDescriptor(keyPath: \String.count, ascending: true)]
        await assertThrowsCKError(.invalidArguments) { try await self.john.records(matching: unsortable) }
    }

    func testCreatorPredicateMatchesTheRealIDAndDefaultOwner() async throws {
        let johnID = try await device("john").userRecordID()
        _ = try await device("john").publicCloudDatabase.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "johns")))
        _ = try await device("alice").publicCloudDatabase.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "alices")))
        let database = device("john").publicCloudDatabase
        for creator in [johnID, CKRecord.ID(recordName: CKCurrentUserDefaultName)] {
            let page = try await database.records(matching: CKQuery(recordType: "Party", predicate: NSPredicate(format: "creatorUserRecordID == %@", creator)))
            XCTAssertEqual(names(page), ["johns"], "\(creator.recordName)")
        }
    }

    func testNowIsTheServersTime() async throws {
        _ = try await john.save(CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "old")))
        clock.advance(by: 10)
        let page = try await john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(format: "creationDate < now()")))
        XCTAssertEqual(names(page), ["old"])
    }

    func testThePublicDatabaseIsQueryableWithoutAnAccount() async throws {
        _ = try await device("john").publicCloudDatabase.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "bash")))
        let page = try await device(nil).publicCloudDatabase.records(matching: CKQuery(recordType: "Party", predicate: NSPredicate(value: true)))
        XCTAssertEqual(names(page), ["bash"])
    }

    // MARK: - Cursors

    func testCursorIsStableWhileAnotherDeviceInsertsAndDeletes() async throws {
        try await savePhotos(20)
        let laptop = device("john").privateCloudDatabase
        let query = CKQuery(recordType: "Photo", predicate: NSPredicate(value: true))
        let first = try await john.records(matching: query, resultsLimit: 8)
        XCTAssertEqual(names(first).last, "p07")
        // Before the cursor: an insert and a delete that must not shift the next page.
        _ = try await laptop.save(CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p03a")))
        try await laptop.deleteRecord(withID: CKRecord.ID(recordName: "p02"))
        // After the cursor: an insert that appears, a delete that disappears.
        _ = try await laptop.save(CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p10a")))
        try await laptop.deleteRecord(withID: CKRecord.ID(recordName: "p12"))
        var rest: [String] = []
        var cursor = first.queryCursor
        while let next = cursor {
            let page = try await john.records(continuingMatchFrom: next, resultsLimit: 8)
            rest += names(page)
            cursor = page.queryCursor
        }
        XCTAssertEqual(rest, ["p08", "p09", "p10", "p10a", "p11", "p13", "p14", "p15", "p16", "p17", "p18", "p19"])
    }

    private func firstCursor() async throws -> CKQueryOperation.Cursor {
        try await savePhotos(5)
        let page = try await john.records(matching: CKQuery(recordType: "Photo", predicate: NSPredicate(value: true)), resultsLimit: 2)
        return try XCTUnwrap(page.queryCursor)
    }

    func testEveryFlippedByteOfACursorIsRefused() async throws {
        let cursor = try await firstCursor()
        let bytes = cursor.bytes
        for index in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 25)) {
            var forged = bytes
            forged[forged.index(forged.startIndex, offsetBy: index)] ^= 0x01
            let bad = try forgedCursor(forged)
            await assertThrowsCKError(.invalidArguments) { try await self.john.records(continuingMatchFrom: bad) }
        }
        await assertThrowsCKError(.invalidArguments) { try await self.john.records(continuingMatchFrom: try self.forgedCursor(Data([1, 2, 3]))) }
    }

    func testACursorFromAnotherServerUserOrDatabaseIsRefused() async throws {
        let cursor = try await firstCursor()
        let otherServer = CloudServer(clock: ManualClock())
        let foreign = otherServer.container(identifier: identifier, account: "john").privateCloudDatabase
        await assertThrowsCKError(.invalidArguments) { try await foreign.records(continuingMatchFrom: cursor) }
        await assertThrowsCKError(.invalidArguments) { try await self.device("alice").privateCloudDatabase.records(continuingMatchFrom: cursor) }
        await assertThrowsCKError(.invalidArguments) { try await self.device("john").publicCloudDatabase.records(continuingMatchFrom: cursor) }
        let sameUser = try await device("john").privateCloudDatabase.records(continuingMatchFrom: cursor)
        XCTAssertEqual(names(sameUser), ["p02", "p03", "p04"], "another device of the same user may continue")
    }

    func testCursorsAndQueriesArchive() async throws {
        let cursor = try await firstCursor()
        let data = try NSKeyedArchiver.archivedData(withRootObject: cursor, requiringSecureCoding: true)
        let restored = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQueryCursor.self, from: data))
        let continued = try await john.records(continuingMatchFrom: restored)
        XCTAssertEqual(names(continued), ["p02", "p03", "p04"])

        let query = CKQuery(recordType: "Photo", predicate: NSPredicate(format: "likes >= %d AND caption BEGINSWITH 'Clown'", 1))
        query.sortDescriptors = [NSSortDescriptor(key: "likes", ascending: false)]
        let queryData = try NSKeyedArchiver.archivedData(withRootObject: query, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuery.self, from: queryData))
        XCTAssertEqual(decoded.recordType, "Photo")
        XCTAssertEqual(decoded.sortDescriptors?.first?.key, "likes")
        let fromDecoded = try await john.records(matching: decoded)
        let fromOriginal = try await john.records(matching: query)
        XCTAssertEqual(names(fromDecoded), names(fromOriginal))
        XCTAssertFalse(names(fromOriginal).isEmpty)
    }

    private func forgedCursor(_ bytes: Data) throws -> CKQueryCursor {
        CKQueryCursor(bytes: bytes)
    }
}

extension QueryTests {
    func testStringsSortByUnicodeScalarValues() async throws {
        for (name, title) in [("a", "apple"), ("b", "Zebra"), ("c", "éclair"), ("d", "Apple")] {
            let record = CKRecord(recordType: "Word", recordID: CKRecord.ID(recordName: name))
            record["title"] = title
            _ = try await john.save(record)
        }
        let query = CKQuery(recordType: "Word", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let page = try await john.records(matching: query)
        XCTAssertEqual(page.matchResults.compactMap { try? $0.1.get()["title"] as? String }, ["Apple", "Zebra", "apple", "éclair"])
    }

    func testLegacyQueryBlocksAndPerform() async throws {
        try await savePhotos(3)
        let operation = CKQueryOperation(query: CKQuery(recordType: "Photo", predicate: NSPredicate(value: true)))
        operation.resultsLimit = 2
        let legacy: any LegacyQueryBlocks = operation
        let done = expectation(description: "done")
        var fetched: [String] = []
        legacy.recordFetchedBlock = { fetched.append($0.recordID.recordName) }
        legacy.queryCompletionBlock = { cursor, error in
            XCTAssertNotNil(cursor)
            XCTAssertNil(error)
            done.fulfill()
        }
        john.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(fetched, ["p00", "p01"])

        let performing: any LegacyQueryPerforming = john
        let records = try await performing.perform(CKQuery(recordType: "Photo", predicate: NSPredicate(format: "likes == 1")), inZoneWith: nil)
        XCTAssertEqual(records.map(\.recordID.recordName), ["p01"])
    }
}

/// The deprecated query spellings, reached without deprecation warnings.
protocol LegacyQueryBlocks: AnyObject {
    var recordFetchedBlock: ((CKRecord) -> Void)? { get set }
    var queryCompletionBlock: ((CKQueryOperation.Cursor?, (any Error)?) -> Void)? { get set }
}

extension CKQueryOperation: LegacyQueryBlocks {}

protocol LegacyQueryPerforming {
    func perform(_ query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?) async throws -> [CKRecord]
}

extension CKDatabase: LegacyQueryPerforming {}
