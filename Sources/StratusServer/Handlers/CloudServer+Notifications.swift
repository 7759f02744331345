import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/notificationChanges(_:)``
    ///
    /// The collection is the requesting account's in the request's container, whichever
    /// database the request names. Each notification placed after the token comes once, in its
    /// state now (see ``markNotificationsRead(_:)``); the token of a batch follows its last
    /// notification, so an interrupted fetch resumes from any batch's token.
    public func notificationChanges(_ request: WireNotificationChangesRequest) async throws(WireError) -> WireNotificationChangesResponse {
        let scope = try await begin(request.context, .notificationChanges)
        let user = try scope.requireAccount().userRecordName
        return try notificationChanges(request, of: user, in: scope.container)
    }

    /// - SeeAlso: ``CloudService/markNotificationsRead(_:)``
    ///
    /// A notification marked read moves to the end of the collection as a read entry, which
    /// every device of the account then fetches once; marking a read notification again
    /// succeeds and changes nothing. An ID named twice is marked once and succeeds twice.
    public func markNotificationsRead(_ request: WireMarkNotificationsReadRequest) async throws(WireError) -> WireMarkNotificationsReadResponse {
        let scope = try await begin(request.context, .markNotificationsRead)
        let user = try scope.requireAccount().userRecordName
        return try markRead(request, of: user, in: scope.container)
    }

    /// - SeeAlso: ``CloudService/modifyBadge(_:)``
    public func modifyBadge(_ request: WireModifyBadgeRequest) async throws(WireError) {
        let scope = try await begin(request.context, .modifyBadge)
        let user = try scope.requireAccount().userRecordName
        try setBadge(request, of: user, in: scope.container)
    }
}
