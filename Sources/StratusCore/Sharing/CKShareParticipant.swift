import Foundation
import StratusWire
import Synchronization

extension CKShare {
    /// A user taking part in a share. See ``CKShareParticipant``.
    public typealias Participant = CKShareParticipant
}

/// A user taking part in a share: who they are, their role, whether they accepted, and what
/// they may do. Swift code spells it `CKShare.Participant`.
///
/// You never create participants: a share lists its own (``CKShare/participants``), and
/// `CKFetchShareParticipantsOperation` (or `CKContainer.shareParticipant(forEmailAddress:)`
/// and its siblings) makes new ones from email addresses, phone numbers or user record IDs,
/// for ``CKShare/addParticipant(_:)``. A new participant is a `.privateUser`, `.pending`, with
/// `.readOnly` permission.
///
/// ```swift
/// let friend = try await container.shareParticipant(forEmailAddress: "ann@example.com")
/// friend.permission = .readWrite
/// share.addParticipant(friend)
/// ```
///
/// A participant is an object with two settable properties, ``role`` and ``permission``; a
/// share holds the very objects it hands out, so setting one on a participant of a share
/// changes the share. Two participants are equal when they have the same ``participantID``:
/// they are the same person's participation, whatever its current permission.
///
/// The class is declared at the top level, under CloudKit's Objective-C name, because
/// `NSKeyedArchiver` on Linux cannot archive an object of a nested class.
///
/// CloudKit document: *CKShare.Participant*.
public final class CKShareParticipant: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// A participant's identity within its share.
    public typealias ID = String

    /// Who the participant is: their user record ID once they are known to have an iCloud
    /// account, what they were looked up by, and their name when they are discoverable.
    public let userIdentity: CKUserIdentity

    /// The participant's identity within its share, stable across saves.
    public let participantID: ID

    /// Whether the participant has accepted the share.
    public let acceptanceStatus: CKShare.ParticipantAcceptanceStatus

    /// The identity as it crosses the boundary.
    let identityValue: WireUserIdentity

    private struct Settable {
        var role: CKShare.ParticipantRole
        var permission: CKShare.ParticipantPermission
    }

    private let settable: Mutex<Settable>

    private init(
        participantID: ID,
        identity: WireUserIdentity,
        role: CKShare.ParticipantRole,
        acceptanceStatus: CKShare.ParticipantAcceptanceStatus,
        permission: CKShare.ParticipantPermission
    ) {
        self.participantID = participantID
        self.identityValue = identity
        self.userIdentity = CKUserIdentity(wire: identity)
        self.acceptanceStatus = acceptanceStatus
        self.settable = Mutex(Settable(role: role, permission: permission))
    }

    /// A participant as the service describes it.
    package convenience init(wire: WireShareParticipant) {
        self.init(
            participantID: wire.participantID,
            identity: wire.identity,
            role: CKShare.ParticipantRole(wire.role),
            acceptanceStatus: CKShare.ParticipantAcceptanceStatus(wire.acceptanceStatus),
            permission: CKShare.ParticipantPermission(wire.permission)
        )
    }

    /// The owner participant of a share created locally, before the server has seen it: the
    /// zone's owner (`__defaultOwner__` for the current user's zones), accepted, read-write.
    ///
    /// - Parameter participantID: The participant's ID; a new UUID by default.
    static func newOwner(ownerName: String, participantID: ID = RandomUUID.string()) -> CKShareParticipant {
        CKShareParticipant(
            participantID: participantID,
            identity: WireUserIdentity(userRecordName: ownerName, lookupInfo: nil, nameComponents: nil),
            role: .owner,
            acceptanceStatus: .accepted,
            permission: .readWrite
        )
    }

    // MARK: - Settable properties

    /// The participant's part in the share; `.privateUser` for a participant made by a lookup.
    /// Only private users can be added to a share.
    public var role: CKShare.ParticipantRole {
        get { settable.withLock { $0.role } }
        set { settable.withLock { $0.role = newValue } }
    }

    /// The iOS 10 name of ``role``.
    @available(*, deprecated, renamed: "role")
    public var type: CKShare.ParticipantType {
        get { CKShare.ParticipantType(rawValue: role.rawValue) ?? .unknown }
        set { role = CKShare.ParticipantRole(rawValue: newValue.rawValue) ?? .unknown }
    }

    /// What the participant may do with the shared records; `.readOnly` for a participant made
    /// by a lookup. Set it, then save the share, to change what a participant may do.
    public var permission: CKShare.ParticipantPermission {
        get { settable.withLock { $0.permission } }
        set { settable.withLock { $0.permission = newValue } }
    }

    // MARK: - Values

    /// The participant as the server stores it; a raw value CloudKit does not define becomes
    /// `unknown` (a share holding such a participant refuses to be saved).
    package var wireValue: WireShareParticipant {
        let settable = settable.withLock { $0 }
        return WireShareParticipant(
            participantID: participantID,
            identity: identityValue,
            role: settable.role.wireValue ?? .unknown,
            acceptanceStatus: acceptanceStatus.wireValue ?? .unknown,
            permission: settable.permission.wireValue ?? .unknown
        )
    }

    /// What is wrong with the participant's current values, or nil: a role or permission
    /// whose raw value CloudKit does not define.
    var undefinedValue: String? {
        let settable = settable.withLock { $0 }
        if settable.role.wireValue == nil { return "role \(settable.role), which CloudKit does not define" }
        if settable.permission.wireValue == nil { return "permission \(settable.permission), which CloudKit does not define" }
        return nil
    }

    /// Whether `other` stands for the same person in a share: the same participant ID, user
    /// record ID, or (for people without a known user record) lookup info.
    func isSameParticipant(as other: CKShareParticipant) -> Bool {
        if other === self || other.participantID == participantID { return true }
        if let name = identityValue.userRecordName, let otherName = other.identityValue.userRecordName {
            return name.hasSameUTF8Bytes(as: otherName)
        }
        if let info = identityValue.lookupInfo, let otherInfo = other.identityValue.lookupInfo {
            return info == otherInfo
        }
        return false
    }

    /// A new object with the same values.
    func duplicate() -> CKShareParticipant {
        let settable = settable.withLock { $0 }
        return CKShareParticipant(
            participantID: participantID,
            identity: identityValue,
            role: settable.role,
            acceptanceStatus: acceptanceStatus,
            permission: settable.permission
        )
    }

    // MARK: - NSObject, NSCopying, NSSecureCoding

    /// Whether `object` is a participant with the same ``participantID``.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKShareParticipant else { return false }
        return other === self || other.participantID == participantID
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { participantID.hashValue }

    /// A new participant with the same values, independent of this one.
    public func copy(with zone: NSZone? = nil) -> Any { duplicate() }

    /// Participants decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's name for the class, `CKShareParticipant`: the class table of an archive whose
    /// root or nested object this is lists it as the class's fallback (`$classhints`).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKShareParticipant"] }

    /// Encodes the participant, with its current role and permission, as one versioned blob.
    public func encode(with coder: NSCoder) {
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.shareParticipant) { writeCurrentValues(to: &$0) }, with: coder)
    }

    /// Decodes a participant; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let decoded = SecureCodingBlob.decode(from: coder, as: .shareParticipant, CKShareParticipant.readCurrentValues) else { return nil }
        self.init(
            participantID: decoded.participantID,
            identity: decoded.identityValue,
            role: decoded.role,
            acceptanceStatus: decoded.acceptanceStatus,
            permission: decoded.permission
        )
    }

    /// Writes the participant with its raw values as they are, even ones CloudKit does not
    /// define, so an archived share keeps what its participants hold.
    func writeCurrentValues(to writer: inout BinaryWriter) {
        let settable = settable.withLock { $0 }
        writer.write(participantID)
        identityValue.write(to: &writer)
        writer.write(Int64(settable.role.rawValue))
        writer.write(Int64(acceptanceStatus.rawValue))
        writer.write(Int64(settable.permission.rawValue))
    }

    /// Reads what ``writeCurrentValues(to:)`` wrote.
    static func readCurrentValues(from reader: inout BinaryReader) throws(BinaryFormatError) -> CKShareParticipant {
        let participantID = try reader.readString()
        let identity = try WireUserIdentity.read(from: &reader)
        let role = try reader.readInt64()
        let status = try reader.readInt64()
        let permission = try reader.readInt64()
        guard let role = Int(exactly: role).flatMap(CKShare.ParticipantRole.init(rawValue:)),
              let status = Int(exactly: status).flatMap(CKShare.ParticipantAcceptanceStatus.init(rawValue:)),
              let permission = Int(exactly: permission).flatMap(CKShare.ParticipantPermission.init(rawValue:))
        else { throw BinaryFormatError("a participant's raw value does not fit an Int") }
        return CKShareParticipant(
            participantID: participantID,
            identity: identity,
            role: role,
            acceptanceStatus: status,
            permission: permission
        )
    }

    /// A summary such as `<CKShareParticipant: participantID=…, userRecordID=…, role=owner,
    /// acceptanceStatus=accepted, permission=readWrite>`. The format is not stable.
    public override var description: String {
        let settable = settable.withLock { $0 }
        return "<CKShareParticipant: participantID=\(participantID), userRecordID=\(identityValue.userRecordName ?? "nil"), "
            + "role=\(settable.role), acceptanceStatus=\(acceptanceStatus), permission=\(settable.permission)>"
    }
}
