import StratusWire

extension CloudServer {
    /// The notifications of `user`'s collection in `container` placed since the request's
    /// token, a page at a time (``notificationChanges(_:)``).
    func notificationChanges(_ request: WireNotificationChangesRequest, of user: String, in container: ContainerStore) throws(WireError) -> WireNotificationChangesResponse {
        var position: UInt64 = 0
        if let bytes = request.sinceToken {
            let token = try ChangeToken.open(bytes, key: sealingKey)
            guard token.subject == .notifications,
                  token.containerIdentifier.hasSameUTF8Bytes(as: container.identifier),
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
        let page = container.notifications.withLock { collections -> (notifications: [WireNotification], position: UInt64, moreComing: Bool)? in
            guard let collection = collections[user] else { return ([], position, false) }
            if request.sinceToken != nil, position < collection.historyFloor { return nil }
            let (notifications, last, moreComing) = collection.changes(after: position, limit: limit)
            return (notifications, last ?? max(position, collection.lastSequence), moreComing)
        }
        guard let page else {
            throw WireError(.changeTokenExpired, "the change token is older than the notifications the server keeps; fetch from a nil token")
        }
        let token = ChangeToken(
            containerIdentifier: container.identifier, database: .private, userRecordName: user,
            subject: .notifications, position: page.position
        )
        return WireNotificationChangesResponse(notifications: page.notifications, token: token.sealed(with: sealingKey), moreComing: page.moreComing)
    }
}
