import Stratus
import XCTest

/// Development and production schema rules: what saves may create, and which indexes
/// queries and sorts need.
final class SchemaEnvironmentTests: ServerTestCase {
    private var database: CKDatabase!

    override func setUp() {
        super.setUp()
        database = device("john").privateCloudDatabase
    }

    private func photo(_ name: String, likes: Int) -> CKRecord {
        let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: name))
        photo["likes"] = likes
        photo["caption"] = "Clowns at \(name)"
        return photo
    }

    private var likesQuery: CKQuery {
        let query = CKQuery(recordType: "Photo", predicate: NSPredicate(format: "likes > %d", 0))
        query.sortDescriptors = [NSSortDescriptor(key: "likes", ascending: true)]
        return query
    }

    func testDevelopmentIndexesEveryFieldAutomatically() async throws {
        _ = try await database.modifyRecords(saving: [photo("a", likes: 2), photo("b", likes: 1)], deleting: [])
        let page = try await database.records(matching: likesQuery)
        XCTAssertEqual(page.matchResults.map(\.0.recordName), ["b", "a"])
        XCTAssertEqual(server.schema(containerIdentifier: identifier).environment, .development)
    }

    func testProductionRefusesWhatWasNeverDeployed() async throws {
        server.setEnvironment(.production, containerIdentifier: identifier)
        let error = await assertThrowsCKError(.invalidArguments) { try await self.database.save(self.photo("a", likes: 1)) }
        XCTAssertTrue(error?.localizedDescription.contains("'Photo'") == true, error?.localizedDescription ?? "")
        await assertThrowsCKError(.unknownItem) { try await self.database.records(matching: self.likesQuery) }
    }

    func testProductionAcceptsDeployedTypesAndRefusesNewFields() async throws {
        _ = try await database.save(photo("a", likes: 1))
        server.deployDevelopmentSchema(containerIdentifier: identifier)
        server.setEnvironment(.production, containerIdentifier: identifier)
        _ = try await database.save(photo("b", likes: 2))
        let extra = photo("c", likes: 3)
        extra["venue"] = "Moscone"
        let error = await assertThrowsCKError(.invalidArguments) { try await self.database.save(extra) }
        XCTAssertTrue(error?.localizedDescription.contains("'venue'") == true, error?.localizedDescription ?? "")
        XCTAssertNil(server.schema(containerIdentifier: identifier).production.recordTypes["Photo"]?["venue"])
    }

    func testProductionQueriesAndSortsNeedMarkedIndexesNamingTheField() async throws {
        _ = try await database.modifyRecords(saving: [photo("a", likes: 2), photo("b", likes: 1)], deleting: [])
        server.deployDevelopmentSchema(containerIdentifier: identifier)
        server.setEnvironment(.production, containerIdentifier: identifier)

        var error = await assertThrowsCKError(.invalidArguments) { try await self.database.records(matching: self.likesQuery) }
        XCTAssertTrue(error?.localizedDescription.contains("'likes'") == true && error?.localizedDescription.contains("queryable") == true, error?.localizedDescription ?? "")

        server.markIndexes(.queryable, field: "likes", recordType: "Photo", containerIdentifier: identifier)
        error = await assertThrowsCKError(.invalidArguments) { try await self.database.records(matching: self.likesQuery) }
        XCTAssertTrue(error?.localizedDescription.contains("sortable") == true, error?.localizedDescription ?? "")

        server.markIndexes(.sortable, field: "likes", recordType: "Photo", containerIdentifier: identifier)
        let page = try await database.records(matching: likesQuery)
        XCTAssertEqual(page.matchResults.map(\.0.recordName), ["b", "a"], "a new index covers records saved before it")
    }

    func testProductionFullTextSearchNeedsASearchableField() async throws {
        _ = try await database.save(photo("a", likes: 1))
        server.deployDevelopmentSchema(containerIdentifier: identifier)
        server.setEnvironment(.production, containerIdentifier: identifier)
        let search = CKQuery(recordType: "Photo", predicate: NSPredicate(format: "self CONTAINS 'clowns'"))
        await assertThrowsCKError(.invalidArguments) { try await self.database.records(matching: search) }
        server.markIndexes(.searchable, field: "caption", recordType: "Photo", containerIdentifier: identifier)
        let page = try await database.records(matching: search)
        XCTAssertEqual(page.matchResults.count, 1)
    }

    func testSystemFieldsNeedIndexesInProductionToo() async throws {
        _ = try await database.save(photo("a", likes: 1))
        server.deployDevelopmentSchema(containerIdentifier: identifier)
        server.setEnvironment(.production, containerIdentifier: identifier)
        let newest = CKQuery(recordType: "Photo", predicate: NSPredicate(value: true))
        newest.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
        let error = await assertThrowsCKError(.invalidArguments) { try await self.database.records(matching: newest) }
        XCTAssertTrue(error?.localizedDescription.contains("'creationDate'") == true, error?.localizedDescription ?? "")
        server.markIndexes(.sortable, field: CKRecord.SystemFieldKey.creationDate, recordType: "Photo", containerIdentifier: identifier)
        let page = try await database.records(matching: newest)
        XCTAssertEqual(page.matchResults.count, 1)
    }

    func testDeployingCopiesMarkedIndexesAndNoRecords() async throws {
        _ = try await database.save(photo("a", likes: 1))
        server.markIndexes([.queryable, .sortable], field: "likes", recordType: "Photo", containerIdentifier: identifier)
        let before = server.requestCount
        server.deployDevelopmentSchema(containerIdentifier: identifier)
        XCTAssertEqual(server.requestCount, before)
        let schema = server.schema(containerIdentifier: identifier)
        XCTAssertEqual(schema.production.indexes["Photo"]?["likes"], [.queryable, .sortable])
        XCTAssertEqual(schema.production.recordTypes["Photo"]?["likes"]?.description, "Int(64)")
        server.setEnvironment(.production, containerIdentifier: identifier)
        let page = try await database.records(matching: likesQuery)
        XCTAssertEqual(page.matchResults.count, 1)
    }
}
