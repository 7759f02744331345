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
        var position: UInt64 = 0
        if let bytes = request.sinceToken {
            let token = try ChangeToken.open(bytes, key: sealingKey)
            guard token.subject == .notifications,
                  token.containerIdentifier.hasSameUTF8Bytes(as: scope.container.identifier),
                  token.userRecordName.map({ $0.hasSameUTF8Bytes(as: user) }) == true else {
                throw WireError(.invalidArguments, "the change token does not belong to this account's notification collection in this container")
            }
            position = token.position
        }
        guard request.resultsLimit >= 0 else {
            throw WireError(.invalidArguments, "resultsLimit is \(request.resultsLimit); it cannot be negative")
        }
        let limit = request.resultsLimit > 0 ? min(request.resultsLimit, Self.defaultChangesLimit) : Self.defaultChangesLimit
        // Read the page under the lock: a copy of the collection taken out of it would make
        // the next notification copy the whole collection again.
        let page = scope.container.notifications.withLock { collections -> (notifications: [WireNotification], position: UInt64, moreComing: Bool)? in
            guard let collection = collections[user] else { return ([], position, false) }
            if request.sinceToken != nil, position < collection.historyFloor { return nil }
            let (notifications, last, moreComing) = collection.changes(after: position, limit: limit)
            return (notifications, last ?? max(position, collection.lastSequence), moreComing)
        }
        guard let page else {
            throw WireError(.changeTokenExpired, "the change token is older than the notifications the server keeps; fetch from a nil token")
        }
        let token = ChangeToken(
            containerIdentifier: scope.container.identifier, database: .private, userRecordName: user,
            subject: .notifications, position: page.position
        )
        return WireNotificationChangesResponse(notifications: page.notifications, token: token.sealed(with: sealingKey), moreComing: page.moreComing)
    }

    /// - SeeAlso: ``CloudService/markNotificationsRead(_:)``
    ///
    /// A notification marked read moves to the end of the collection as a read entry, which
    /// every device of the account then fetches once; marking a read notification again
    /// succeeds and changes nothing. An ID named twice is marked once and succeeds twice.
    public func markNotificationsRead(_ request: WireMarkNotificationsReadRequest) async throws(WireError) -> WireMarkNotificationsReadResponse {
        let scope = try await begin(request.context, .markNotificationsRead)
        let user = try scope.requireAccount().userRecordName
        guard request.notificationIDs.count <= WireLimits.maximumItemsPerRequest else {
            throw WireError(.limitExceeded, "\(request.notificationIDs.count) notification IDs in one request; at most \(WireLimits.maximumItemsPerRequest) are allowed")
        }
        let results = scope.container.notifications.withLock { collections in
            request.notificationIDs.map { notificationID -> WireItemResult<String, Void> in
                guard collections[user]?.markRead(notificationID) == true else {
                    return WireItemResult(id: notificationID, result: .failure(WireError(.unknownItem, "notification '\(notificationID.prefix(80))' does not exist for this account")))
                }
                return WireItemResult(id: notificationID, result: .success(()))
            }
        }
        return WireMarkNotificationsReadResponse(results: results)
    }

    /// - SeeAlso: ``CloudService/modifyBadge(_:)``
    public func modifyBadge(_ request: WireModifyBadgeRequest) async throws(WireError) {
        let scope = try await begin(request.context, .modifyBadge)
        let user = try scope.requireAccount().userRecordName
        guard request.badgeValue >= 0 else {
            throw WireError(.invalidArguments, "badge value \(request.badgeValue) is negative; use 0 to clear the badge")
        }
        scope.container.notifications.withLock { $0[user, default: NotificationCollection()].badge = request.badgeValue }
    }
}
