@_spi(Testing) import Stratus
import XCTest
import _StratusTestSupport

/// Queries read through indexes: an indexed equality-and-sort query examines about as many
/// records as it returns, however many the zone holds.
final class QueryIndexTests: ServerTestCase {
    func testIndexedEqualityAndSortExaminesAboutResultsLimitRecordsOfOneHundredThousand() async throws {
        let database = device("john").privateCloudDatabase
        let total = 100_000
        let parties = 50
        var batch: [CKRecord] = []
        for index in 0..<total {
            let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "photo-\(index)"))
            photo["party"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "party-\(index % parties)"), action: .none)
            photo["taken"] = Date(timeIntervalSince1970: Double(index))
            batch.append(photo)
            if batch.count == 400 {
                _ = try await database.modifyRecords(saving: batch, deleting: [], atomically: false)
                batch.removeAll(keepingCapacity: true)
            }
        }
        let query = CKQuery(recordType: "Photo", predicate: NSPredicate(format: "party == %@", CKRecord.ID(recordName: "party-7")))
        query.sortDescriptors = [NSSortDescriptor(key: "taken", ascending: false)]
        var page = try await database.records(matching: query, resultsLimit: 20)
        XCTAssertEqual(page.matchResults.count, 20)
        XCTAssertEqual(try page.matchResults.first?.1.get().recordID.recordName, "photo-\(total - parties + 7)")
        XCTAssertLessThanOrEqual(server.lastQueryExaminedCount, 20 + 2)
        var pages = 1
        while let cursor = page.queryCursor, pages < 3 {
            page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 20)
            pages += 1
            XCTAssertLessThanOrEqual(server.lastQueryExaminedCount, 20 + 2, "page \(pages)")
        }
    }
}

extension QueryIndexTests {
    private func saveLog(_ count: Int, in database: CKDatabase) async throws {
        var batch: [CKRecord] = []
        for index in 0..<count {
            let entry = CKRecord(recordType: "Entry", recordID: CKRecord.ID(recordName: String(format: "entry-%05d", index)))
            entry["at"] = Date(timeIntervalSince1970: Double(index))
            entry["code"] = String(format: "%c%05d", 65 + index % 26, index)
            batch.append(entry)
            if batch.count == 400 {
                _ = try await database.modifyRecords(saving: batch, deleting: [], atomically: false)
                batch.removeAll()
            }
        }
    }

    func testRangeAndPrefixQueriesOnTheSortFieldReadOnlyTheirRange() async throws {
        let database = device("john").privateCloudDatabase
        try await saveLog(10_000, in: database)

        let later = CKQuery(recordType: "Entry", predicate: NSPredicate(format: "at >= %@", Date(timeIntervalSince1970: 5_000) as NSDate))
        later.sortDescriptors = [NSSortDescriptor(key: "at", ascending: true)]
        let laterPage = try await database.records(matching: later, resultsLimit: 20)
        XCTAssertEqual(laterPage.matchResults.first?.0.recordName, "entry-05000")
        XCTAssertLessThanOrEqual(server.lastQueryExaminedCount, 22)

        let earlier = CKQuery(recordType: "Entry", predicate: NSPredicate(format: "at BETWEEN %@", [Date(timeIntervalSince1970: 100), Date(timeIntervalSince1970: 110)]))
        earlier.sortDescriptors = [NSSortDescriptor(key: "at", ascending: false)]
        let earlierPage = try await database.records(matching: earlier, resultsLimit: 20)
        XCTAssertEqual(earlierPage.matchResults.map(\.0.recordName), (100...110).reversed().map { String(format: "entry-%05d", $0) })
        XCTAssertNil(earlierPage.queryCursor)
        XCTAssertLessThanOrEqual(server.lastQueryExaminedCount, 12, "the scan stops below the range")

        let prefixed = CKQuery(recordType: "Entry", predicate: NSPredicate(format: "code BEGINSWITH 'Q'"))
        prefixed.sortDescriptors = [NSSortDescriptor(key: "code", ascending: true)]
        let prefixPage = try await database.records(matching: prefixed, resultsLimit: 20)
        XCTAssertEqual(prefixPage.matchResults.count, 20)
        XCTAssertTrue(prefixPage.matchResults.allSatisfy { (try? $0.1.get()["code"] as? String)?.hasPrefix("Q") == true })
        XCTAssertLessThanOrEqual(server.lastQueryExaminedCount, 22)
    }
}

extension QueryIndexTests {
    func testAZoneKeepsABoundedNumberOfIndexes() async throws {
        let database = device("john").privateCloudDatabase
        let record = CKRecord(recordType: "Shape", recordID: CKRecord.ID(recordName: "s"))
        for index in 0..<40 { record["f\(index)"] = index }
        _ = try await database.save(record)
        for index in 0..<40 {
            let query = CKQuery(recordType: "Shape", predicate: NSPredicate(format: "%K == %d", "f\(index)", index))
            let page = try await database.records(matching: query)
            XCTAssertEqual(page.matchResults.count, 1, "f\(index)")
        }
        XCTAssertLessThanOrEqual(server.indexCount(ofZone: .defaultZone, containerIdentifier: identifier, account: "john"), 32)
    }
}
