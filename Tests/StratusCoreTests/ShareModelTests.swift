import Foundation
import StratusCore
import StratusWire
import XCTest

/// `CKShare`, `CKShare.Participant` and `CKShare.Metadata` as objects: what a new share holds,
/// the header's rules for `publicPermission` and for adding and removing participants, and the
/// conversion to and from the wire values a server sends.
final class ShareModelTests: XCTestCase {
    private let zoneID = CKRecordZone.ID(zoneName: "Parties")

    private func party() -> CKRecord {
        CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party", zoneID: zoneID))
    }

    private func identity(_ userRecordName: String?, email: String? = nil, hasAccount: Bool = true) -> WireUserIdentity {
        WireUserIdentity(
            userRecordName: userRecordName,
            lookupInfo: email.map { WireUserLookupInfo(emailAddress: $0) },
            nameComponents: nil,
            hasiCloudAccount: hasAccount
        )
    }

    private func participant(
        _ id: String,
        _ userRecordName: String?,
        email: String? = nil,
        role: WireParticipantRole = .privateUser,
        status: WireParticipantAcceptanceStatus = .pending,
        permission: WireParticipantPermission = .readOnly
    ) -> WireShareParticipant {
        WireShareParticipant(participantID: id, identity: identity(userRecordName, email: email), role: role, acceptanceStatus: status, permission: permission)
    }

    private var owner: WireShareParticipant {
        participant("owner", "__defaultOwner__", role: .owner, status: .accepted, permission: .readWrite)
    }

    /// A share as a server sends it: saved, with a URL and the given participants.
    private func savedShare(publicPermission: WireParticipantPermission = .none, _ participants: [WireShareParticipant]) -> WireRecord {
        WireRecord(
            recordID: WireRecordID(recordName: "share-1", zoneID: zoneID.wireValue),
            recordType: "cloudkit.share",
            changeTag: "7",
            creatorUserRecordName: "__defaultOwner__",
            shareInfo: WireShareInfo(publicPermission: publicPermission, url: "https://stratus.invalid/share/abc", participants: participants),
            fields: ["cloudkit.title": .string("Clowns at the park")]
        )
    }

    private func received(_ wire: WireRecord) throws -> CKShare {
        try XCTUnwrap(CKRecord.make(wire: wire) as? CKShare)
    }

    private func savedInfo(_ share: CKShare) -> WireShareInfo? {
        share.makeSave(policy: .ifServerRecordUnchanged).record.shareInfo
    }

    // MARK: - Creating shares

    func testNewShareForARootRecordStartsWithTheCurrentUserAsOwnerAndPointsTheRootAtIt() throws {
        let root = party()
        let share = CKShare(rootRecord: root)
        XCTAssertEqual(share.recordType, CKRecord.SystemType.share)
        XCTAssertEqual(share.recordType, "cloudkit.share")
        XCTAssertEqual(share.recordID.zoneID, zoneID)
        XCTAssertNotEqual(share.recordID.recordName, CKRecordNameZoneWideShare)
        XCTAssertEqual(root.share?.recordID, share.recordID)
        XCTAssertEqual(root.share?.action, CKRecord.ReferenceAction.none)
        XCTAssertEqual(root.makeSave(policy: .ifServerRecordUnchanged).record.share?.recordID, share.recordID.wireValue, "the root's save carries its share")

        XCTAssertEqual(share.publicPermission, .none)
        XCTAssertNil(share.url)
        XCTAssertNil(share.recordChangeTag)
        XCTAssertEqual(share.participants.count, 1)
        let owner = share.owner
        XCTAssertTrue(share.participants.first === owner)
        XCTAssertTrue(share.currentUserParticipant === owner)
        XCTAssertEqual(owner.role, .owner)
        XCTAssertEqual(owner.acceptanceStatus, .accepted)
        XCTAssertEqual(owner.permission, .readWrite)
        XCTAssertEqual(owner.userIdentity.userRecordID?.recordName, CKCurrentUserDefaultName)
        XCTAssertFalse(owner.participantID.isEmpty)
    }

    func testShareIDInitialiserUsesTheGivenID() {
        let root = party()
        let shareID = CKRecord.ID(recordName: "party-share", zoneID: zoneID)
        let share = CKShare(rootRecord: root, shareID: shareID)
        XCTAssertEqual(share.recordID, shareID)
        XCTAssertEqual(root.share?.recordID, shareID)
    }

    func testZoneWideShareIsNamedCloudkitZoneshareAndTouchesNoRecord() {
        XCTAssertEqual(CKRecordNameZoneWideShare, "cloudkit.zoneshare")
        let share = CKShare(recordZoneID: zoneID)
        XCTAssertEqual(share.recordID, CKRecord.ID(recordName: "cloudkit.zoneshare", zoneID: zoneID))
        XCTAssertEqual(share.recordType, "cloudkit.share")
        XCTAssertEqual(share.owner.role, .owner)
        XCTAssertTrue(share.currentUserParticipant === share.owner)
    }

    func testSystemFieldKeysAreCloudKitsAndWorkAsSubscripts() {
        XCTAssertEqual(CKShare.SystemFieldKey.title, "cloudkit.title")
        XCTAssertEqual(CKShare.SystemFieldKey.thumbnailImageData, "cloudkit.thumbnailImageData")
        XCTAssertEqual(CKShare.SystemFieldKey.shareType, "cloudkit.type")
        let share = CKShare(rootRecord: party())
        share[CKShare.SystemFieldKey.title] = "Clowns at the park"
        share[CKShare.SystemFieldKey.thumbnailImageData] = Data([0x89, 0x50])
        share[CKShare.SystemFieldKey.shareType] = "com.example.clowns.party"
        XCTAssertEqual(share[CKShare.SystemFieldKey.title] as? String, "Clowns at the park")
        XCTAssertEqual(share[CKShare.SystemFieldKey.thumbnailImageData] as? Data, Data([0x89, 0x50]))
        XCTAssertEqual(share.changedKeys(), ["cloudkit.thumbnailImageData", "cloudkit.title", "cloudkit.type"])
    }

    func testParticipantEnumsHaveCloudKitsRawValues() {
        XCTAssertEqual(CKShare.ParticipantRole.unknown.rawValue, 0)
        XCTAssertEqual(CKShare.ParticipantRole.owner.rawValue, 1)
        XCTAssertEqual(CKShare.ParticipantRole.privateUser.rawValue, 3)
        XCTAssertEqual(CKShare.ParticipantRole.publicUser.rawValue, 4)
        XCTAssertEqual(CKShare.ParticipantAcceptanceStatus.unknown.rawValue, 0)
        XCTAssertEqual(CKShare.ParticipantAcceptanceStatus.pending.rawValue, 1)
        XCTAssertEqual(CKShare.ParticipantAcceptanceStatus.accepted.rawValue, 2)
        XCTAssertEqual(CKShare.ParticipantAcceptanceStatus.removed.rawValue, 3)
        XCTAssertEqual(CKShare.ParticipantPermission.unknown.rawValue, 0)
        XCTAssertEqual(CKShare.ParticipantPermission.none.rawValue, 1)
        XCTAssertEqual(CKShare.ParticipantPermission.readOnly.rawValue, 2)
        XCTAssertEqual(CKShare.ParticipantPermission.readWrite.rawValue, 3)
        for role in [CKShare.ParticipantRole.unknown, .owner, .privateUser, .publicUser] {
            XCTAssertEqual(role.wireValue?.rawValue, role.rawValue)
        }
        XCTAssertEqual("\(CKShare.ParticipantRole.privateUser)", "privateUser")
        XCTAssertEqual("\(CKShare.ParticipantPermission.readWrite)", "readWrite")
        XCTAssertEqual("\(CKShare.ParticipantAcceptanceStatus.pending)", "pending")
        XCTAssertNil(CKShare.ParticipantRole(rawValue: 2)?.wireValue, "CloudKit defines no role with raw value 2")
    }

    @available(*, deprecated)
    func testDeprecatedParticipantTypeFollowsTheRole() throws {
        let friend = CKShare.Participant(wire: participant("p", "_ann"))
        XCTAssertEqual(friend.type, .privateUser)
        friend.type = .publicUser
        XCTAssertEqual(friend.role, .publicUser)
        XCTAssertEqual(CKShare.ParticipantType.owner.rawValue, CKShare.ParticipantRole.owner.rawValue)
    }

    // MARK: - Public permission

    func testOpeningAShareToThePublicRemovesPendingParticipantsButKeepsAcceptedOnes() throws {
        let share = try received(savedShare([
            owner,
            participant("ann", "_ann", status: .accepted),
            participant("bob", "_bob", status: .pending),
        ]))
        share.publicPermission = .readOnly
        XCTAssertEqual(share.publicPermission, .readOnly)
        XCTAssertEqual(share.participants.map(\.participantID), ["owner", "ann"])
        XCTAssertEqual(savedInfo(share)?.publicPermission, .readOnly)
        XCTAssertEqual(savedInfo(share)?.participants.map(\.participantID), ["owner", "ann"])
    }

    func testClosingAShareToThePublicRemovesEveryoneButTheOwner() throws {
        let share = try received(savedShare(publicPermission: .readWrite, [
            owner,
            participant("pat", "_pat", role: .publicUser, status: .accepted, permission: .readWrite),
        ]))
        share.publicPermission = .none
        XCTAssertEqual(share.participants.map(\.participantID), ["owner"])
        XCTAssertEqual(share.owner.participantID, "owner")
    }

    func testSettingThePublicPermissionItAlreadyHasRemovesNobody() throws {
        let share = try received(savedShare([owner, participant("bob", "_bob", status: .pending)]))
        share.publicPermission = .none
        XCTAssertEqual(share.participants.map(\.participantID), ["owner", "bob"])
    }

    // MARK: - Adding and removing participants

    func testAddedParticipantIsSavedWithTheShareAndIsTheSameObject() throws {
        let share = CKShare(rootRecord: party())
        let ann = CKShare.Participant(wire: participant("ann", "_ann", email: "ann@example.com"))
        share.addParticipant(ann)
        XCTAssertTrue(share.participants.last === ann)
        XCTAssertNil(share.rejectionError)
        ann.permission = .readWrite
        let saved = try XCTUnwrap(savedInfo(share))
        XCTAssertEqual(saved.participants.map(\.participantID), [share.owner.participantID, "ann"])
        XCTAssertEqual(saved.participants.last?.permission, .readWrite, "a participant object is the share's own")
        XCTAssertEqual(saved.participants.last?.identity.lookupInfo?.emailAddress, "ann@example.com")
    }

    func testAddingTheSamePersonAgainUpdatesTheParticipantTheShareHas() throws {
        let share = try received(savedShare([owner, participant("ann", "_ann", status: .accepted)]))
        let again = CKShare.Participant(wire: participant("ann-2", "_ann", permission: .readWrite))
        share.addParticipant(again)
        XCTAssertEqual(share.participants.map(\.participantID), ["owner", "ann"])
        XCTAssertEqual(share.participants.last?.permission, .readWrite)
        XCTAssertEqual(share.participants.last?.acceptanceStatus, .accepted)

        let byAddress = CKShare.Participant(wire: participant("carl-1", nil, email: "carl@example.com"))
        share.addParticipant(byAddress)
        share.addParticipant(CKShare.Participant(wire: participant("carl-2", nil, email: "carl@example.com", permission: .readWrite)))
        XCTAssertEqual(share.participants.map(\.participantID), ["owner", "ann", "carl-1"])
        XCTAssertEqual(byAddress.permission, .readWrite)
        XCTAssertNil(share.rejectionError)
    }

    func testAddingAPublicUserOrAnOwnerIsRefusedAndFailsTheNextSave() throws {
        let share = CKShare(rootRecord: party())
        let stranger = CKShare.Participant(wire: participant("pat", "_pat"))
        stranger.role = .publicUser
        share.addParticipant(stranger)
        XCTAssertEqual(share.participants.count, 1)
        let error = try XCTUnwrap(share.rejectionError)
        XCTAssertEqual(error.code, .invalidArguments)
        XCTAssertTrue(error.localizedDescription.contains("publicUser"), error.localizedDescription)

        stranger.role = .privateUser
        share.addParticipant(stranger)
        XCTAssertNil(share.rejectionError, "adding the participant again clears the refusal")
        XCTAssertEqual(share.participants.count, 2)

        let other = CKShare.Participant(wire: participant("other-owner", "_zed", role: .owner, status: .accepted, permission: .readWrite))
        share.addParticipant(other)
        XCTAssertEqual(share.rejectionError?.code, .invalidArguments)
        share.removeParticipant(other)
        XCTAssertNil(share.rejectionError, "removing the participant clears the refusal too")
    }

    func testAddingAnyoneToAShareOpenToThePublicIsRefused() throws {
        let share = try received(savedShare(publicPermission: .readOnly, [owner]))
        share.addParticipant(CKShare.Participant(wire: participant("ann", "_ann")))
        XCTAssertEqual(share.participants.map(\.participantID), ["owner"])
        XCTAssertEqual(share.rejectionError?.code, .invalidArguments)
        XCTAssertTrue(share.rejectionError?.localizedDescription.contains("publicPermission") == true)
    }

    func testAddingTheOwnerAsAPrivateUserIsRefused() throws {
        let share = try received(savedShare([owner]))
        share.addParticipant(CKShare.Participant(wire: participant("me", "__defaultOwner__")))
        XCTAssertEqual(share.participants.map(\.participantID), ["owner"])
        XCTAssertEqual(share.owner.role, .owner)
        XCTAssertEqual(share.rejectionError?.code, .invalidArguments)
    }

    func testRemovingAParticipantDropsItButTheOwnerStays() throws {
        let share = try received(savedShare([owner, participant("ann", "_ann", status: .accepted), participant("bob", "_bob")]))
        share.removeParticipant(CKShare.Participant(wire: participant("ann", "_ann")))
        XCTAssertEqual(share.participants.map(\.participantID), ["owner", "bob"])
        share.removeParticipant(CKShare.Participant(wire: participant("nobody", "_nobody")))
        XCTAssertEqual(share.participants.map(\.participantID), ["owner", "bob"])
        XCTAssertNil(share.rejectionError)

        share.removeParticipant(share.owner)
        XCTAssertEqual(share.participants.map(\.participantID), ["owner", "bob"])
        XCTAssertEqual(share.rejectionError?.code, .invalidArguments)
        XCTAssertEqual(savedInfo(share)?.participants.map(\.participantID), ["owner", "bob"])
    }

    func testValuesCloudKitDoesNotDefineFailTheSave() throws {
        let share = CKShare(rootRecord: party())
        share.publicPermission = try XCTUnwrap(CKShare.ParticipantPermission(rawValue: 9))
        XCTAssertEqual(share.rejectionError?.code, .invalidArguments)
        share.publicPermission = .readOnly
        XCTAssertNil(share.rejectionError)
        share.owner.permission = try XCTUnwrap(CKShare.ParticipantPermission(rawValue: 7))
        XCTAssertEqual(share.rejectionError?.code, .invalidArguments)
    }

    // MARK: - Wire conversion

    func testEveryRecordOfTypeShareFromAServerIsACKShare() throws {
        let wire = savedShare([owner, participant("ann", "_ann", email: "ann@example.com", status: .accepted, permission: .readWrite)])
        let share = try received(wire)
        XCTAssertEqual(share.wireSnapshot, wire)
        XCTAssertEqual(share.url, URL(string: "https://stratus.invalid/share/abc"))
        XCTAssertEqual(share.recordChangeTag, "7")
        XCTAssertEqual(share[CKShare.SystemFieldKey.title] as? String, "Clowns at the park")
        XCTAssertEqual(share.participants.count, 2)
        let ann = try XCTUnwrap(share.participants.last)
        XCTAssertEqual(ann.userIdentity.userRecordID?.recordName, "_ann")
        XCTAssertEqual(ann.userIdentity.lookupInfo?.emailAddress, "ann@example.com")
        XCTAssertEqual(ann.role, .privateUser)
        XCTAssertEqual(ann.acceptanceStatus, .accepted)
        XCTAssertEqual(ann.permission, .readWrite)
        XCTAssertTrue(share.currentUserParticipant === share.owner)
        XCTAssertEqual(savedInfo(share), wire.shareInfo, "an unchanged share saves the state it was given")
        XCTAssertEqual(share.ancestorSnapshot.shareInfo, wire.shareInfo)

        let plain = CKRecord.make(wire: WireRecord(recordID: WireRecordID(recordName: "p"), recordType: "Party"))
        XCTAssertFalse(plain is CKShare)
        XCTAssertNil(plain.makeSave(policy: .allKeys).record.shareInfo, "a plain record sends no sharing state")
    }

    func testAShareAnotherUserOwnsHasNoCurrentUserParticipantUntilTheyTakePart() throws {
        var wire = savedShare(publicPermission: .readOnly, [participant("owner", "_olga", role: .owner, status: .accepted, permission: .readWrite)])
        wire.recordID = WireRecordID(recordName: "share-1", zoneID: WireZoneID(zoneName: "Parties", ownerName: "_olga"))
        let share = try received(wire)
        XCTAssertNil(share.currentUserParticipant)
        XCTAssertEqual(share.owner.userIdentity.userRecordID?.recordName, "_olga")

        var bare = wire
        bare.shareInfo = nil
        let withoutState = try received(bare)
        XCTAssertEqual(withoutState.owner.role, .owner)
        XCTAssertEqual(withoutState.owner.userIdentity.userRecordID?.recordName, "_olga", "a share without its state is owned by its zone's owner")
        XCTAssertEqual(withoutState.owner, withoutState.owner, "the same owner each time")
    }

    func testCopyIsAShareWithParticipantsOfItsOwn() throws {
        let share = try received(savedShare([owner, participant("ann", "_ann")]))
        let copy = try XCTUnwrap(share.copy() as? CKShare)
        XCTAssertEqual(copy.wireSnapshot, share.wireSnapshot)
        copy.participants.last?.permission = .readWrite
        XCTAssertEqual(share.participants.last?.permission, .readOnly)
        XCTAssertEqual(copy.participants.last, share.participants.last, "participants are equal by participant ID")
    }

    func testParticipantCopiesAreIndependentAndEqualByParticipantID() {
        let ann = CKShare.Participant(wire: participant("ann", "_ann"))
        let copy = ann.copy() as? CKShare.Participant
        copy?.permission = .readWrite
        XCTAssertEqual(ann.permission, .readOnly)
        XCTAssertEqual(copy, ann)
        XCTAssertEqual(copy?.hash, ann.hash)
        XCTAssertNotEqual(CKShare.Participant(wire: participant("other", "_ann")), ann)
        XCTAssertEqual(ann.wireValue, participant("ann", "_ann"))
    }

    // MARK: - Zones

    func testFetchedZoneCarriesItsZoneWideShare() {
        let shareID = WireRecordID(recordName: "cloudkit.zoneshare", zoneID: zoneID.wireValue)
        let zone = CKRecordZone(wire: WireZone(zoneID: zoneID.wireValue, capabilities: [.fetchChanges, .atomic, .sharing, .zoneWideSharing], share: WireReference(recordID: shareID, action: .none)))
        XCTAssertEqual(zone.share?.recordID, CKRecord.ID(recordName: CKRecordNameZoneWideShare, zoneID: zoneID))
        XCTAssertTrue(zone.capabilities.contains(.zoneWideSharing))
        XCTAssertNil(CKRecordZone(zoneID: zoneID).share)
    }

    // MARK: - Metadata

    private func metadata(rootRecordID: WireRecordID?, rootRecord: WireRecord? = nil) -> WireShareMetadata {
        WireShareMetadata(
            containerIdentifier: "iCloud.com.example.clowns",
            share: savedShare([participant("owner", "_olga", role: .owner, status: .accepted, permission: .readWrite), participant("ann", "__defaultOwner__")]),
            hierarchicalRootRecordID: rootRecordID,
            rootRecord: rootRecord,
            participantRole: .privateUser,
            participantStatus: .pending,
            participantPermission: .readOnly,
            ownerIdentity: identity("_olga")
        )
    }

    func testMetadataDescribesTheShareAndTheUsersPartInIt() throws {
        let rootID = WireRecordID(recordName: "party", zoneID: zoneID.wireValue)
        let root = WireRecord(recordID: rootID, recordType: "Party", fields: ["title": .string("Clowns")])
        let metadata = CKShare.Metadata(wire: self.metadata(rootRecordID: rootID, rootRecord: root))
        XCTAssertEqual(metadata.containerIdentifier, "iCloud.com.example.clowns")
        XCTAssertEqual(metadata.share.recordID.recordName, "share-1")
        XCTAssertEqual(metadata.share.url?.absoluteString, "https://stratus.invalid/share/abc")
        XCTAssertEqual(metadata.hierarchicalRootRecordID, CKRecord.ID(recordName: "party", zoneID: zoneID))
        XCTAssertEqual(metadata.rootRecord?["title"] as? String, "Clowns")
        XCTAssertEqual(metadata.participantRole, .privateUser)
        XCTAssertEqual(metadata.participantStatus, .pending)
        XCTAssertEqual(metadata.participantPermission, .readOnly)
        XCTAssertEqual(metadata.ownerIdentity.userRecordID?.recordName, "_olga")
        XCTAssertEqual(metadata.share.currentUserParticipant?.participantID, "ann")
        XCTAssertEqual(metadata.wireValue, self.metadata(rootRecordID: rootID, rootRecord: root))

        let zoneWide = CKShare.Metadata(wire: self.metadata(rootRecordID: nil))
        XCTAssertNil(zoneWide.hierarchicalRootRecordID)
        XCTAssertNil(zoneWide.rootRecord)
    }

    @available(*, deprecated)
    func testDeprecatedMetadataNamesFollowTheCurrentOnes() {
        let rootID = WireRecordID(recordName: "party", zoneID: zoneID.wireValue)
        let metadata = CKShare.Metadata(wire: self.metadata(rootRecordID: rootID))
        XCTAssertEqual(metadata.participantType, .privateUser)
        XCTAssertEqual(metadata.rootRecordID, CKRecord.ID(recordName: "party", zoneID: zoneID))
        XCTAssertEqual(CKShare.Metadata(wire: self.metadata(rootRecordID: nil)).rootRecordID, metadata.share.recordID)
    }
}
