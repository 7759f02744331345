import StratusWire

/// The user who asks about a share, as the share's container knows them.
struct ShareCaller {
    /// The account.
    let account: String
    /// The account's user record name in the share's container.
    let userRecordName: String
    /// The account's email address, as the server's people directory has it.
    let emailAddress: String?
    /// The account's phone number.
    let phoneNumber: String?
    /// The name the account gave.
    let name: WireNameComponents?
    /// Whether the account granted `userDiscoverability` in the share's container.
    let isDiscoverable: Bool

    /// Whether `identity`, a participant's, names this user: by user record name when it has
    /// one (an invitee found among the accounts when invited), else by what it was looked up
    /// by (an address no account had then, now this user's).
    func isNamed(by identity: WireUserIdentity) -> Bool {
        if let name = identity.userRecordName { return name.hasSameUTF8Bytes(as: userRecordName) }
        guard let info = identity.lookupInfo else { return false }
        if let recordName = info.userRecordID?.recordName { return recordName.hasSameUTF8Bytes(as: userRecordName) }
        if let email = info.emailAddress, let own = emailAddress {
            let key = PeopleDirectory.normalizedEmail(email)
            return !key.isEmpty && key == PeopleDirectory.normalizedEmail(own)
        }
        if let phone = info.phoneNumber, let own = phoneNumber {
            let key = PeopleDirectory.normalizedPhone(phone)
            return !key.isEmpty && key == PeopleDirectory.normalizedPhone(own)
        }
        return false
    }
}

/// The requesting user's part in a share: what its metadata reports, and what accepting it
/// does.
///
/// CloudKit's header says only that the metadata's role, status and permission are those of
/// the user who fetched it. For a user who is not yet listed on a share open to the public,
/// Stratus reports a `publicUser` with status `pending` and the share's public permission: the
/// user has not joined, and may, as an invited user who has not accepted may; so the common
/// `if metadata.participantStatus == .pending { accept }` joins public shares too.
enum ShareStanding: Equatable {
    /// The user owns the share.
    case owner
    /// The user is the share's participant at this index (invited, or a public user who joined).
    case participant(Int)
    /// The user is not listed, and the share is open to the public: they may join.
    case visitor
    /// The user is not listed, and only invited users may join.
    case outsider

    /// The standing of `caller` in a share of `ownerUserRecordName` whose state is `info`.
    init(of caller: ShareCaller, in info: WireShareInfo, ownerUserRecordName: String) {
        if caller.userRecordName.hasSameUTF8Bytes(as: ownerUserRecordName) {
            self = .owner
        } else if let index = info.participants.firstIndex(where: { $0.role != .owner && caller.isNamed(by: $0.identity) }) {
            self = .participant(index)
        } else if info.publicPermission == .readOnly || info.publicPermission == .readWrite {
            self = .visitor
        } else {
            self = .outsider
        }
    }

    /// The role, status and permission the metadata reports; nil for an outsider.
    func part(in info: WireShareInfo) -> (role: WireParticipantRole, status: WireParticipantAcceptanceStatus, permission: WireParticipantPermission)? {
        switch self {
        case .owner:
            return (.owner, .accepted, .readWrite)
        case .participant(let index):
            let participant = info.participants[index]
            return (participant.role, participant.acceptanceStatus, participant.permission)
        case .visitor:
            return (.publicUser, .pending, info.publicPermission)
        case .outsider:
            return nil
        }
    }

    /// The error for a user who may not have the share: CloudKit's code for a user the share
    /// does not list (they may have been invited under another address of theirs, which they
    /// would need to verify).
    static func outsiderError(url: String) -> WireError {
        WireError(.participantMayNeedVerification, "the share at \(url) is open only to the people its owner invited, and this account is not among them; an invitation sent to another address needs that address verified for this account")
    }
}
