import Stratus
import XCTest

/// `configuredWith(configuration:group:body:)` gives the convenience calls made through the
/// object it hands to `body` that configuration and group, and changes nothing else.
final class ConfiguredWithTests: OperationTestCase {
    private var lastQualityOfService: WireQualityOfService? {
        server.requestLog.last?.context.qualityOfService
    }

    func testConvenienceCallsRunAtUserInitiatedWithoutAConfiguration() async throws {
        try await database.save(note("plain"))
        XCTAssertEqual(lastQualityOfService, .userInitiated)
    }

    func testAConfiguredDatabasesConvenienceCallsUseTheConfiguration() async throws {
        let configuration = CKOperation.Configuration()
        configuration.qualityOfService = .utility
        let record = note("configured")
        let saved = try await database.configuredWith(configuration: configuration) { database in
            try await database.save(record)
        }
        XCTAssertEqual(saved.recordID.recordName, "configured")
        XCTAssertEqual(lastQualityOfService, .utility)

        try await database.record(for: saved.recordID)
        XCTAssertEqual(lastQualityOfService, .userInitiated, "the database configuredWith was called on is unchanged")
    }

    func testTheGroupsDefaultConfigurationFillsInWhatTheConfigurationDoesNotSet() async throws {
        let group = CKOperationGroup()
        group.defaultConfiguration.qualityOfService = .background
        try await database.configuredWith(group: group) { database in
            try await database.allRecordZones()
        }
        XCTAssertEqual(lastQualityOfService, .background)

        let configuration = CKOperation.Configuration()
        configuration.qualityOfService = .utility
        try await database.configuredWith(configuration: configuration, group: group) { database in
            try await database.allRecordZones()
        }
        XCTAssertEqual(lastQualityOfService, .utility, "the configuration wins over the group")
    }

    func testAConfigurationWithoutAQualityOfServiceKeepsUserInitiated() async throws {
        let configuration = CKOperation.Configuration()
        configuration.timeoutIntervalForRequest = 30
        let record = note("timeout-only")
        try await database.configuredWith(configuration: configuration) { database in
            try await database.save(record)
        }
        XCTAssertEqual(lastQualityOfService, .userInitiated)
    }

    func testAConfiguredContainerHandsOutDatabasesThatUseTheConfiguration() async throws {
        let container = server.container(identifier: identifier, account: "john")
        let configuration = CKOperation.Configuration()
        configuration.qualityOfService = .utility
        let configured = container.configuredWith(configuration: configuration) { $0.privateCloudDatabase }
        configuration.qualityOfService = .background

        try await configured.save(note("through-the-container"))
        XCTAssertEqual(lastQualityOfService, .utility, "the configuration is copied when configuredWith is called")
        let fetched = try await container.privateCloudDatabase.record(for: CKRecord.ID(recordName: "through-the-container"))
        XCTAssertEqual(fetched.recordType, "Note", "the configured container is the same container and account")
        XCTAssertEqual(lastQualityOfService, .userInitiated)
    }

    func testTheSynchronousFormReturnsAndRethrowsWhatTheBodyDoes() {
        let scope = database.configuredWith { $0.databaseScope }
        XCTAssertEqual(scope, .private)
        struct Thrown: Error {}
        XCTAssertThrowsError(try database.configuredWith { _ in throw Thrown() }) { XCTAssertTrue($0 is Thrown) }
    }
}
