import Stratus
import XCTest

// CloudKit spellings that compiling real CloudKit code against Stratus found missing or
// warning: each is written as Apple's documentation and samples write it.

final class APIGapSnippetsTests: XCTestCase {
    private var server: CloudServer!
    private var container: CKContainer!

    override func setUp() {
        super.setUp()
        server = CloudServer(clock: ManualClock())
        container = server.container(identifier: "iCloud.com.example.clowns", account: "john")
    }

    override func tearDown() {
        container = nil
        server = nil
        super.tearDown()
    }

    /// The async methods CloudKit imports from Objective-C are `@discardableResult`: ignoring
    /// what they return draws no warning.
    func testResultsOfTheImportedAsyncMethodsMayBeIgnored() async throws {
        let database = container.privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Parties")
        let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "bash", zoneID: zone.zoneID))
        try await database.save(zone)
        try await database.recordZone(for: zone.zoneID)
        try await database.allRecordZones()
        try await database.save(record)
        try await database.record(for: record.recordID)
        try await database.deleteRecord(withID: record.recordID)
        try await database.deleteRecordZone(withID: zone.zoneID)
        try await container.accountStatus()
        try await container.userRecordID()
        XCTAssertEqual(server.requestCount, 8)
    }

    /// A `switch` over CloudKit's enums with `@unknown default`, as Apple's samples write it.
    func testSwitchesWithUnknownDefaultBuildWithoutWarnings() async throws {
        let status = try await container.accountStatus()
        let message: String
        switch status {
        case .available: message = "ready"
        case .noAccount: message = "sign in to iCloud"
        case .restricted: message = "restricted"
        case .couldNotDetermine: message = "unknown"
        case .temporarilyUnavailable: message = "try again later"
        @unknown default: message = "unknown"
        }
        XCTAssertEqual(message, "ready")

        let scope: String
        switch container.privateCloudDatabase.databaseScope {
        case .public: scope = "public"
        case .private: scope = "private"
        case .shared: scope = "shared"
        @unknown default: scope = "unknown"
        }
        XCTAssertEqual(scope, "private")

        func describe(_ action: CKRecord.ReferenceAction, _ policy: CKModifyRecordsOperation.RecordSavePolicy, _ size: CKOperationGroup.TransferSize) -> String {
            let actionName: String
            switch action {
            case .none: actionName = "none"
            case .deleteSelf: actionName = "deleteSelf"
            @unknown default: actionName = "unknown"
            }
            let policyName: String
            switch policy {
            case .ifServerRecordUnchanged: policyName = "ifServerRecordUnchanged"
            case .changedKeys: policyName = "changedKeys"
            case .allKeys: policyName = "allKeys"
            @unknown default: policyName = "unknown"
            }
            let sizeName: String
            switch size {
            case .unknown, .kilobytes: sizeName = "small"
            case .megabytes, .tensOfMegabytes, .hundredsOfMegabytes: sizeName = "medium"
            case .gigabytes, .tensOfGigabytes, .hundredsOfGigabytes: sizeName = "large"
            @unknown default: sizeName = "unknown"
            }
            return "\(actionName) \(policyName) \(sizeName)"
        }
        XCTAssertEqual(describe(.deleteSelf, .changedKeys, .megabytes), "deleteSelf changedKeys medium")

        func advice(_ reason: CKDatabase.DatabaseChange.Deletion.Reason) -> String {
            switch reason {
            case .deleted: return "delete the local copy"
            case .purged: return "delete it and do not upload it again"
            case .encryptedDataReset: return "create the zone again and upload"
            @unknown default: return "delete the local copy"
            }
        }
        XCTAssertEqual(advice(.purged), "delete it and do not upload it again")

        do {
            try await container.privateCloudDatabase.record(for: CKRecord.ID(recordName: "missing"))
            XCTFail("no such record")
        } catch let error as CKError {
            switch error.code {
            case .unknownItem: break
            case .networkFailure, .networkUnavailable, .serviceUnavailable, .requestRateLimited, .zoneBusy:
                XCTFail("not transient")
            default:
                XCTFail("unexpected \(error.code)")
            }
        }
    }

    /// "Improving the performance of your app": a configuration and group for a batch of
    /// convenience calls.
    func testConfiguredWithRunsConvenienceCallsWithTheConfiguration() async throws {
        let configuration = CKOperation.Configuration()
        configuration.qualityOfService = .utility
        let group = CKOperationGroup()
        group.name = "Import"
        let record = CKRecord(recordType: "Party")
        let saved = try await container.privateCloudDatabase.configuredWith(configuration: configuration, group: group) { database in
            try await database.save(record)
        }
        XCTAssertEqual(saved.recordID, record.recordID)
        try await container.configuredWith(configuration: configuration) { container in
            try await container.privateCloudDatabase.record(for: record.recordID)
        }
        XCTAssertEqual(server.requestLog.map(\.context.qualityOfService), [.utility, .utility])
    }

    /// Resuming long-lived operations at launch, as CloudKit's documentation shows.
    func testResumingLongLivedOperationsAtLaunch() async throws {
        let operationIDs = try await container.allLongLivedOperationIDs()
        for operationID in operationIDs {
            if let operation = try await container.longLivedOperation(for: operationID) {
                operation.completionBlock = { print("resumed \(operationID)") }
                container.add(operation)
            }
        }
        XCTAssertEqual(operationIDs, [], "nothing runs in a fresh process")
    }

    /// A record's tokens are the words its token search matches.
    func testAllTokensMatchTheServersTokenSearch() async throws {
        let database = container.privateCloudDatabase
        let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party"))
        record["title"] = "Clowns in the Park"
        record["tags"] = ["Jugglers"]
        try await database.save(record)
        XCTAssertEqual(record.allTokens(), ["clowns", "jugglers", "park"])
        for token in record.allTokens() {
            let query = CKQuery(recordType: "Party", predicate: NSPredicate(format: "self CONTAINS %@", token))
            let (matches, _) = try await database.records(matching: query)
            XCTAssertEqual(matches.map { $0.0.recordName }, ["party"], token)
        }
    }

    /// What record-coding libraries call, and CloudKit's names for a reference's action.
    func testKeyValueCodingAndReferenceActionSpellings() {
        let clown = CKRecord(recordType: "Clown")
        clown["name"] = "Bozo"
        let party = CKRecord.Reference(recordID: CKRecord.ID(recordName: "party"), action: .deleteSelf)
        clown["party"] = party
        XCTAssertEqual(clown.value(forKeyPath: "name") as? String, "Bozo")
        XCTAssertEqual((clown.value(forKeyPath: "party") as? CKRecord.Reference)?.referenceAction, .deleteSelf)
    }

    /// Archiving an operation group, to carry one user action across launches.
    func testOperationGroupsArchive() throws {
        let group = CKOperationGroup()
        group.name = "Import"
        group.quantity = 3
        let data = try NSKeyedArchiver.archivedData(withRootObject: group, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKOperationGroup.self, from: data))
        XCTAssertEqual(decoded.operationGroupID, group.operationGroupID)
        XCTAssertEqual(decoded.name, "Import")
        XCTAssertEqual(decoded.quantity, 3)
    }
}
