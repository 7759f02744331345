import StratusWire
import XCTest

/// The HTTP routes of `CloudService`: CloudKit Web Services' methods and paths (the reference's
/// endpoint map, §0 and §1.2), Stratus's extensions beside them, paths that go there and back,
/// and every malformed path refused with the error CKWS would answer.
final class WireRouteTests: XCTestCase {
    /// Every route as the reference writes it: a change to any of them changes what the
    /// transport sends and what the server serves.
    func testEveryRouteHasTheMethodAndPathOfTheReference() {
        let expected = [
            "POST /device/1/{container}/{environment}/session/open",
            "POST /device/1/{container}/{environment}/session/close",
            "POST /device/1/{container}/{environment}/pushes/register",
            "POST /device/1/{container}/{environment}/pushes/poll",
            "GET /database/1/{container}/{environment}/public/users/accountStatus",
            "GET /database/1/{container}/{environment}/public/users/current",
            "POST /database/1/{container}/{environment}/public/users/discover",
            "POST /database/1/{container}/{environment}/public/users/lookup/contacts",
            "POST /database/1/{container}/{environment}/public/users/participants",
            "POST /database/1/{container}/{environment}/public/users/permissions/status",
            "POST /database/1/{container}/{environment}/public/users/permissions/request",
            "POST /database/1/{container}/{environment}/{database}/records/lookup",
            "POST /database/1/{container}/{environment}/{database}/records/modify",
            "POST /database/1/{container}/{environment}/{database}/records/query",
            "POST /database/1/{container}/{environment}/{database}/records/changes",
            "POST /database/1/{container}/{environment}/{database}/assets/upload",
            "POST /database/1/{container}/{environment}/public/records/resolve",
            "POST /database/1/{container}/{environment}/public/records/accept",
            "GET /database/1/{container}/{environment}/{database}/zones/list",
            "POST /database/1/{container}/{environment}/{database}/zones/lookup",
            "POST /database/1/{container}/{environment}/{database}/zones/modify",
            "POST /database/1/{container}/{environment}/{database}/changes/database",
            "GET /database/1/{container}/{environment}/{database}/subscriptions/list",
            "POST /database/1/{container}/{environment}/{database}/subscriptions/lookup",
            "POST /database/1/{container}/{environment}/{database}/subscriptions/modify",
            "POST /database/1/{container}/{environment}/public/notifications/changes",
            "POST /database/1/{container}/{environment}/public/notifications/markRead",
            "POST /database/1/{container}/{environment}/public/notifications/badge",
        ]
        XCTAssertEqual(WireRoute.all.map(\.description), expected)
    }

    /// The routes CKWS has are exactly the reference's; the others are Stratus's own.
    func testOnlyTheReferencesEndpointsAreMarkedAsCloudKitWebServices() {
        let ckws = WireRoute.all.filter(\.isCloudKitWebServices).map(\.subpath)
        XCTAssertEqual(Set(ckws), [
            "users/current", "users/discover", "users/lookup/contacts",
            "records/lookup", "records/modify", "records/query", "records/changes", "assets/upload",
            "records/resolve", "records/accept",
            "zones/list", "zones/lookup", "zones/modify", "changes/database",
            "subscriptions/list", "subscriptions/lookup", "subscriptions/modify",
        ])
    }

    func testAPathForEachRouteLeadsBackToItsRouteContainerEnvironmentAndDatabase() throws {
        let container = "iCloud.com.example.clowns/ü 1"
        for route in WireRoute.all {
            for environment in WireEnvironment.allCases {
                for database in WireDatabaseScope.allCases {
                    let path = route.path(container: container, environment: environment, database: database)
                    XCTAssertFalse(path.contains(" ") || path.contains("ü"), path)
                    let match = try WireRoute.match(method: route.method.rawValue, path: path + "?ckAPIToken=abc")
                    XCTAssertEqual(match.route, route, path)
                    XCTAssertEqual(match.containerIdentifier, container, path)
                    XCTAssertEqual(match.environment, environment, path)
                    let expected = route.service == .device ? .public : (route.fixedDatabase ?? database)
                    XCTAssertEqual(match.database, expected, path)
                }
            }
        }
    }

    func testARecordsLookupPathIsTheOneTheReferenceGives() {
        let path = WireRoute.lookupRecords.path(container: "iCloud.com.example.clowns", environment: .development, database: .private)
        XCTAssertEqual(path, "/database/1/iCloud.com.example.clowns/development/private/records/lookup")
        let tokens = WireRoute.registerForPushes.path(container: "iCloud.com.example.clowns", environment: .production, database: .shared)
        XCTAssertEqual(tokens, "/device/1/iCloud.com.example.clowns/production/pushes/register")
    }

    func testPathsNoRouteHasAreNotFound() {
        let missing = [
            "", "/", "/database", "/database/1/iCloud.a/development/private",
            "/database/1/iCloud.a/development/private/records",
            "/database/1/iCloud.a/development/private/records/lookup/extra",
            "/database/2/iCloud.a/development/private/records/lookup",
            "/databases/1/iCloud.a/development/private/records/lookup",
            "/database/1/iCloud.a/development/everyone/records/lookup",
            "database/1/iCloud.a/development/private/records/lookup",
            "/device/1/iCloud.a/development/private/session/open",
            "/database/1/iCloud.a/development/session/open",
            // A route that fixes `public` exists under no other database.
            "/database/1/iCloud.a/development/private/users/current",
            "/database/1/iCloud.a/development/shared/records/accept",
        ]
        for path in missing {
            XCTAssertEqual(code(of: "POST", path), .unknownItem, path)
            XCTAssertEqual(code(of: "GET", path), .unknownItem, path)
        }
    }

    func testAKnownPathUnderTheWrongMethodNamesTheRightOne() {
        XCTAssertThrowsError(try WireRoute.match(method: "GET", path: "/database/1/iCloud.a/development/private/records/lookup")) { error in
            XCTAssertEqual((error as? WireError)?.code, .invalidArguments)
            XCTAssertTrue((error as? WireError)?.message.contains("takes POST, not GET") == true, "\(error)")
        }
        XCTAssertEqual(code(of: "POST", "/database/1/iCloud.a/development/private/zones/list"), .invalidArguments)
        XCTAssertEqual(code(of: "DELETE", "/database/1/iCloud.a/development/private/records/modify"), .invalidArguments)
    }

    func testMalformedSegmentsAreBadRequests() {
        XCTAssertEqual(code(of: "POST", "/database/1/iCloud.a/staging/private/records/lookup"), .invalidArguments)
        XCTAssertEqual(code(of: "POST", "/database/1//development/private/records/lookup"), .invalidArguments)
        XCTAssertEqual(code(of: "POST", "/database/1/iCloud.%zz/development/private/records/lookup"), .invalidArguments)
    }

    private func code(of method: String, _ path: String) -> CKErrorCode? {
        do {
            _ = try WireRoute.match(method: method, path: path)
            return nil
        } catch {
            return error.code
        }
    }
}
