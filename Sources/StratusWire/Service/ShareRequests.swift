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
