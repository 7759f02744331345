import Foundation
import Stratus
import XCTest

// Query code as CloudKit's documentation and the talks write it. This file imports Foundation
// as well as Stratus, so the Linux spellings must not be ambiguous with Foundation's own.

final class QuerySnippetsTests: XCTestCase {
    func testEveryQuerySpellingCompilesAndRuns() async throws {
        let server = CloudServer(clock: ManualClock())
        let database = server.container(identifier: "iCloud.com.example.clowns", account: "john").privateCloudDatabase
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "bash"))
        let partyReference = CKRecord.Reference(record: party, action: .none)
        var photos: [CKRecord] = [party]
        for index in 0..<3 {
            let photo = CKRecord(recordType: "Photo")
            photo["party"] = partyReference
            photo["title"] = "Photo \(index)" as CKRecordValue
            photo["tags"] = ["clowns", "balloons"]
            photos.append(photo)
        }
        _ = try await database.modifyRecords(saving: photos, deleting: [])

        let predicate = NSPredicate(format: "party == %@", partyReference)
        let titled = NSPredicate(format: "%K BEGINSWITH %@", "title", "Photo")
        let tagged = NSPredicate(format: "ANY tags = %@", "clowns")
        let everything = NSPredicate(value: true)
        let combined = NSCompoundPredicate(andPredicateWithSubpredicates: [predicate, titled, tagged, everything])
        let notOther = NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "title == %@", "other"))
        let query = CKQuery(recordType: "Photo", predicate: NSCompoundPredicate(andPredicateWithSubpredicates: [combined, notOther]))
        query.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false), NSSortDescriptor(key: "title", ascending: true)]

        let (matchResults, cursor) = try await database.records(matching: query, resultsLimit: 2)
        XCTAssertEqual(matchResults.count, 2)
        XCTAssertNotNil(cursor)
        if let cursor {
            let (more, _) = try await database.records(continuingMatchFrom: cursor)
            XCTAssertEqual(more.count, 1)
        }

        let operation = CKQueryOperation(query: query)
        operation.desiredKeys = ["title"]
        operation.resultsLimit = CKQueryOperation.maximumResults
        var titles: [String] = []
        let done = expectation(description: "query")
        operation.recordMatchedBlock = { _, result in
            if case .success(let record) = result, let title = record["title"] as? String { titles.append(title) }
        }
        operation.queryResultBlock = { result in
            if case .success(let cursor) = result { XCTAssertNil(cursor) }
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(titles, ["Photo 2", "Photo 1", "Photo 0"], "newest first: one batch still gives each record a later date")
        XCTAssertTrue(predicate.evaluate(with: photos[1]))
    }
}
