/// The one boundary between the CloudKit client classes and a server.
///
/// Each method is one request, shaped after an endpoint of CloudKit Web Services, so that a
/// network transport can map it onto one HTTP call. Requests and responses are values: a record
/// handed to a service is copied, and every record handed back is new, so the client can never
/// change the server's data through an object it holds.
///
/// Stratus's embedded server, `CloudServer`, implements this protocol in-process.
///
/// - Important: A whole-request failure throws; a failure of one item comes back in that item's
///   result. Implementations never crash on bad input: they answer ``CKErrorCode/invalidArguments``.
public protocol CloudService: Sendable {
    /// `session/open`: signs a device in to an account of a container, or out (a nil
    /// account), and answers the session its requests carry from then on. A request without a
    /// device ID registers a new device. Requests already made under the device's previous
    /// session finish under it; those made with it later fail with
    /// ``CKErrorCode/notAuthenticated``. Costs no request.
    ///
    /// - Throws: ``CKErrorCode/invalidArguments`` for a device the service does not know, an
    ///   empty container identifier or an empty account name.
    func openSession(_ request: WireSessionRequest) async throws(WireError) -> WireSession

    /// `session/close`: forgets a device that went away: its session ends and its pushes stop.
    /// Forgetting a device the service does not know does nothing. Costs no request.
    func closeSession(deviceID: String) async

    /// `users/accountStatus` (a Stratus extension): the account state of the device that sends
    /// `context`. Costs no request.
    func accountStatus(_ context: WireRequestContext) async -> WireAccountStatus

    /// `users/current`: the user record name of the device's account in the container.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account.
    func currentUser(_ context: WireRequestContext) async throws(WireError) -> WireCurrentUserResponse

    /// `records/lookup`: fetches records by ID.
    ///
    /// - Throws: ``CKErrorCode/limitExceeded`` for more than
    ///   ``WireLimits/maximumItemsPerRequest`` record IDs (``WireValidation/checkLookupSize(_:)``).
    func lookupRecords(_ request: WireRecordsLookupRequest) async throws(WireError) -> WireRecordsLookupResponse

    /// `records/modify`: saves and deletes records.
    func modifyRecords(_ request: WireRecordsModifyRequest) async throws(WireError) -> WireRecordsModifyResponse

    /// `assets/upload`: URLs to upload assets' bytes to, one per requested field (and per asset
    /// of a list), valid for ``WireLimits/assetUploadLifetime`` on the service's clock. A token
    /// without a record name gets a new one (a UUID).
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account;
    ///   ``CKErrorCode/limitExceeded`` for more than
    ///   ``WireLimits/maximumAssetUploadTokensPerRequest`` tokens;
    ///   ``CKErrorCode/invalidArguments`` for an invalid zone, record or field name.
    func uploadAssets(_ request: WireAssetsUploadRequest) async throws(WireError) -> WireAssetsUploadResponse

    /// Uploads an asset's bytes to a token's URL (a Stratus extension: CKWS `POST`s the bytes to
    /// the URL) and answers the asset dictionary a save sends. Costs no request.
    ///
    /// - Throws: ``CKErrorCode/invalidArguments`` for a URL the service did not issue, or one
    ///   that expired; ``CKErrorCode/limitExceeded`` for more than
    ///   ``WireLimits/maximumAssetBytes`` bytes.
    func uploadAssetFile(_ request: WireAssetFileUploadRequest) async throws(WireError) -> WireAssetFileUploadResponse

    /// The bytes of a fetched asset, by its download URL (a Stratus extension: CKWS answers a
    /// `GET` of the URL). Costs no request.
    ///
    /// - Throws: ``CKErrorCode/invalidArguments`` for a URL the service did not issue, or one
    ///   that expired; ``CKErrorCode/assetNotAvailable`` when no record holds the bytes any more.
    func downloadAssetFile(_ request: WireAssetFileDownloadRequest) async throws(WireError) -> WireAssetFileDownloadResponse

    /// `records/query`: one page of the records that match a query.
    func queryRecords(_ request: WireQueryRequest) async throws(WireError) -> WireQueryResponse

    /// `zones/list`: every zone of the database.
    func listZones(_ context: WireRequestContext) async throws(WireError) -> WireZonesListResponse

    /// `zones/lookup`: fetches zones by ID.
    func lookupZones(_ request: WireZonesLookupRequest) async throws(WireError) -> WireZonesLookupResponse

    /// `zones/modify`: creates and deletes zones.
    func modifyZones(_ request: WireZonesModifyRequest) async throws(WireError) -> WireZonesModifyResponse

    /// `records/changes`: the records of one zone changed or deleted since a change token.
    ///
    /// - Throws: ``CKErrorCode/badDatabase`` in the public database, ``CKErrorCode/invalidArguments``
    ///   for a zone without `fetchChanges` or a token from elsewhere,
    ///   ``CKErrorCode/changeTokenExpired`` for a token older than the kept history.
    func recordChanges(_ request: WireRecordChangesRequest) async throws(WireError) -> WireRecordChangesResponse

    /// `changes/database`: the zones of a database created, changed or deleted since a change token.
    ///
    /// - Throws: ``CKErrorCode/badDatabase`` in the public database,
    ///   ``CKErrorCode/invalidArguments`` for a token from elsewhere.
    func databaseChanges(_ request: WireDatabaseChangesRequest) async throws(WireError) -> WireDatabaseChangesResponse

    /// `users/discover` (`POST`): the users the lookup infos name, among those who granted `userDiscoverability` in the container. A user who
    /// did not is never revealed: the answer is the same as for an unknown user.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account;
    ///   ``CKErrorCode/invalidArguments`` for a lookup info that does not set exactly one field.
    func lookupUsers(_ request: WireUsersLookupRequest) async throws(WireError) -> WireUsersLookupResponse

    /// `users/lookup/contacts`: the requesting user's contacts who are users of the container
    /// and granted `userDiscoverability` there.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account.
    func lookupContacts(_ context: WireRequestContext) async throws(WireError) -> WireUsersContactsResponse

    /// `users/participants` (a Stratus extension): new share participants for the people the
    /// lookup infos name, found by email address, phone number or user record ID among all of
    /// the server's accounts, whether or not they granted `userDiscoverability` (inviting
    /// someone needs no opt-in). A found user's identity
    /// carries the user record name in the container, and a name only when the user is
    /// discoverable there; a person no account matches still gets a participant, whose identity
    /// has only the lookup info and `hasiCloudAccount == false`. A lookup info that does not set
    /// exactly one field, or sets an empty one, fails alone with ``CKErrorCode/invalidArguments``.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account;
    ///   ``CKErrorCode/limitExceeded`` for more than ``WireLimits/maximumItemsPerRequest``
    ///   lookup infos.
    func lookupShareParticipants(_ request: WireShareParticipantsLookupRequest) async throws(WireError) -> WireShareParticipantsLookupResponse

    /// `records/resolve`: the metadata of the shares the URLs name, as the requesting user
    /// sees them, whatever container of the service each share belongs to. The owner sees
    /// their share as in their private database; anyone else sees it, and its root record when
    /// asked, as in their shared database. A URL no share has fails alone with
    /// ``CKErrorCode/unknownItem``; a share that only invited users may join, and that does not
    /// list the requesting user, with ``CKErrorCode/participantMayNeedVerification``.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account;
    ///   ``CKErrorCode/limitExceeded`` for more than ``WireLimits/maximumItemsPerRequest`` URLs.
    func lookupShareMetadata(_ request: WireShareMetadataLookupRequest) async throws(WireError) -> WireShareMetadataLookupResponse

    /// `records/accept`: accepts the shares the URLs name for the requesting user, who then
    /// finds the owner's zone in their shared database. An invited user's participant becomes
    /// `accepted`; on a share open to the public, anyone else joins as a public user with the
    /// public permission. Accepting again, or accepting one's own share, changes nothing and
    /// answers the share. Per URL, the same errors as ``lookupShareMetadata(_:)``, and
    /// ``CKErrorCode/tooManyParticipants`` when a public share is full.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account;
    ///   ``CKErrorCode/limitExceeded`` for more than ``WireLimits/maximumItemsPerRequest`` URLs.
    func acceptShares(_ request: WireAcceptSharesRequest) async throws(WireError) -> WireAcceptSharesResponse

    /// `users/permissions/status` (a Stratus extension): the requesting user's status for an
    /// application permission in the container.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account.
    func applicationPermissionStatus(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus

    /// `users/permissions/request` (a Stratus extension): asks the requesting user for an
    /// application permission in the container: the user is
    /// asked only the first time; afterwards the answer given stands.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account.
    func requestApplicationPermission(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus

    /// `subscriptions/list`: every subscription the requesting user has in the database.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account.
    func listSubscriptions(_ context: WireRequestContext) async throws(WireError) -> WireSubscriptionsListResponse

    /// `subscriptions/lookup`: fetches the requesting user's subscriptions by ID; an unknown
    /// ID is an ``CKErrorCode/unknownItem`` item error.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account.
    func lookupSubscriptions(_ request: WireSubscriptionsLookupRequest) async throws(WireError) -> WireSubscriptionsLookupResponse

    /// `subscriptions/modify`: saves (creating or replacing) and deletes subscriptions, each
    /// item on its own.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account;
    ///   ``CKErrorCode/limitExceeded`` for more than ``WireLimits/maximumItemsPerRequest``
    ///   items.
    func modifySubscriptions(_ request: WireSubscriptionsModifyRequest) async throws(WireError) -> WireSubscriptionsModifyResponse

    /// `notifications/changes` (a Stratus extension): the requesting account's notification
    /// collection: the notifications added or marked
    /// read since a token.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account;
    ///   ``CKErrorCode/invalidArguments`` for a token from elsewhere;
    ///   ``CKErrorCode/changeTokenExpired`` for a token older than the kept history.
    func notificationChanges(_ request: WireNotificationChangesRequest) async throws(WireError) -> WireNotificationChangesResponse

    /// `notifications/markRead` (a Stratus extension): marks notifications of the requesting
    /// account read, for every device of the account;
    /// an ID the account has no notification for is an ``CKErrorCode/unknownItem`` item error.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account;
    ///   ``CKErrorCode/limitExceeded`` for more than ``WireLimits/maximumItemsPerRequest`` IDs.
    func markNotificationsRead(_ request: WireMarkNotificationsReadRequest) async throws(WireError) -> WireMarkNotificationsReadResponse

    /// `notifications/badge` (a Stratus extension): sets the badge the server keeps for the
    /// requesting account in the container.
    ///
    /// - Throws: ``CKErrorCode/notAuthenticated`` when the device has no usable account;
    ///   ``CKErrorCode/invalidArguments`` for a negative value.
    func modifyBadge(_ request: WireModifyBadgeRequest) async throws(WireError)

    /// `pushes/register` (a Stratus extension; CloudKit Web Services' `tokens/register`):
    /// registers the device that sends `context` for pushes, or unregisters it. Registered,
    /// each push for the account the device is signed in to (and not caused by the device
    /// itself) waits for the device's polls (``pollPushes(_:)``), in order; pushes that came
    /// before registration are not delivered. Unregistering discards what waits and answers the
    /// device's waiting poll with no push. It takes effect before it returns, so a push sent
    /// after it is never missed. Costs no request.
    func registerForPushes(_ context: WireRequestContext, registered: Bool)

    /// `pushes/poll`: the device's next push, waiting until there is one; acknowledges the push
    /// the device handled before (`acknowledging`). A push counts as handled only once
    /// acknowledged, so a test that waits for pushes to settle waits for the device's handler.
    /// Answers no push when the device is not registered, or stops being (and a newer poll of
    /// the same device answers the older one so). Costs no request.
    func pollPushes(_ request: WirePushPollRequest) async -> WirePushPollResponse
}
