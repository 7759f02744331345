import Stratus
import XCTest

/// The server stores only values a `CKRecord` can hold: checked with hand-built wire requests
/// (what a forged client or archive could send), and through the client, which refuses the
/// same values before sending anything.
final class ValueRulesTests: ServerTestCase {
    private var database: CKDatabase!

    override func setUp() {
        super.setUp()
        database = device("john").privateCloudDatabase
    }

    override func tearDown() {
        database = nil
        super.tearDown()
    }

    // MARK: - Helpers

    private func save(_ record: WireRecord, policy: WireSavePolicy = .ifServerRecordUnchanged) async throws -> Result<WireRecord, WireError> {
        try await rawSave(record, to: database, policy: policy)
    }

    private func lookUp(_ name: String) async throws -> Result<WireRecord, WireError> {
        let response = try await server.lookupRecords(WireRecordsLookupRequest(
            context: rawContext(database),
            recordIDs: [WireRecordID(recordName: name)]
        ))
        return response.results.first?.result ?? .failure(WireError(.internalError, "no result"))
    }

    private func record(_ name: String, fields: [String: WireFieldValue] = [:], encrypted: [String: WireFieldValue] = [:]) -> WireRecord {
        WireRecord(recordID: WireRecordID(recordName: name), recordType: "Note", fields: fields, encryptedFields: encrypted)
    }

    /// Asserts that saving `fields`/`encrypted` through the raw service fails with
    /// `invalidArguments` naming the record and `key`, and that nothing was stored.
    private func assertRefused(
        fields: [String: WireFieldValue] = [:],
        encrypted: [String: WireFieldValue] = [:],
        key: String,
        _ expected: String,
        file: StaticString = #filePath,
        line: UInt = #line
    ) async throws {
        let name = "bad-\(key)"
        let result = try await save(record(name, fields: fields, encrypted: encrypted))
        guard case .failure(let error) = result else {
            return XCTFail("the server stored \(fields) \(encrypted)", file: file, line: line)
        }
        XCTAssertEqual(error.code, .invalidArguments, error.message, file: file, line: line)
        XCTAssertTrue(error.message.contains("'\(name)'"), "names the record: \(error.message)", file: file, line: line)
        XCTAssertTrue(error.message.contains("'\(key)'"), "names the field: \(error.message)", file: file, line: line)
        XCTAssertTrue(error.message.contains(expected), "says '\(expected)': \(error.message)", file: file, line: line)
        guard case .failure(let missing) = try await lookUp(name) else {
            return XCTFail("a refused record was stored", file: file, line: line)
        }
        XCTAssertEqual(missing.code, .unknownItem, file: file, line: line)
    }

    private let here = WireRecordID(recordName: "target")
    private let nan = Date(timeIntervalSinceReferenceDate: .nan)

    // MARK: - Lists

    func testTheServerRefusesANestedList() async throws {
        try await assertRefused(fields: ["grid": .list([.list([.int64(1)]), .list([.int64(2)])])], key: "grid", "list inside a list")
        try await assertRefused(fields: ["empty": .list([.list([])])], key: "empty", "list inside a list")
    }

    func testTheServerRefusesAListMixingKinds() async throws {
        try await assertRefused(fields: ["mixed": .list([.int64(1), .string("one")])], key: "mixed", "one type")
        try await assertRefused(fields: ["numbers": .list([.int64(1), .double(1.5)])], key: "numbers", "one type")
        try await assertRefused(encrypted: ["secret": .list([.string("a"), .bytes(Data([1]))])], key: "secret", "one type")
    }

    // MARK: - Finite numbers and dates

    func testTheServerRefusesNonFiniteDatesAndDoubles() async throws {
        try await assertRefused(fields: ["when": .date(nan)], key: "when", "not finite")
        try await assertRefused(fields: ["later": .date(.distantFuture.addingTimeInterval(.infinity))], key: "later", "not finite")
        try await assertRefused(fields: ["dates": .list([.date(Date(timeIntervalSinceReferenceDate: 0)), .date(nan)])], key: "dates", "not finite")
        try await assertRefused(fields: ["ratio": .double(-.infinity)], key: "ratio", "not a finite number")
        try await assertRefused(encrypted: ["when": .date(nan)], key: "when", "not finite")
        try await assertRefused(encrypted: ["ratios": .list([.double(.nan)])], key: "ratios", "not a finite number")
    }

    func testANaNDateNeverReachesADescendingQuery() async throws {
        // Before the rule, a stored NaN date made a descending query return a record twice.
        for (index, date) in [Date(timeIntervalSinceReferenceDate: 1), nan, Date(timeIntervalSinceReferenceDate: 2)].enumerated() {
            _ = try await save(record("event-\(index)", fields: ["when": .date(date)]))
        }
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "when", ascending: false)]
        let (matches, _) = try await database.records(matching: query)
        XCTAssertEqual(matches.map { $0.0.recordName }, ["event-2", "event-0"])
    }

    // MARK: - Encrypted fields

    func testTheServerRefusesReferencesAndAssetsInEncryptedFields() async throws {
        _ = try await save(record("target"))
        let asset = WireAsset(localFileURL: URL(fileURLWithPath: "/tmp/nothing-\(UUID().uuidString)"))
        try await assertRefused(encrypted: ["link": .reference(WireReference(recordID: here, action: .none))], key: "link", "CKRecord.Reference")
        try await assertRefused(encrypted: ["owner": .reference(WireReference(recordID: here, action: .deleteSelf))], key: "owner", "CKRecord.Reference")
        try await assertRefused(encrypted: ["links": .list([.reference(WireReference(recordID: here, action: .none))])], key: "links", "CKRecord.Reference")
        try await assertRefused(encrypted: ["photo": .asset(asset)], key: "photo", "CKAsset")
        try await assertRefused(encrypted: ["photos": .list([.asset(asset)])], key: "photos", "CKAsset")
    }

    func testAnEncryptedDeleteSelfReferenceCannotTieARecordToItsTarget() async throws {
        _ = try await save(record("target"))
        _ = try await save(record("hidden", encrypted: ["owner": .reference(WireReference(recordID: here, action: .deleteSelf))]))
        _ = try await server.modifyRecords(WireRecordsModifyRequest(context: rawContext(database), deletes: [here]))
        guard case .failure(let error) = try await lookUp("hidden") else { return XCTFail("the record was stored") }
        XCTAssertEqual(error.code, .unknownItem)
    }

    // MARK: - Nothing already stored is lost

    func testARefusedSaveLeavesTheStoredRecordAsItWas() async throws {
        let stored = try await save(record("kept", fields: ["title": .string("first")])).get()
        var bad = stored
        bad.fields["title"] = .string("second")
        bad.fields["tags"] = .list([.string("a"), .int64(1)])
        for policy in WireSavePolicy.allCases {
            guard case .failure(let error) = try await save(bad, policy: policy) else { return XCTFail("saved under \(policy)") }
            XCTAssertEqual(error.code, .invalidArguments)
        }
        let after = try await lookUp("kept").get()
        XCTAssertEqual(after.fields, ["title": .string("first")])
        XCTAssertEqual(after.changeTag, stored.changeTag)
    }

    func testOneBadValueFailsOnlyItsRecordInANonAtomicBatch() async throws {
        let response = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database),
            saves: [
                WireRecordSave(record: record("good", fields: ["n": .int64(1)])),
                WireRecordSave(record: record("bad", fields: ["grid": .list([.list([])])])),
            ],
            isAtomic: false
        ))
        XCTAssertNotNil(try? response.saveResults[0].result.get())
        XCTAssertEqual((try? response.saveResults[1].result.get()) == nil, true)
        let good = try await lookUp("good")
        XCTAssertNotNil(try? good.get())
        let bad = try await lookUp("bad")
        XCTAssertNil(try? bad.get())
    }

    // MARK: - Through the client

    func testTheClientRefusesTheSameValuesWithoutARequest() async throws {
        let records: [CKRecord] = (0..<5).map { CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "c\($0)")) }
        records[0]["when"] = Date(timeIntervalSinceReferenceDate: .nan)
        records[1]["grid"] = [[1, 2], [3]]
        records[2]["mixed"] = [1, "one"] as NSArray
        records[3].encryptedValues["link"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "target"), action: .none)
        records[4].encryptedValues["photo"] = CKAsset(fileURL: URL(fileURLWithPath: "/tmp/photo.jpg"))
        for record in records {
            await assertThrowsCKError(.invalidArguments) { try await self.database.save(record) }
        }
        XCTAssertEqual(server.requestCount, 0)
    }

    func testDescribingANaNDateDoesNotCrash() {
        // Foundation's `Date.description` traps on a NaN date; a refusal message or a
        // record's description must never print one that way.
        XCTAssertEqual(WireFieldValue.date(nan).description, "date(nan)")
        XCTAssertEqual(WireFieldValue.list([.date(nan)]).description, "[date(nan)]")
        let error = WireValidation.checkRecordToSave(WireRecordSave(record: record("r", fields: ["when": .date(nan)])))
        XCTAssertEqual(error?.message.contains("not finite"), true)
    }

    func testWireValidationNamesTheRecordAndTheField() {
        let bad = WireRecordSave(record: record("r", fields: ["grid": .list([.list([])])]))
        let error = WireValidation.checkRecordToSave(bad)
        XCTAssertEqual(error?.code, .invalidArguments)
        XCTAssertEqual(error?.message.contains("field 'grid' of record 'r'"), true, error?.message ?? "")
        XCTAssertNil(WireValidation.checkFieldValue(.list([]), forKey: "empty", encrypted: true, of: WireRecordID(recordName: "r")))
        XCTAssertNil(WireValidation.checkFieldValue(.list([.double(1), .double(2)]), forKey: "ok", encrypted: true, of: WireRecordID(recordName: "r")))
    }

    func testARecordBreakingSeveralRulesGetsTheErrorOfTheFirstKeyInKeyOrder() {
        // Keys before values, each group in key order, whatever order the dictionary keeps.
        var fields: [String: WireFieldValue] = ["b_bad": .double(.nan), "a_bad": .double(.infinity)]
        for index in 0..<40 { fields["key\(index)"] = .int64(Int64(index)) }
        let values = WireValidation.checkRecordToSave(WireRecordSave(record: record("r", fields: fields)))
        XCTAssertEqual(values?.message.contains("field 'a_bad'"), true, values?.message ?? "")
        fields["9key"] = .int64(1)
        fields["8key"] = .int64(1)
        let keys = WireValidation.checkRecordToSave(WireRecordSave(record: record("r", fields: fields)))
        XCTAssertEqual(keys?.message.contains("field key '8key'"), true, keys?.message ?? "")
        fields["recordName"] = .int64(1)
        let reserved = WireValidation.checkRecordToSave(WireRecordSave(record: record("r", fields: fields)))
        XCTAssertEqual(reserved?.message.contains("field key '8key'"), true, "an invalid key sorts before a reserved one")
    }

    func testEverySystemFieldNameIsRefusedAsAKeyAndNearMissesAreNot() {
        for key in WireValidation.reservedFieldKeys {
            XCTAssertEqual(WireValidation.checkFieldKey(key)?.message.contains("system field"), true, key)
        }
        for key in ["recordIDs", "Parent", "shares", "share_", "allToken", "creationdate", "s", String(repeating: "a", count: 255)] {
            XCTAssertNil(WireValidation.checkFieldKey(key), key)
        }
        XCTAssertNotNil(WireValidation.checkFieldKey(String(repeating: "a", count: 256)))
    }
}
