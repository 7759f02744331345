import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/acceptShares(_:)``
    ///
    /// Each URL is accepted on its own, in order. The share is found as for
    /// ``lookupShareMetadata(_:)``, and the requesting user's part in it decided by
    /// ``ShareStanding``:
    /// - an invited user who has not accepted becomes `accepted` (an invitation by address
    ///   takes the user's user record name, so the share names them from then on);
    /// - a visitor of a share open to the public joins as a `publicUser`, `accepted`, with the
    ///   public permission (`tooManyParticipants` when the share already lists the most
    ///   participants a share may have);
    /// - an accepted participant, and the owner, change nothing and get the share;
    /// - an outsider is refused with `participantMayNeedVerification`.
    ///
    /// A change is a write of the share record by the server, in the owner's zone, through the
    /// one write path: a new change tag and modification date, the accepting user as last
    /// modifier, an entry in the zone's change history, the bytes charged to the owner's
    /// storage (`quotaExceeded` when the owner's quota has no room for them). It is published as
    /// every write is (``perform(_:locking:held:_:)``): first in the shared databases of the
    /// zone's participants (``noteSharedAudience(owner:before:after:changes:stores:container:originator:)``),
    /// where the zone appears in the accepting user's shared database and is changed in the
    /// shared database of everyone whose shares cover the share record, and their
    /// subscriptions there fire; then the owner's subscriptions fire.
    /// (CloudKit documents neither detail; these are what a participant's
    /// `CKFetchDatabaseChangesOperation` and `CKDatabaseSubscription` need to see the zone
    /// appear and its share change.)
    public func acceptShares(_ request: WireAcceptSharesRequest) async throws(WireError) -> WireAcceptSharesResponse {
        let scope = try await begin(request.context, .acceptShares)
        let account = try scope.requireAccount().account
        try Self.checkItemCount(request.ids.count, of: "share URLs")
        var results: [WireItemResult<String, WireRecord>] = []
        results.reserveCapacity(request.ids.count)
        for url in request.ids {
            results.append(WireItemResult(id: url, result: accept(url, account: account, scope: scope, operationID: request.context.operationID)))
        }
        return WireAcceptSharesResponse(results: results)
    }
}
