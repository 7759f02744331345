// Requests and responses of sharing. CloudKit Web Services has no endpoint that turns lookup
// infos into share participants; the request is shaped like its `users/lookup/*` family.

/// Turns lookup infos (email addresses, phone numbers, user record IDs) into new share
/// participants, one per lookup info (`CKFetchShareParticipantsOperation`).
///
/// Unlike user discovery, the people looked up need not have granted `userDiscoverability`:
/// inviting someone to a share needs no opt-in.
public struct WireShareParticipantsLookupRequest: Hashable, Sendable {
    /// Where the request goes and who sends it.
    public var context: WireRequestContext
    /// The people to make participants of, each named by exactly one of an email address, a
    /// phone number or a user record ID.
    public var lookupInfos: [WireUserLookupInfo]

    /// Creates a request.
    public init(context: WireRequestContext, lookupInfos: [WireUserLookupInfo]) {
        self.context = context
        self.lookupInfos = lookupInfos
    }
}

/// The answer to a ``WireShareParticipantsLookupRequest``.
public struct WireShareParticipantsLookupResponse: Sendable {
    /// One outcome per lookup info, in the request's order: a new participant (role
    /// `privateUser`, status `pending`, permission `readOnly`), or why the lookup info cannot
    /// name anyone (`invalidArguments`).
    public var results: [WireItemResult<WireUserLookupInfo, WireShareParticipant>]

    /// Creates a response.
    public init(results: [WireItemResult<WireUserLookupInfo, WireShareParticipant>]) {
        self.results = results
    }
}

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

/// The answer to a ``WireShareMetadataLookupRequest``.
public struct WireShareMetadataLookupResponse: Sendable {
    /// One outcome per URL, in the request's order: the share's metadata as the requesting
    /// user sees it, or why the user cannot have it (`unknownItem`,
    /// `participantMayNeedVerification`).
    public var results: [WireItemResult<String, WireShareMetadata>]

    /// Creates a response.
    public init(results: [WireItemResult<String, WireShareMetadata>]) {
        self.results = results
    }
}

/// `records/accept`: accepts shares on behalf of the requesting user (`CKAcceptSharesOperation`).
///
/// CloudKit Web Services names a share by the short GUID at the end of its URL; the request
/// carries the whole URLs, which every `CKShare.Metadata` holds in its share.
public struct WireAcceptSharesRequest: Hashable, Sendable {
    /// Where the request goes and who sends it; the shares may belong to any container of the
    /// service, as for ``WireShareMetadataLookupRequest``.
    public var context: WireRequestContext
    /// The URLs of the shares to accept, in the order the results come back.
    public var shareURLs: [String]

    /// Creates a request.
    public init(context: WireRequestContext, shareURLs: [String]) {
        self.context = context
        self.shareURLs = shareURLs
    }
}

/// The answer to a ``WireAcceptSharesRequest``.
public struct WireAcceptSharesResponse: Sendable {
    /// One outcome per URL, in the request's order: the share record as the requesting user
    /// sees it once accepted, or why it cannot be accepted (`unknownItem`,
    /// `participantMayNeedVerification`, `tooManyParticipants`).
    public var results: [WireItemResult<String, WireRecord>]

    /// Creates a response.
    public init(results: [WireItemResult<String, WireRecord>]) {
        self.results = results
    }
}
