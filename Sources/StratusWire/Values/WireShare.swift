/// The sharing state a share record (`CKShare`, record type `cloudkit.share`) carries beside
/// its fields: who may open it, where, and who takes part.
public struct WireShareInfo: Hashable, Sendable {
    /// What any signed-in user who has the URL may do; `.none` for an invitation-only share.
    public var publicPermission: WireParticipantPermission
    /// The share's URL, assigned by the server on the first save; nil before.
    public var url: String?
    /// Everyone taking part, the owner first.
    public var participants: [WireShareParticipant]

    /// Creates a share's state.
    public init(publicPermission: WireParticipantPermission = .none, url: String? = nil, participants: [WireShareParticipant] = []) {
        self.publicPermission = publicPermission
        self.url = url
        self.participants = participants
    }
}

/// One person taking part in a share (`CKShare.Participant`'s wire form).
public struct WireShareParticipant: Hashable, Sendable {
    /// The participant's identity within its share, stable across saves.
    public var participantID: String
    /// Who the participant is: their user record name once known, and what they were
    /// looked up by.
    public var identity: WireUserIdentity
    /// The owner, an invited (private) user, or a public user who joined through the URL.
    public var role: WireParticipantRole
    /// Whether the participant has accepted.
    public var acceptanceStatus: WireParticipantAcceptanceStatus
    /// What the participant may do with the shared records.
    public var permission: WireParticipantPermission

    /// Creates a participant.
    public init(
        participantID: String,
        identity: WireUserIdentity,
        role: WireParticipantRole,
        acceptanceStatus: WireParticipantAcceptanceStatus,
        permission: WireParticipantPermission
    ) {
        self.participantID = participantID
        self.identity = identity
        self.role = role
        self.acceptanceStatus = acceptanceStatus
        self.permission = permission
    }
}

/// `CKShare.ParticipantPermission`, with CloudKit's raw values.
public enum WireParticipantPermission: Int, Hashable, Sendable {
    /// Not known.
    case unknown = 0
    /// No access (a share's public permission when only invited users may join).
    case none = 1
    /// May read the shared records.
    case readOnly = 2
    /// May read and write the shared records.
    case readWrite = 3
}

/// `CKShare.ParticipantRole`, with CloudKit's raw values.
public enum WireParticipantRole: Int, Hashable, Sendable {
    /// Not known.
    case unknown = 0
    /// The user who shared the records.
    case owner = 1
    /// A user the owner invited.
    case privateUser = 3
    /// A user who joined through the URL of a share open to the public.
    case publicUser = 4
}

/// `CKShare.ParticipantAcceptanceStatus`, with CloudKit's raw values.
public enum WireParticipantAcceptanceStatus: Int, Hashable, Sendable {
    /// Not known.
    case unknown = 0
    /// Invited, not accepted yet.
    case pending = 1
    /// Accepted: the shared records appear in the participant's shared database.
    case accepted = 2
    /// Removed from the share.
    case removed = 3
}
