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
        let crossed = try WireJSON.decode(Request.self, from: try WireJSON.encode(request), context: try cross(context))
        let response: Response
        do {
            response = try await call(crossed)
        } catch {
            throw try cross(error)
        }
        return try cross(response)
    }

    /// A value made anew from its JSON.
    private func cross<Value: Codable>(_ value: Value) throws(WireError) -> Value {
        try WireJSON.decode(Value.self, from: try WireJSON.encode(value))
    }

    /// A request that is its context alone.
    private func relay<Response: Codable>(
        _ context: WireRequestContext,
        _ call: (WireRequestContext) async throws(WireError) -> Response
    ) async throws(WireError) -> Response {
        let crossed = try cross(context)
        let response: Response
        do {
            response = try await call(crossed)
        } catch {
            throw try cross(error)
        }
        return try cross(response)
    }

    public func openSession(_ request: WireSessionRequest) async throws(WireError) -> WireSession {
        let crossed = try cross(request)
        let session: WireSession
        do {
            session = try await wrapped.openSession(crossed)
        } catch {
            throw try cross(error)
        }
        return try cross(session)
    }

    public func closeSession(deviceID: String) async {
        guard let crossed = try? cross(["deviceID": deviceID])["deviceID"] else { return }
        await wrapped.closeSession(deviceID: crossed)
    }

    public func accountStatus(_ context: WireRequestContext) async -> WireAccountStatus {
        guard let crossed = try? cross(context) else { return .couldNotDetermine }
        let status = await wrapped.accountStatus(crossed)
        return (try? cross(status)) ?? .couldNotDetermine
    }

    public func currentUser(_ context: WireRequestContext) async throws(WireError) -> WireCurrentUserResponse {
        try await relay(context) { (context) async throws(WireError) in try await wrapped.currentUser(context) }
    }

    public func lookupRecords(_ request: WireRecordsLookupRequest) async throws(WireError) -> WireRecordsLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupRecords(request) }
    }

    public func modifyRecords(_ request: WireRecordsModifyRequest) async throws(WireError) -> WireRecordsModifyResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.modifyRecords(request) }
    }

    public func queryRecords(_ request: WireQueryRequest) async throws(WireError) -> WireQueryResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.queryRecords(request) }
    }

    public func listZones(_ context: WireRequestContext) async throws(WireError) -> WireZonesListResponse {
        try await relay(context) { (context) async throws(WireError) in try await wrapped.listZones(context) }
    }

    public func lookupZones(_ request: WireZonesLookupRequest) async throws(WireError) -> WireZonesLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupZones(request) }
    }

    public func modifyZones(_ request: WireZonesModifyRequest) async throws(WireError) -> WireZonesModifyResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.modifyZones(request) }
    }

    public func recordChanges(_ request: WireRecordChangesRequest) async throws(WireError) -> WireRecordChangesResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.recordChanges(request) }
    }

    public func databaseChanges(_ request: WireDatabaseChangesRequest) async throws(WireError) -> WireDatabaseChangesResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.databaseChanges(request) }
    }

    public func lookupUsers(_ request: WireUsersLookupRequest) async throws(WireError) -> WireUsersLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupUsers(request) }
    }

    public func lookupContacts(_ context: WireRequestContext) async throws(WireError) -> WireUsersContactsResponse {
        try await relay(context) { (context) async throws(WireError) in try await wrapped.lookupContacts(context) }
    }

    public func lookupShareParticipants(_ request: WireShareParticipantsLookupRequest) async throws(WireError) -> WireShareParticipantsLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupShareParticipants(request) }
    }

    public func lookupShareMetadata(_ request: WireShareMetadataLookupRequest) async throws(WireError) -> WireShareMetadataLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupShareMetadata(request) }
    }

    public func acceptShares(_ request: WireAcceptSharesRequest) async throws(WireError) -> WireAcceptSharesResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.acceptShares(request) }
    }

    public func applicationPermissionStatus(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.applicationPermissionStatus(request) }
    }

    public func requestApplicationPermission(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.requestApplicationPermission(request) }
    }

    public func listSubscriptions(_ context: WireRequestContext) async throws(WireError) -> WireSubscriptionsListResponse {
        try await relay(context) { (context) async throws(WireError) in try await wrapped.listSubscriptions(context) }
    }

    public func lookupSubscriptions(_ request: WireSubscriptionsLookupRequest) async throws(WireError) -> WireSubscriptionsLookupResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.lookupSubscriptions(request) }
    }

    public func modifySubscriptions(_ request: WireSubscriptionsModifyRequest) async throws(WireError) -> WireSubscriptionsModifyResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.modifySubscriptions(request) }
    }

    public func notificationChanges(_ request: WireNotificationChangesRequest) async throws(WireError) -> WireNotificationChangesResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.notificationChanges(request) }
    }

    public func markNotificationsRead(_ request: WireMarkNotificationsReadRequest) async throws(WireError) -> WireMarkNotificationsReadResponse {
        try await relay(request, context: request.context) { (request) async throws(WireError) in try await wrapped.markNotificationsRead(request) }
    }

    public func modifyBadge(_ request: WireModifyBadgeRequest) async throws(WireError) {
        let _: JSONEmpty = try await relay(request, context: request.context) { (request) async throws(WireError) in
            try await wrapped.modifyBadge(request)
            return JSONEmpty()
        }
    }

    public func registerForPushes(_ context: WireRequestContext, registered: Bool) {
        guard let crossed = try? cross(context) else { return }
        wrapped.registerForPushes(crossed, registered: registered)
    }

    public func pollPushes(_ request: WirePushPollRequest) async -> WirePushPollResponse {
        guard let crossedContext = try? cross(request.context),
              let crossed = try? WireJSON.decode(WirePushPollRequest.self, from: try WireJSON.encode(request), context: crossedContext)
        else { return WirePushPollResponse(delivery: nil) }
        let response = await wrapped.pollPushes(crossed)
        return (try? cross(response)) ?? WirePushPollResponse(delivery: nil)
    }
}

/// An answer with nothing in it: `{}`.
private struct JSONEmpty: Codable {}
