@_spi(Testing) import Stratus
import StratusToolkit
import XCTest
import _StratusTestSupport

/// Review of part 8: defects found in the operations toolkit and the CloudKit recipes.
final class ReviewPart8FindingsTests: RecipeTestCase {
    /// A caller-supplied `clientChangeTokenData` is reused for the first request of every
    /// split batch. The second batch in the same zone then repeats the first batch's bytes, so
    /// the server answers it as a repeat without applying it, and the recipe reports those
    /// items as done while the server still holds the old records.
    func testBatchModifyWithCallerTokenAppliesEverySplitBatch() async throws {
        let names = (0..<4).map { "tok\($0)" }
        let originals = names.map { record($0, text: "old") }
        _ = try await database.modifyRecordsInBatches(saving: originals)

        let toDelete = originals.map(\.recordID)
        let operation = BatchModifyOperation(
            database: database,
            recordIDsToDelete: toDelete,
            splitting: BatchSplitting(maximumItemsPerRequest: 2)
        )
        operation.clientChangeTokenData = Data("caller-token".utf8)
        let reported = Captured<[CKRecord.ID: Bool]>([:])
        operation.perRecordDeleteBlock = { recordID, result in
            reported.value[recordID] = (try? result.get()) != nil
        }
        let done = expectation(description: "final block")
        operation.modifyRecordsResultBlock = { _ in done.fulfill() }
        let queue = OperationQueue()
        queue.addOperation(operation)
        await fulfillment(of: [done], timeout: 10)

        let fetched = try await database.records(for: toDelete)
        for recordID in toDelete where reported.value[recordID] == true {
            let stillThere = (try? fetched[recordID]?.get()) != nil
            XCTAssertFalse(stillThere, "\(recordID.recordName) was reported deleted but the server still holds it")
        }
    }

    /// The default three-way list merge treats lists as sets when it looks for the client's
    /// additions: an element the client added that the ancestor already held once is dropped.
    func testDefaultListMergeKeepsAClientAdditionOfARepeatedElement() {
        let merged = RecordMerge.mergeLists(ancestor: ["ticket"], server: ["ticket"], client: ["ticket", "ticket"])
        XCTAssertEqual(merged.count, 2, "the client added a second \"ticket\"; merged: \(merged)")
    }
}
