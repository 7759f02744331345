import StratusWire

// Changes to an account's notification collection: marking notifications read, setting the
// badge. They change no zone, so they do not go through the write pipeline.

extension CloudServer {
    /// Marks notifications of `user`'s collection in `container` read
    /// (``markNotificationsRead(_:)``).
    func markRead(_ request: WireMarkNotificationsReadRequest, of user: String, in container: ContainerStore) throws(WireError) -> WireMarkNotificationsReadResponse {
        try Self.checkItemCount(request.ids.count, of: "notification IDs")
        let results = container.notifications.withLock { collections in
            request.ids.map { notificationID -> WireItemResult<String, Void> in
                guard collections[user]?.markRead(notificationID) == true else {
                    return WireItemResult(id: notificationID, result: .failure(WireError(.unknownItem, "notification '\(notificationID.prefix(80))' does not exist for this account")))
                }
                return WireItemResult(id: notificationID, result: .success(()))
            }
        }
        return WireMarkNotificationsReadResponse(results: results)
    }

    /// Sets the badge of `user` in `container` (``modifyBadge(_:)``).
    func setBadge(_ request: WireModifyBadgeRequest, of user: String, in container: ContainerStore) throws(WireError) {
        guard request.badgeValue >= 0 else {
            throw WireError(.invalidArguments, "badge value \(request.badgeValue) is negative; use 0 to clear the badge")
        }
        container.notifications.withLock { $0[user, default: NotificationCollection()].badge = request.badgeValue }
    }
}
