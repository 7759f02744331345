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
