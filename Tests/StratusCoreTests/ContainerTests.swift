import Foundation
import StratusCore
import StratusWire
import XCTest

final class ContainerTests: XCTestCase {
    /// A service that answers nothing; these tests only look at the client objects.
    private struct NoService: CloudService {
        let clock: any CloudClock = ManualClock()
        func accountStatus(_ context: WireRequestContext) async -> WireAccountStatus { .noAccount }
        func currentUser(_ context: WireRequestContext) async throws(WireError) -> WireCurrentUserResponse {
            throw WireError(.notAuthenticated, "no account")
        }
        func lookupRecords(_ request: WireRecordsLookupRequest) async throws(WireError) -> WireRecordsLookupResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func modifyRecords(_ request: WireRecordsModifyRequest) async throws(WireError) -> WireRecordsModifyResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func queryRecords(_ request: WireQueryRequest) async throws(WireError) -> WireQueryResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func listZones(_ context: WireRequestContext) async throws(WireError) -> WireZonesListResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func lookupZones(_ request: WireZonesLookupRequest) async throws(WireError) -> WireZonesLookupResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func modifyZones(_ request: WireZonesModifyRequest) async throws(WireError) -> WireZonesModifyResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func recordChanges(_ request: WireRecordChangesRequest) async throws(WireError) -> WireRecordChangesResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func databaseChanges(_ request: WireDatabaseChangesRequest) async throws(WireError) -> WireDatabaseChangesResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func lookupUsers(_ request: WireUsersLookupRequest) async throws(WireError) -> WireUsersLookupResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func lookupContacts(_ context: WireRequestContext) async throws(WireError) -> WireUsersContactsResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func lookupShareParticipants(_ request: WireShareParticipantsLookupRequest) async throws(WireError) -> WireShareParticipantsLookupResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func lookupShareMetadata(_ request: WireShareMetadataLookupRequest) async throws(WireError) -> WireShareMetadataLookupResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func acceptShares(_ request: WireAcceptSharesRequest) async throws(WireError) -> WireAcceptSharesResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func applicationPermissionStatus(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus {
            throw WireError(.networkUnavailable, "offline")
        }
        func requestApplicationPermission(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus {
            throw WireError(.networkUnavailable, "offline")
        }
        func listSubscriptions(_ context: WireRequestContext) async throws(WireError) -> WireSubscriptionsListResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func lookupSubscriptions(_ request: WireSubscriptionsLookupRequest) async throws(WireError) -> WireSubscriptionsLookupResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func modifySubscriptions(_ request: WireSubscriptionsModifyRequest) async throws(WireError) -> WireSubscriptionsModifyResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func notificationChanges(_ request: WireNotificationChangesRequest) async throws(WireError) -> WireNotificationChangesResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func markNotificationsRead(_ request: WireMarkNotificationsReadRequest) async throws(WireError) -> WireMarkNotificationsReadResponse {
            throw WireError(.networkUnavailable, "offline")
        }
        func modifyBadge(_ request: WireModifyBadgeRequest) async throws(WireError) {
            throw WireError(.networkUnavailable, "offline")
        }
        func registerForPushes(_ context: WireRequestContext, deliver: (@Sendable (WireNotification) -> Void)?) {}
    }

    func testDatabaseWithScopeReturnsTheSameObjectAsTheProperty() {
        let container = CKContainer(identifier: "iCloud.com.example.clowns", service: NoService())
        XCTAssertTrue(container.database(with: .public) === container.publicCloudDatabase)
        XCTAssertTrue(container.database(with: .private) === container.privateCloudDatabase)
        XCTAssertTrue(container.database(with: .shared) === container.sharedCloudDatabase)
        XCTAssertTrue(container.privateCloudDatabase === container.privateCloudDatabase)
        XCTAssertEqual(container.publicCloudDatabase.databaseScope, .public)
        XCTAssertEqual(container.privateCloudDatabase.databaseScope, .private)
        XCTAssertEqual(container.sharedCloudDatabase.databaseScope, .shared)
        XCTAssertEqual(container.containerIdentifier, "iCloud.com.example.clowns")
    }

    func testEachContainerObjectIsItsOwnDevice() async {
        let phone = CKContainer(identifier: "iCloud.com.example.clowns", service: NoService())
        let laptop = CKContainer(identifier: "iCloud.com.example.clowns", service: NoService())
        XCTAssertNotEqual(phone.deviceID, laptop.deviceID)
        phone.device.sessionToken = "session-1"
        let sent = await phone.privateCloudDatabase.requestPath(operationID: "op-1", qualityOfService: .utility).send { _, context in context }
        let context = try? sent.get()
        XCTAssertEqual(context?.containerIdentifier, "iCloud.com.example.clowns")
        XCTAssertEqual(context?.database, .private)
        XCTAssertEqual(context?.deviceID, phone.deviceID)
        XCTAssertEqual(context?.sessionToken, "session-1", "a request carries the session the device has when the request is made")
        XCTAssertEqual(context?.operationID, "op-1")
        XCTAssertEqual(context?.qualityOfService, .utility)
    }
}
