// Requests and responses of sharing. CloudKit Web Services has no endpoint that turns lookup
// infos into share participants; the request is shaped like its `users/lookup/*` family.

/// The share participants lookup: lookup infos (email addresses, phone numbers, user record
/// IDs) turned into new share participants (`CKFetchShareParticipantsOperation`).
///
/// Unlike user discovery, the people looked up need not have granted `userDiscoverability`:
/// inviting someone to a share needs no opt-in.
public enum WireShareParticipantsEndpoint: WireItemEndpoint {
    /// A person to make a participant of, named by exactly one of an email address, a phone
    /// number or a user record ID.
    public typealias ID = WireUserLookupInfo
    /// A new participant: role `privateUser`, status `pending`, permission `readOnly`. A lookup
    /// info that cannot name anyone fails with `invalidArguments`.
    public typealias Value = WireShareParticipant
}

/// Turns lookup infos into new share participants, one per lookup info
/// (``WireShareParticipantsEndpoint``).
public typealias WireShareParticipantsLookupRequest = WireItemsRequest<WireShareParticipantsEndpoint>

/// The answer to a ``WireShareParticipantsLookupRequest``: one outcome per lookup info, in the
/// request's order.
public typealias WireShareParticipantsLookupResponse = WireItemsResponse<WireShareParticipantsEndpoint>

/// `records/resolve`: what each share URL tells the requesting user (`CKFetchShareMetadataOperation`).
///
/// CloudKit Web Services names a share by the short GUID at the end of its URL; the request
/// carries the whole URLs, as the client holds them.
public struct WireShareMetadataLookupRequest: Hashable, Sendable {
    /// Where the request goes and who sends it. The shares may belong to any container of the
    /// service, as CloudKit's header allows: an app cannot know a share's container before it
    /// has the share's metadata.
    public var context: WireRequestContext
    /// The share URLs, as `CKShare.url` gives them, in the order the results come back.
    public var shareURLs: [String]
    /// Whether each answer carries the share's root record.
    public var shouldFetchRootRecord: Bool
    /// The root record's field keys to return: nil returns every field, an empty array only
    /// system fields. Read only when ``shouldFetchRootRecord`` is set.
    public var rootRecordDesiredKeys: [String]?

    /// Creates a request.
    public init(context: WireRequestContext, shareURLs: [String], shouldFetchRootRecord: Bool = false, rootRecordDesiredKeys: [String]? = nil) {
        self.context = context
        self.shareURLs = shareURLs
        self.shouldFetchRootRecord = shouldFetchRootRecord
        self.rootRecordDesiredKeys = rootRecordDesiredKeys
    }
}

/// `records/resolve`'s per-item results: shares, named by their URLs.
public enum WireShareMetadataEndpoint: WireItemEndpoint {
    /// A share URL, as `CKShare.url` gives it.
    public typealias ID = String
    /// The share's metadata as the requesting user sees it. A user who cannot have it gets
    /// `unknownItem` or `participantMayNeedVerification`.
    public typealias Value = WireShareMetadata
}

/// The answer to a ``WireShareMetadataLookupRequest``: one outcome per URL, in the request's
/// order.
public typealias WireShareMetadataLookupResponse = WireItemsResponse<WireShareMetadataEndpoint>

/// `records/accept`: accepts shares on behalf of the requesting user (`CKAcceptSharesOperation`).
///
/// CloudKit Web Services names a share by the short GUID at the end of its URL; the request
/// carries the whole URLs, which every `CKShare.Metadata` holds in its share. The shares may
/// belong to any container of the service, as for ``WireShareMetadataLookupRequest``.
public enum WireAcceptSharesEndpoint: WireItemEndpoint {
    /// The URL of a share to accept.
    public typealias ID = String
    /// The share record as the requesting user sees it once accepted. A share that cannot be
    /// accepted fails with `unknownItem`, `participantMayNeedVerification` or
    /// `tooManyParticipants`.
    public typealias Value = WireRecord
}

/// `records/accept`: the URLs of the shares to accept, in the order the results come back
/// (``WireAcceptSharesEndpoint``).
public typealias WireAcceptSharesRequest = WireItemsRequest<WireAcceptSharesEndpoint>

/// The answer to a ``WireAcceptSharesRequest``: one outcome per URL, in the request's order.
public typealias WireAcceptSharesResponse = WireItemsResponse<WireAcceptSharesEndpoint>
