import Foundation

/// A service that passes every request and response through the one JSON encoding on its way to
/// and from the service it wraps, as a network transport does, without the network: requests
/// are encoded (their context apart, as HTTP carries it in the URL and the credentials) and
/// decoded, the wrapped service answers, and its answer or error is encoded and decoded again.
///
/// So nothing that crosses can be shared: every value is made anew from JSON on each side.
/// `STRATUS_WIRE=json swift test` runs Stratus's whole test suite through it.
///
/// ```swift
/// let container = CKContainer(identifier: "iCloud.com.example.clowns", service: JSONWireService(wrapping: server))
/// ```
public struct JSONWireService: CloudService {
    /// The service every request reaches once it has crossed as JSON.
    public let wrapped: any CloudService

    /// A service that sends every request, as JSON, to `service`.
    public init(wrapping service: any CloudService) {
        wrapped = service
    }

    /// Sends `request` across: its body and its context each as JSON, then the answer (or the
    /// error) back as JSON.
    private func relay<Request: Codable, Response: Codable>(
        _ request: Request,
        context: WireRequestContext,
        _ call: (Request) async throws(WireError) -> Response
    ) async throws(WireError) -> Response {
        let crossed = try crossRequest(request, context: context)
        return try await answer { () async throws(WireError) in try await call(crossed) }
    }

    /// Sends a request that is its context alone across, then the answer back.
    private func relay<Response: Codable>(
        _ context: WireRequestContext,
        _ call: (WireRequestContext) async throws(WireError) -> Response
    ) async throws(WireError) -> Response {
        let crossed = try cross(context)
        return try await answer { () async throws(WireError) in try await call(crossed) }
    }

    /// The wrapped service's answer to a request that has crossed, or its error, made anew
    /// from JSON.
    private func answer<Response: Codable>(_ call: () async throws(WireError) -> Response) async throws(WireError) -> Response {
        let response: Response
        do {
            response = try await call()
        } catch {
            throw try cross(error)
        }
        return try cross(response)
    }

    /// A request made anew from its body's JSON, under its context made anew from its own.
    private func crossRequest<Request: Codable>(_ request: Request, context: WireRequestContext) throws(WireError) -> Request {
        try WireJSON.decode(Request.self, from: try WireJSON.encode(request), context: try cross(context))
    }

    /// A value made anew from its JSON.
    private func cross<Value: Codable>(_ value: Value) throws(WireError) -> Value {
        try WireJSON.decode(Value.self, from: try WireJSON.encode(value))
    }

    /// - SeeAlso: ``CloudService/openSession(_:)``
    public func openSession(_ request: WireSessionRequest) async throws(WireError) -> WireSession {
        let crossed = try cross(request)
        return try await answer { () async throws(WireError) in try await wrapped.openSession(crossed) }
    }

    /// - SeeAlso: ``CloudService/closeSession(deviceID:)``
    public func closeSession(deviceID: String) async {
        guard let crossed = try? cross(["deviceID": deviceID])["deviceID"] else { return }
        await wrapped.closeSession(deviceID: crossed)
    }

    /// - SeeAlso: ``CloudService/accountStatus(_:)``
    public func accountStatus(_ context: WireRequestContext) async -> WireAccountStatus {
        guard let crossed = try? cross(context) else { return .couldNotDetermine }
        let status = await wrapped.accountStatus(crossed)
        return (try? cross(status)) ?? .couldNotDetermine
    }

    /// - SeeAlso: ``CloudService/currentUser(_:)``
    public func currentUser(_ context: WireRequestContext) async throws(WireError) -> WireCurrentUserResponse {
        try await relay(context) { (context) async throws(WireError) in try await wrapped.currentUser(context) }
    }

    /// - SeeAlso: ``CloudService/lookupRecords(_:)``
    public func lookupRecords(_ request: WireRecordsLookupRequest) async throws(WireError) -> WireRecordsLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupRecords(request) }
    }

    /// - SeeAlso: ``CloudService/modifyRecords(_:)``
    public func modifyRecords(_ request: WireRecordsModifyRequest) async throws(WireError) -> WireRecordsModifyResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.modifyRecords(request) }
    }

    /// - SeeAlso: ``CloudService/uploadAssets(_:)``
    public func uploadAssets(_ request: WireAssetsUploadRequest) async throws(WireError) -> WireAssetsUploadResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.uploadAssets(request) }
    }

    /// - SeeAlso: ``CloudService/uploadAssetFile(_:)``
    public func uploadAssetFile(_ request: WireAssetFileUploadRequest) async throws(WireError) -> WireAssetFileUploadResponse {
        let crossed = try cross(request)
        return try await answer { () async throws(WireError) in try await wrapped.uploadAssetFile(crossed) }
    }

    /// - SeeAlso: ``CloudService/downloadAssetFile(_:)``
    public func downloadAssetFile(_ request: WireAssetFileDownloadRequest) async throws(WireError) -> WireAssetFileDownloadResponse {
        let crossed = try cross(request)
        return try await answer { () async throws(WireError) in try await wrapped.downloadAssetFile(crossed) }
    }

    /// - SeeAlso: ``CloudService/queryRecords(_:)``
    public func queryRecords(_ request: WireQueryRequest) async throws(WireError) -> WireQueryResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.queryRecords(request) }
    }

    /// - SeeAlso: ``CloudService/listZones(_:)``
    public func listZones(_ context: WireRequestContext) async throws(WireError) -> WireZonesListResponse {
        try await relay(context) { (context) async throws(WireError) in try await wrapped.listZones(context) }
    }

    /// - SeeAlso: ``CloudService/lookupZones(_:)``
    public func lookupZones(_ request: WireZonesLookupRequest) async throws(WireError) -> WireZonesLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupZones(request) }
    }

    /// - SeeAlso: ``CloudService/modifyZones(_:)``
    public func modifyZones(_ request: WireZonesModifyRequest) async throws(WireError) -> WireZonesModifyResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.modifyZones(request) }
    }

    /// - SeeAlso: ``CloudService/recordChanges(_:)``
    public func recordChanges(_ request: WireRecordChangesRequest) async throws(WireError) -> WireRecordChangesResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.recordChanges(request) }
    }

    /// - SeeAlso: ``CloudService/databaseChanges(_:)``
    public func databaseChanges(_ request: WireDatabaseChangesRequest) async throws(WireError) -> WireDatabaseChangesResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.databaseChanges(request) }
    }

    /// - SeeAlso: ``CloudService/lookupUsers(_:)``
    public func lookupUsers(_ request: WireUsersLookupRequest) async throws(WireError) -> WireUsersLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupUsers(request) }
    }

    /// - SeeAlso: ``CloudService/lookupContacts(_:)``
    public func lookupContacts(_ context: WireRequestContext) async throws(WireError) -> WireUsersContactsResponse {
        try await relay(context) { (context) async throws(WireError) in try await wrapped.lookupContacts(context) }
    }

    /// - SeeAlso: ``CloudService/lookupShareParticipants(_:)``
    public func lookupShareParticipants(_ request: WireShareParticipantsLookupRequest) async throws(WireError) -> WireShareParticipantsLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupShareParticipants(request) }
    }

    /// - SeeAlso: ``CloudService/lookupShareMetadata(_:)``
    public func lookupShareMetadata(_ request: WireShareMetadataLookupRequest) async throws(WireError) -> WireShareMetadataLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupShareMetadata(request) }
    }

    /// - SeeAlso: ``CloudService/acceptShares(_:)``
    public func acceptShares(_ request: WireAcceptSharesRequest) async throws(WireError) -> WireAcceptSharesResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.acceptShares(request) }
    }

    /// - SeeAlso: ``CloudService/applicationPermissionStatus(_:)``
    public func applicationPermissionStatus(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.applicationPermissionStatus(request) }
    }

    /// - SeeAlso: ``CloudService/requestApplicationPermission(_:)``
    public func requestApplicationPermission(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.requestApplicationPermission(request) }
    }

    /// - SeeAlso: ``CloudService/listSubscriptions(_:)``
    public func listSubscriptions(_ context: WireRequestContext) async throws(WireError) -> WireSubscriptionsListResponse {
        try await relay(context) { (context) async throws(WireError) in try await wrapped.listSubscriptions(context) }
    }

    /// - SeeAlso: ``CloudService/lookupSubscriptions(_:)``
    public func lookupSubscriptions(_ request: WireSubscriptionsLookupRequest) async throws(WireError) -> WireSubscriptionsLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupSubscriptions(request) }
    }

    /// - SeeAlso: ``CloudService/modifySubscriptions(_:)``
    public func modifySubscriptions(_ request: WireSubscriptionsModifyRequest) async throws(WireError) -> WireSubscriptionsModifyResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.modifySubscriptions(request) }
    }

    /// - SeeAlso: ``CloudService/notificationChanges(_:)``
    public func notificationChanges(_ request: WireNotificationChangesRequest) async throws(WireError) -> WireNotificationChangesResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.notificationChanges(request) }
    }

    /// - SeeAlso: ``CloudService/markNotificationsRead(_:)``
    public func markNotificationsRead(_ request: WireMarkNotificationsReadRequest) async throws(WireError) -> WireMarkNotificationsReadResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.markNotificationsRead(request) }
    }

    /// - SeeAlso: ``CloudService/modifyBadge(_:)``
    public func modifyBadge(_ request: WireModifyBadgeRequest) async throws(WireError) {
        let _: JSONEmpty = try await relay(request, context: request.context) { (request) async throws(WireError) in
            try await wrapped.modifyBadge(request)
            return JSONEmpty()
        }
    }

    /// - SeeAlso: ``CloudService/registerForPushes(_:registered:)``
    public func registerForPushes(_ context: WireRequestContext, registered: Bool) {
        guard let crossed = try? cross(context) else { return }
        wrapped.registerForPushes(crossed, registered: registered)
    }

    /// - SeeAlso: ``CloudService/pollPushes(_:)``
    public func pollPushes(_ request: WirePushPollRequest) async -> WirePushPollResponse {
        guard let crossed = try? crossRequest(request, context: request.context) else { return WirePushPollResponse(delivery: nil) }
        let response = await wrapped.pollPushes(crossed)
        return (try? cross(response)) ?? WirePushPollResponse(delivery: nil)
    }
}

/// An answer with nothing in it: `{}`.
private struct JSONEmpty: Codable {}
