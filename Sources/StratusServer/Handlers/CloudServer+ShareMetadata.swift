import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/lookupShareMetadata(_:)``
    ///
    /// The share is found by its URL (``ShareDirectory``) in any container of the server, the
    /// request's first. The requesting user's part in it is decided by ``ShareStanding``: the
    /// owner, a listed participant (pending or accepted), a visitor of a share open to the
    /// public (`publicUser`, `pending`, the public permission), or an outsider, refused with
    /// `participantMayNeedVerification`. A user who may have the metadata may also have the
    /// root record, before accepting, as CloudKit's apps show it in their invitation screens.
    public func lookupShareMetadata(_ request: WireShareMetadataLookupRequest) async throws(WireError) -> WireShareMetadataLookupResponse {
        let scope = try await begin(request.context, .lookupShareMetadata)
        let account = try scope.requireAccount().account
        try Self.checkItemCount(request.shareURLs.count, of: "share URLs")
        let results = request.shareURLs.map { url in
            WireItemResult(id: url, result: metadata(for: url, account: account, scope: scope, request: request))
        }
        return WireShareMetadataLookupResponse(results: results)
    }

    /// The metadata of the share at `url` for `account`, with its root record when `request`
    /// asks for it.
    private func metadata(for url: String, account: String, scope: RequestScope, request: WireShareMetadataLookupRequest) -> Result<WireShareMetadata, WireError> {
        let answer = withShare(url: url, preferring: scope.container) { location, stored -> Result<WireShareMetadata, WireError> in
            let caller = shareCaller(account: account, in: location.container.identifier)
            let info = stored.record.shareInfo ?? WireShareInfo()
            let standing = ShareStanding(of: caller, in: info, ownerUserRecordName: location.zone.ownerUserRecordName)
            guard let part = standing.part(in: info) else { return .failure(ShareStanding.outsiderError(url: url)) }
            let viewer = shareScope(for: caller, at: location, deviceID: scope.deviceID)

            var record = stored.record
            // An invitee the share lists by address reads as the current user in it.
            if case .participant(let index) = standing, record.shareInfo?.participants[index].identity.userRecordName == nil {
                record.shareInfo?.participants[index].identity.userRecordName = caller.userRecordName
            }
            let share = presentInShare(record, at: location, to: viewer)
            let zoneID = viewer.databaseScope == .private ? location.zone.ownerZoneID : location.zone.sharedZoneID
            // A zone-wide share has no root; a record share has exactly one.
            let isZoneWide = location.shareName.string.hasSameUTF8Bytes(as: WireShareRules.zoneWideShareName)
            let rootName = isZoneWide ? nil : location.store.shareHolders[location.shareName]?.min()
            var rootRecord: WireRecord?
            if request.shouldFetchRootRecord, let rootName, let root = location.store.records[rootName] {
                rootRecord = presentInShare(root.record, at: location, to: viewer, desiredKeys: request.rootRecordDesiredKeys)
            }
            let ownerIdentity = share.shareInfo?.participants.first { $0.role == .owner }?.identity ?? WireUserIdentity(
                userRecordName: location.zone.ownerUserRecordName,
                lookupInfo: WireUserLookupInfo(userRecordID: WireRecordID(recordName: location.zone.ownerUserRecordName)),
                nameComponents: nil
            )
            return .success(WireShareMetadata(
                containerIdentifier: location.container.identifier,
                share: share,
                hierarchicalRootRecordID: rootName.map { WireRecordID(recordName: $0.string, zoneID: zoneID) },
                rootRecord: rootRecord,
                participantRole: part.role,
                participantStatus: part.status,
                participantPermission: part.permission,
                ownerIdentity: ownerIdentity
            ))
        }
        return answer ?? .failure(WireError(.unknownItem, "no share has the URL \(url)"))
    }
}
