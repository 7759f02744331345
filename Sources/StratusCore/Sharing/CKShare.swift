import Foundation
import StratusWire
import Synchronization

/// A record of type `cloudkit.share` that shares a hierarchy of records, or a whole zone, with
/// other users: who takes part (``participants``), with what permission, and who else may join
/// through its ``url`` (``publicPermission``).
///
/// As in CloudKit, you create a share for a root record, or for a zone, and save it together
/// with the root record in one modify request; the server gives it its URL. Records whose
/// `parent` chain leads to the root are shared with it. A share is a record: it has fields
/// (``SystemFieldKey`` names the ones the system shows), a change tag and dates.
///
/// ```swift
/// let share = CKShare(rootRecord: party)
/// share[CKShare.SystemFieldKey.title] = "Clowns at the park"
/// share.publicPermission = .none
/// share.addParticipant(friend)   // a participant from CKFetchShareParticipantsOperation
/// let (saved, _) = try await database.modifyRecords(saving: [party, share], deleting: [])
/// ```
///
/// Every share has an owner participant: a share you create locally starts with one for
/// you, whose identity's user record name is `__defaultOwner__` (the stand-in CloudKit uses
/// for the current user, as in ``CKRecord/creatorUserRecordID``), accepted, with read-write
/// permission. Participants are objects: change one's ``CKShareParticipant/permission`` and
/// the share, saved again, carries the change.
///
/// CloudKit raises an Objective-C exception for a participant change its header forbids
/// (adding an owner or a public user, adding anyone while the share is open to the public,
/// removing the owner). A share here leaves itself unchanged, remembers the refusal, and its
/// next save fails with `invalidArguments` naming it, as ``CKRecord`` does for a value it
/// cannot hold. Adding or removing the same participant again clears the refusal.
///
/// The share's state crosses to the server as ``WireShareInfo``; a record of type
/// `cloudkit.share` the client receives, from a fetch, a query, changes or a save, is always a
/// `CKShare`, so `try await database.record(for: shareID) as? CKShare` works.
///
/// CloudKit document: *CKShare*.
public final class CKShare: CKRecord, @unchecked Sendable {
    /// The sharing state a share holds beside its record state.
    struct Sharing {
        var publicPermission: CKShare.ParticipantPermission
        var url: String?
        /// Everyone taking part, the owner first; the very objects handed out.
        var participants: [CKShareParticipant]
        /// Refused participant changes, by the participant's ID.
        var refusals: [String: String] = [:]
    }

    let sharing: Mutex<Sharing>

    /// Creates a share for `rootRecord` with the given ID, and points the root record's
    /// ``CKRecord/share`` at it.
    ///
    /// Save the share and the root record in the same modify request: a new share saved
    /// alone fails. The share must be in the root record's zone, which must be a custom
    /// zone of the private database that can share records.
    ///
    /// - Parameters:
    ///   - rootRecord: The record at the top of the hierarchy to share. Its own `parent`, if
    ///     any, is ignored: sharing starts at the root.
    ///   - shareID: The share's record ID.
    public init(rootRecord: CKRecord, shareID: CKRecord.ID) {
        sharing = Mutex(Sharing(publicPermission: .none, participants: [.newOwner(ownerName: shareID.zoneID.ownerName)]))
        super.init(state: State(snapshot: WireRecord(recordID: shareID.wireValue, recordType: SystemType.share)), recordID: shareID)
        rootRecord.setShareReference(Reference(recordID: shareID, action: .none))
    }

    /// Creates a share for `rootRecord`, with a new UUID record name in the root record's
    /// zone, and points the root record's ``CKRecord/share`` at it. See
    /// ``init(rootRecord:shareID:)``.
    public convenience init(rootRecord: CKRecord) {
        self.init(rootRecord: rootRecord, shareID: CKRecord.ID(zoneID: rootRecord.recordID.zoneID))
    }

    /// Creates a zone-wide share: one that shares every record of the zone. Its record name is
    /// ``CKRecordNameZoneWideShare``, so a zone has at most one, and you can fetch it by
    /// that ID.
    ///
    /// The zone must be a custom zone of the private database with the `zoneWideSharing`
    /// capability, holding no record shares.
    public init(recordZoneID: CKRecordZone.ID) {
        let shareID = CKRecord.ID(recordName: CKRecordNameZoneWideShare, zoneID: recordZoneID)
        sharing = Mutex(Sharing(publicPermission: .none, participants: [.newOwner(ownerName: recordZoneID.ownerName)]))
        super.init(state: State(snapshot: WireRecord(recordID: shareID.wireValue, recordType: SystemType.share)), recordID: shareID)
    }

    /// A share as the server sent it: its record state and, as both the saved and the current
    /// state, its sharing state.
    init(received wire: WireRecord) {
        var snapshot = wire
        snapshot.recordType = SystemType.share
        let info = wire.shareInfo ?? WireShareInfo(participants: [])
        snapshot.shareInfo = info
        sharing = Mutex(Sharing(info))
        super.init(state: State(snapshot: snapshot), recordID: ID(wire: wire.recordID))
    }

    /// A share with the given record and sharing states: a copy or a decoded archive.
    init(state: State, sharing: Sharing) {
        self.sharing = Mutex(sharing)
        super.init(state: state, recordID: ID(wire: state.snapshot.recordID))
    }

    /// Decodes a share archived with ``CKRecord/encode(with:)`` or
    /// ``CKRecord/encodeSystemFields(with:)``; nil for a missing, truncated, damaged or foreign
    /// archive (a plain record's included), or one of another format version.
    public required convenience init?(coder: NSCoder) {
        guard let blob = SecureCodingBlob.blob(from: coder),
              let (state, sharing) = try? CKShare.decodeShare(blob)
        else { return nil }
        self.init(state: state, sharing: sharing)
    }

    /// Unavailable: a share's record type is always `cloudkit.share`. Use
    /// ``init(rootRecord:)`` or ``init(recordZoneID:)``.
    @available(*, unavailable, message: "a share's record type is cloudkit.share; use init(rootRecord:) or init(recordZoneID:)")
    public convenience init(recordType: CKRecord.RecordType, recordID: CKRecord.ID = CKRecord.ID()) {
        self.init(recordZoneID: recordID.zoneID)
    }

    // MARK: - Sharing state

    /// What anyone who has the share's URL may do without being added: `.none` (the default)
    /// for a share only invited users may join, `.readOnly` or `.readWrite` for one anyone
    /// signed in to iCloud may join as a public user.
    ///
    /// As CloudKit's header says, changing it removes every pending participant (accepted
    /// ones stay), and changing it to `.none` removes every participant but the owner; you may
    /// add participants again afterwards, before saving. Setting the value it already has
    /// changes nothing.
    public var publicPermission: CKShare.ParticipantPermission {
        get { sharing.withLock { $0.publicPermission } }
        set {
            sharing.withLock { sharing in
                let old = sharing.publicPermission
                sharing.publicPermission = newValue
                guard old != newValue else { return }
                if newValue == .none {
                    sharing.participants.removeAll { $0.role != .owner }
                } else {
                    sharing.participants.removeAll { $0.role != .owner && $0.acceptanceStatus == .pending }
                }
            }
        }
    }

    /// The URL that invites people to the share; nil until the server saves it. It is stable:
    /// sharing the same root record again, after deleting its share, gives the same URL.
    public var url: URL? {
        sharing.withLock { $0.url }.flatMap { URL(string: $0) }
    }

    /// Everyone taking part that the current user may see, the owner first: at least the owner
    /// and, once they take part, the current user. The array holds the share's own participant
    /// objects.
    public var participants: [CKShare.Participant] {
        sharing.withLock { $0.participants }
    }

    /// The participant who owns the share.
    public var owner: CKShare.Participant {
        if let owner = sharing.withLock({ $0.participants.first { $0.role == .owner } }) { return owner }
        // A share always lists its owner; should a server's share not, the owner is the owner
        // of the share's zone, under an ID that stays the same from one call to the next.
        let ownerName = recordID.zoneID.ownerName
        return .newOwner(ownerName: ownerName, participantID: "owner-of-\(ownerName)")
    }

    /// The participant that is the current user (whose user record name reads
    /// `__defaultOwner__`), or nil when the current user does not take part, as in a public
    /// share not joined yet.
    public var currentUserParticipant: CKShare.Participant? {
        sharing.withLock { sharing in
            sharing.participants.first { $0.identityValue.userRecordName == WireZoneID.currentUserOwnerName }
        }
    }

    /// Adds `participant` to the share, or, when the share already lists a participant with the
    /// same ID or user identity (user record ID, else lookup info), gives that participant
    /// `participant`'s role and permission instead of adding another.
    ///
    /// Only private users are added, and only while ``publicPermission`` is `.none`: a share
    /// cannot mix invited and public users. Adding an owner or a public user, adding anyone to
    /// a share open to the public, or adding the owner again is refused: the share does not
    /// change and its next save fails with `invalidArguments` (see the type's discussion).
    ///
    /// - Parameter participant: A participant from `CKFetchShareParticipantsOperation` or
    ///   `CKContainer.shareParticipant(forEmailAddress:)` and its siblings.
    public func addParticipant(_ participant: CKShare.Participant) {
        let role = participant.role
        sharing.withLock { sharing in
            let id = participant.participantID
            guard role == .privateUser else {
                sharing.refusals[id] = "participant '\(id)' has role \(role) and cannot be added: only private users are added; the owner is on every share and public users join through its URL"
                return
            }
            guard sharing.publicPermission == .none else {
                sharing.refusals[id] = "participant '\(id)' cannot be added while the share's publicPermission is \(sharing.publicPermission): set it to .none first"
                return
            }
            guard let index = sharing.participants.firstIndex(where: { $0.isSameParticipant(as: participant) }) else {
                sharing.participants.append(participant)
                sharing.refusals[id] = nil
                return
            }
            let existing = sharing.participants[index]
            guard existing.role != .owner else {
                sharing.refusals[id] = "participant '\(id)' is the share's owner and cannot be added as a private user"
                return
            }
            if existing !== participant {
                existing.role = role
                existing.permission = participant.permission
            }
            sharing.refusals[id] = nil
        }
    }

    /// Removes the participant with `participant`'s ID or user identity from the share; a
    /// participant the share does not list is ignored. The owner cannot be removed: that is
    /// refused as ``addParticipant(_:)`` describes.
    ///
    /// Once the share is saved, the removed user no longer reaches the shared records.
    public func removeParticipant(_ participant: CKShare.Participant) {
        sharing.withLock { sharing in
            let id = participant.participantID
            guard let index = sharing.participants.firstIndex(where: { $0.isSameParticipant(as: participant) }) else {
                sharing.refusals[id] = nil
                return
            }
            guard sharing.participants[index].role != .owner else {
                sharing.refusals[id] = "participant '\(id)' is the share's owner and cannot be removed; delete the share to stop sharing"
                return
            }
            sharing.participants.remove(at: index)
            sharing.refusals[id] = nil
        }
    }

    // MARK: - Record hooks

    /// The sharing state as it stands, as the server would store it.
    var currentShareInfo: WireShareInfo {
        sharing.withLock { $0.wireValue }
    }

    override var shareInfoToSave: WireShareInfo? { currentShareInfo }

    override var sharingRefusal: String? {
        sharing.withLock { sharing in
            if let id = sharing.refusals.keys.sorted().first, let refusal = sharing.refusals[id] { return refusal }
            if sharing.publicPermission.wireValue == nil || sharing.publicPermission == .unknown {
                return "publicPermission \(sharing.publicPermission) is not one a share can have: use .none, .readOnly or .readWrite"
            }
            for participant in sharing.participants {
                if let problem = participant.undefinedValue {
                    return "participant '\(participant.participantID)' has \(problem)"
                }
            }
            return nil
        }
    }

    /// The record's fields, system fields and local edits, with the current sharing state.
    override package var wireSnapshot: WireRecord {
        var snapshot = super.wireSnapshot
        snapshot.shareInfo = currentShareInfo
        return snapshot
    }

    override func archiveBlob(systemFieldsOnly: Bool) -> [UInt8] {
        shareArchiveBlob(systemFieldsOnly: systemFieldsOnly)
    }

    override func makeCopy() -> CKRecord {
        let state = state.withLock { $0 }
        var copied = sharing.withLock { $0 }
        copied.participants = copied.participants.map { $0.duplicate() }
        return CKShare(state: state, sharing: copied)
    }

    /// A summary such as `<CKShare: recordID=…, recordChangeTag=3, publicPermission=none,
    /// participants=2, url=…>`. The format is not stable.
    public override var description: String {
        let (permission, count, url) = sharing.withLock { ($0.publicPermission, $0.participants.count, $0.url) }
        return "<CKShare: recordID=\(recordID), recordChangeTag=\(recordChangeTag ?? "nil"), "
            + "publicPermission=\(permission), participants=\(count), url=\(url ?? "nil")>"
    }
}

extension CKShare.Sharing {
    /// The state a share received from the server starts with.
    init(_ info: WireShareInfo) {
        self.init(
            publicPermission: CKShare.ParticipantPermission(info.publicPermission),
            url: info.url,
            participants: info.participants.map { CKShareParticipant(wire: $0) }
        )
    }

    /// The state as the server stores it; a value CloudKit does not define becomes `unknown`
    /// (the save is refused before it is sent, see `CKShare.sharingRefusal`).
    var wireValue: WireShareInfo {
        WireShareInfo(
            publicPermission: publicPermission.wireValue ?? .unknown,
            url: url,
            participants: participants.map(\.wireValue)
        )
    }
}
