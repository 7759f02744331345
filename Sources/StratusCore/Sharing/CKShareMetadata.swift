import Foundation
import StratusWire

extension CKShare {
    /// What a share's URL tells the user who opens it. See ``CKShareMetadata``.
    public typealias Metadata = CKShareMetadata
}

/// What a share's URL tells the user who opens it: the share, what it shares, who owns it, and
/// the user's own part in it. Swift code spells it `CKShare.Metadata`.
///
/// You never create metadata: the server hands it out for a share URL, and you accept the
/// share with it. A zone-wide share has no root record, so its metadata has no
/// ``hierarchicalRootRecordID``; ``rootRecord`` is there only when the fetch asked for it.
///
/// ```swift
/// let isZoneWide = metadata.share.recordID.recordName == CKRecordNameZoneWideShare
/// ```
///
/// Metadata is immutable, apart from the share it holds, which is an ordinary ``CKShare``
/// object. The class is declared at the top level, under CloudKit's Objective-C name, because
/// `NSKeyedArchiver` on Linux cannot archive an object of a nested class.
///
/// CloudKit document: *CKShare.Metadata*.
public final class CKShareMetadata: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// The container the share belongs to.
    public let containerIdentifier: String
    /// The share.
    public let share: CKShare
    /// The ID of the root record of a shared hierarchy; nil for a zone-wide share.
    public let hierarchicalRootRecordID: CKRecord.ID?
    /// The root record, when the metadata was fetched asking for it; nil otherwise and for a
    /// zone-wide share.
    public let rootRecord: CKRecord?
    /// The role the user who fetched the metadata has in the share.
    public let participantRole: CKShare.ParticipantRole
    /// Whether the user who fetched the metadata has accepted the share.
    public let participantStatus: CKShare.ParticipantAcceptanceStatus
    /// What the user who fetched the metadata may do with the shared records.
    public let participantPermission: CKShare.ParticipantPermission
    /// Who owns the share.
    public let ownerIdentity: CKUserIdentity

    /// The metadata as the service described it.
    private let wire: WireShareMetadata

    /// Metadata as the service describes it.
    package init(wire: WireShareMetadata) {
        self.wire = wire
        containerIdentifier = wire.containerIdentifier
        share = CKShare(received: wire.share)
        hierarchicalRootRecordID = wire.hierarchicalRootRecordID.map { CKRecord.ID(wire: $0) }
        rootRecord = wire.rootRecord.map { CKRecord.make(wire: $0) }
        participantRole = CKShare.ParticipantRole(wire.participantRole)
        participantStatus = CKShare.ParticipantAcceptanceStatus(wire.participantStatus)
        participantPermission = CKShare.ParticipantPermission(wire.participantPermission)
        ownerIdentity = CKUserIdentity(wire: wire.ownerIdentity)
    }

    /// The iOS 10 name of ``participantRole``.
    @available(*, deprecated, renamed: "participantRole")
    public var participantType: CKShare.ParticipantType {
        CKShare.ParticipantType(rawValue: participantRole.rawValue) ?? .unknown
    }

    /// The iOS 10 name of ``hierarchicalRootRecordID``, which is never nil: for a zone-wide
    /// share, which has no root record, it is the share's own record ID.
    @available(*, deprecated, renamed: "hierarchicalRootRecordID")
    public var rootRecordID: CKRecord.ID {
        hierarchicalRootRecordID ?? share.recordID
    }

    /// The metadata as it crosses the boundary, with the share's current state.
    package var wireValue: WireShareMetadata {
        var value = wire
        value.share = share.wireSnapshot
        value.rootRecord = rootRecord?.wireSnapshot
        return value
    }

    /// New metadata with the same values, whose share (and root record) are new objects.
    public func copy(with zone: NSZone? = nil) -> Any {
        CKShareMetadata(wire: wireValue)
    }

    /// Metadata decodes only what it encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's name for the class, `CKShareMetadata`: the class table of an archive whose
    /// root or nested object this is lists it as the class's fallback (`$classhints`).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKShareMetadata"] }

    /// Encodes the metadata, with its share's and root record's current values, as one
    /// versioned blob.
    public func encode(with coder: NSCoder) {
        let value = wireValue
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.shareMetadata) { value.write(to: &$0) }, with: coder)
    }

    /// Decodes metadata; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let wire = SecureCodingBlob.decode(from: coder, as: .shareMetadata, WireShareMetadata.read) else { return nil }
        self.init(wire: wire)
    }

    /// A summary such as `<CKShareMetadata: share=…, participantRole=privateUser,
    /// participantStatus=pending, participantPermission=readOnly>`. The format is not stable.
    public override var description: String {
        "<CKShareMetadata: share=\(share.recordID), participantRole=\(participantRole), "
            + "participantStatus=\(participantStatus), participantPermission=\(participantPermission)>"
    }
}
