import Stratus
import StratusToolkit
import _StratusTestSupport
import XCTest

/// The recipes' operations take part in the toolkit like every Stratus operation: a failing
/// condition reaches their blocks with nothing sent, and the errors they finish with are
/// reported to conditions and groups.
final class RecipeToolkitTests: OperationTestCase {
    private struct Refused: OperationCondition {
        func evaluate(for operation: Operation) async -> OperationConditionResult {
            .failed(CKError(.notAuthenticated, message: "sign in to save favourites"))
        }
    }

    /// Runs `save` on a queue of its own under `conditions` and returns the error its final
    /// block reported.
    private func finalError(of save: RetryModifyRecordsOperation, conditions: [any OperationCondition]) async -> CKError? {
        let finished = expectation(description: "final block")
        let reported = Captured<CKError?>(nil)
        save.modifyRecordsResultBlock = { result in
            if case .failure(let error as CKError) = result { reported.value = error }
            finished.fulfill()
        }
        OperationQueue().addOperation(save, conditions: conditions)
        await fulfillment(of: [finished], timeout: 10)
        return reported.value
    }

    func testAFailingConditionReachesARecipesBlocksAndNothingIsSent() async throws {
        let save = RetryModifyRecordsOperation(database: database, recordsToSave: [note("a"), note("b")])
        let items = EventLog()
        save.perRecordSaveBlock = { recordID, result in
            if case .failure(let error as CKError) = result { items.append("\(recordID.recordName) \(error.code.rawValue)") }
        }
        let before = server.requestCount
        let reported = await finalError(of: save, conditions: [Refused()])
        XCTAssertEqual(reported?.code, .notAuthenticated)
        XCTAssertEqual(Set(items.all), ["a \(CKError.Code.notAuthenticated.rawValue)", "b \(CKError.Code.notAuthenticated.rawValue)"])
        XCTAssertEqual(server.requestCount, before, "a recipe stopped by its condition sends nothing")
    }

    func testAccountAvailableOnARecipeChecksTheAccountOfTheRecipesContainerNotTheDefaultOne() async throws {
        // The app's own container has no account signed in; CKContainer.default() has one.
        let own = server.container(identifier: "iCloud.com.example.own", account: nil)
        let defaultStatus = try await CKContainer.default().accountStatus()
        XCTAssertEqual(defaultStatus, .available)
        let save = RetryModifyRecordsOperation(database: own.privateCloudDatabase, recordsToSave: [note("a")])
        let before = server.requestCount
        let reported = await finalError(of: save, conditions: [AccountAvailable()])
        XCTAssertEqual(reported?.code, .notAuthenticated)
        let message = reported?.localizedDescription ?? ""
        XCTAssertTrue(message.contains("AccountAvailable stopped"), "the condition, not the server, stopped it: \(message)")
        XCTAssertTrue(message.contains("iCloud.com.example.own"), message)
        XCTAssertEqual(server.requestCount, before)
    }

    func testAccountAvailableAsksEachRecipeForItsOwnContainer() async {
        let own = server.container(identifier: "iCloud.com.example.own", account: nil).privateCloudDatabase
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
        let recipes: [Operation] = [
            QueryAllOperation(database: own, query: query),
            RetryOperation(database: own) { _ in CKFetchRecordZonesOperation.fetchAllRecordZonesOperation() },
            BatchModifyOperation(database: own, recordsToSave: [note("a")]),
            ConflictResolvingSaveOperation(database: own, recordsToSave: [note("b")]),
            RetryModifyRecordsOperation(database: own, recordsToSave: [note("c")]),
        ]
        for recipe in recipes {
            let result = await AccountAvailable().evaluate(for: recipe)
            guard case .failed(let error as CKError) = result else {
                XCTFail("\(type(of: recipe)): expected the signed-out account of its own container, got \(result)")
                continue
            }
            XCTAssertEqual(error.code, .notAuthenticated, "\(type(of: recipe))")
        }
    }

    func testARecipeThatWaitsForItsOwnGroupFailsNamingTheCycleAndTheGroupFinishes() async throws {
        let group = GroupOperation()
        group.name = "sync"
        let query = QueryAllOperation(database: database, query: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)))
        query.name = "query"
        query.addDependency(group)
        let reported = Captured<CKError?>(nil)
        query.queryResultBlock = { result in
            if case .failure(let error as CKError) = result { reported.value = error }
        }
        group.addOperation(query)
        let done = expectation(description: "group finished")
        let before = server.requestCount
        OperationQueue().addOperation(group, observers: [BlockObserver(finishHandler: { _, _ in done.fulfill() })])
        await fulfillment(of: [done], timeout: 10)
        let cycle = reported.value?.userInfo[NSUnderlyingErrorKey] as? OperationConditionError
        XCTAssertEqual(cycle?.reason.hasPrefix("\"query\" waits for \"sync\""), true, "\(String(describing: reported.value))")
        XCTAssertEqual(server.requestCount, before)
    }

    func testAGroupCollectsTheErrorARecipeFinishedWith() async throws {
        let query = QueryAllOperation(database: database, query: CKQuery(recordType: "Nothing", predicate: NSPredicate(value: true)))
        let group = GroupOperation(operations: [query])
        let done = expectation(description: "group finished")
        OperationQueue().addOperation(group, observers: [BlockObserver(finishHandler: { _, _ in done.fulfill() })])
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual((query.reportedErrors.first as? CKError)?.code, .unknownItem, "an unknown record type in the development schema")
        XCTAssertEqual(group.reportedErrors.compactMap { ($0 as? CKError)?.code }, [.unknownItem])
    }
}
