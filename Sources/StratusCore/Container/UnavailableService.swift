import StratusWire

/// The service of a default container when no default service is linked in (a program built
/// on the client modules alone, without the embedded wiring of `import Stratus`): every
/// request fails with `badContainer`, saying so, and the device has no account.
package struct UnavailableService: CloudService {
    private var error: WireError {
        WireError(.badContainer, "no default service: import Stratus for the embedded server, or make the container with CKContainer(identifier:service:)")
    }

    package init() {}

    package func openSession(_ request: WireSessionRequest) async throws(WireError) -> WireSession { throw error }
    package func closeSession(deviceID: String) async {}
    package func accountStatus(_ context: WireRequestContext) async -> WireAccountStatus { .couldNotDetermine }
    package func currentUser(_ context: WireRequestContext) async throws(WireError) -> WireCurrentUserResponse { throw error }
    package func lookupRecords(_ request: WireRecordsLookupRequest) async throws(WireError) -> WireRecordsLookupResponse { throw error }
    package func modifyRecords(_ request: WireRecordsModifyRequest) async throws(WireError) -> WireRecordsModifyResponse { throw error }
    package func uploadAssets(_ request: WireAssetsUploadRequest) async throws(WireError) -> WireAssetsUploadResponse { throw error }
    package func uploadAssetFile(_ request: WireAssetFileUploadRequest) async throws(WireError) -> WireAssetFileUploadResponse { throw error }
    package func downloadAssetFile(_ request: WireAssetFileDownloadRequest) async throws(WireError) -> WireAssetFileDownloadResponse { throw error }
    package func queryRecords(_ request: WireQueryRequest) async throws(WireError) -> WireQueryResponse { throw error }
    package func listZones(_ context: WireRequestContext) async throws(WireError) -> WireZonesListResponse { throw error }
    package func lookupZones(_ request: WireZonesLookupRequest) async throws(WireError) -> WireZonesLookupResponse { throw error }
    package func modifyZones(_ request: WireZonesModifyRequest) async throws(WireError) -> WireZonesModifyResponse { throw error }
    package func recordChanges(_ request: WireRecordChangesRequest) async throws(WireError) -> WireRecordChangesResponse { throw error }
    package func databaseChanges(_ request: WireDatabaseChangesRequest) async throws(WireError) -> WireDatabaseChangesResponse { throw error }
    package func lookupUsers(_ request: WireUsersLookupRequest) async throws(WireError) -> WireUsersLookupResponse { throw error }
    package func lookupContacts(_ context: WireRequestContext) async throws(WireError) -> WireUsersContactsResponse { throw error }
    package func lookupShareParticipants(_ request: WireShareParticipantsLookupRequest) async throws(WireError) -> WireShareParticipantsLookupResponse { throw error }
    package func lookupShareMetadata(_ request: WireShareMetadataLookupRequest) async throws(WireError) -> WireShareMetadataLookupResponse { throw error }
    package func acceptShares(_ request: WireAcceptSharesRequest) async throws(WireError) -> WireAcceptSharesResponse { throw error }
    package func applicationPermissionStatus(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus { throw error }
    package func requestApplicationPermission(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus { throw error }
    package func listSubscriptions(_ context: WireRequestContext) async throws(WireError) -> WireSubscriptionsListResponse { throw error }
    package func lookupSubscriptions(_ request: WireSubscriptionsLookupRequest) async throws(WireError) -> WireSubscriptionsLookupResponse { throw error }
    package func modifySubscriptions(_ request: WireSubscriptionsModifyRequest) async throws(WireError) -> WireSubscriptionsModifyResponse { throw error }
    package func notificationChanges(_ request: WireNotificationChangesRequest) async throws(WireError) -> WireNotificationChangesResponse { throw error }
    package func markNotificationsRead(_ request: WireMarkNotificationsReadRequest) async throws(WireError) -> WireMarkNotificationsReadResponse { throw error }
    package func modifyBadge(_ request: WireModifyBadgeRequest) async throws(WireError) { throw error }
    package func registerForPushes(_ context: WireRequestContext, registered: Bool) {}
    package func pollPushes(_ request: WirePushPollRequest) async -> WirePushPollResponse { WirePushPollResponse(delivery: nil) }
}
