/// What a share's URL tells the user who opens it (`CKShare.Metadata`'s wire form): the share,
/// what it shares, who owns it, and the user's own part in it.
public struct WireShareMetadata: Hashable, Sendable {
    /// The container the share belongs to.
    public var containerIdentifier: String
    /// The share record, with its ``WireRecord/shareInfo``, as the requesting user may see it.
    public var share: WireRecord
    /// The root record of a shared hierarchy; nil for a zone-wide share, which has none.
    public var hierarchicalRootRecordID: WireRecordID?
    /// The root record itself, when the request asked for it and the share has one.
    public var rootRecord: WireRecord?
    /// The requesting user's role in the share.
    public var participantRole: WireParticipantRole
    /// Whether the requesting user has accepted the share.
    public var participantStatus: WireParticipantAcceptanceStatus
    /// What the requesting user may do with the shared records.
    public var participantPermission: WireParticipantPermission
    /// The owner of the share.
    public var ownerIdentity: WireUserIdentity

    /// Creates share metadata.
    public init(
        containerIdentifier: String,
        share: WireRecord,
        hierarchicalRootRecordID: WireRecordID?,
        rootRecord: WireRecord? = nil,
        participantRole: WireParticipantRole,
        participantStatus: WireParticipantAcceptanceStatus,
        participantPermission: WireParticipantPermission,
        ownerIdentity: WireUserIdentity
    ) {
        self.containerIdentifier = containerIdentifier
        self.share = share
        self.hierarchicalRootRecordID = hierarchicalRootRecordID
        self.rootRecord = rootRecord
        self.participantRole = participantRole
        self.participantStatus = participantStatus
        self.participantPermission = participantPermission
        self.ownerIdentity = ownerIdentity
    }
}
