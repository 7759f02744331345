import Foundation
import Stratus
@testable import StratusServer
import XCTest

/// A share's participants and public permission as the server keeps them (CKShare.h): the
/// owner is the server's, invitations are pending until accepted, and the list is saved only
/// over the server's version whatever the save policy.
final class ShareParticipantsTests: ShareTestCase {
    private func participants(_ record: WireRecord?) -> [WireShareParticipant] {
        record?.shareInfo?.participants ?? []
    }

    // MARK: - The owner

    func testTheServerAddsTheOwnerOnTheFirstSave() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party", participants: [invitee("ann@example.com")])
        let owner = try XCTUnwrap(participants(share).first)
        XCTAssertEqual(owner.role, .owner)
        XCTAssertEqual(owner.acceptanceStatus, .accepted)
        XCTAssertEqual(owner.permission, .readWrite)
        XCTAssertEqual(owner.identity.userRecordName, WireZoneID.currentUserOwnerName, "the owner finds itself as the current user")
        XCTAssertFalse(owner.participantID.isEmpty)

        let again = try saved(try await modify([self.share(participants: participants(share), tag: share.changeTag)]), 0)
        XCTAssertEqual(participants(again).first, owner, "the owner stays as first saved")
    }

    func testAClientCanNeitherRemoveNorChangeTheOwner() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party")
        var owner = try XCTUnwrap(participants(share).first)
        owner.permission = .readOnly
        let demoted = try saved(try await modify([self.share(participants: [owner], tag: share.changeTag)]), 0)
        XCTAssertEqual(participants(demoted).first?.permission, .readWrite)
        let emptied = try saved(try await modify([self.share(participants: [], tag: demoted.changeTag)]), 0)
        XCTAssertEqual(participants(emptied).map(\.role), [.owner])
    }

    func testTheOwnersOwnEntryStandsForTheOwner() async throws {
        try await makeZone()
        let johnRecordName = try await device("john").userRecordID().recordName
        let me = { (name: String) in
            WireShareParticipant(participantID: "local-\(name)", identity: WireUserIdentity(userRecordName: name, lookupInfo: nil, nameComponents: nil), role: .owner, acceptanceStatus: .accepted, permission: .readWrite)
        }
        let (_, share) = try await shareRoot("party", participants: [me(WireZoneID.currentUserOwnerName), me(johnRecordName), invitee("ann@example.com")])
        XCTAssertEqual(participants(share).map(\.role), [.owner, .privateUser])
        XCTAssertEqual(participants(share).first?.identity.userRecordName, WireZoneID.currentUserOwnerName, "one owner entry, shown to the owner as the current user")
    }

    func testParticipantsCountTowardTheAccountsStorage() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party")
        let before = server.storageUsed(byAccount: "john")
        _ = try saved(try await modify([self.share(participants: (0..<20).map { invitee("guest\($0)@example.com") }, tag: share.changeTag)]), 0)
        XCTAssertGreaterThan(server.storageUsed(byAccount: "john"), before + 20 * "guest0@example.com".utf8.count)
    }

    // MARK: - Invitations

    func testNewParticipantsArePendingPrivateUsersWhateverTheClientSays() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party", participants: [
            invitee("ann@example.com", permission: .readWrite, status: .accepted),
            invitee("bob@example.com", role: .owner),
            invitee("cy@example.com", role: .publicUser, status: .removed),
        ])
        let invited = participants(share).dropFirst()
        XCTAssertEqual(invited.map(\.identity.lookupInfo?.emailAddress), ["ann@example.com", "bob@example.com", "cy@example.com"])
        XCTAssertEqual(invited.map(\.role), [.privateUser, .privateUser, .privateUser])
        XCTAssertEqual(invited.map(\.acceptanceStatus), [.pending, .pending, .pending])
        XCTAssertEqual(invited.map(\.permission), [.readWrite, .readOnly, .readOnly])
        XCTAssertEqual(invited.first?.participantID, "client-ann@example.com", "a participant keeps the ID its client gave it")
    }

    func testTheSamePersonIsInvitedOnce() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party", participants: [
            invitee("ann@example.com", id: "one"), invitee("ANN@example.com ", id: "two"), invitee("bob@example.com", id: "one"),
        ])
        let invited = participants(share).dropFirst()
        XCTAssertEqual(invited.count, 2)
        XCTAssertEqual(Set(invited.map(\.participantID)).count, 2, "participant IDs are unique in a share")
    }

    func testAParticipantThatNamesNobodyOrHasNoPermissionIsRefused() async throws {
        try await makeZone()
        let nobody = WireShareParticipant(participantID: "x", identity: WireUserIdentity(userRecordName: nil, lookupInfo: nil, nameComponents: nil), role: .privateUser, acceptanceStatus: .pending, permission: .readOnly)
        let response = try await modify([item("party", share: "share"), share(participants: [nobody])])
        XCTAssertEqual(codes(response), [.referenceViolation, .invalidArguments])
        let noPermission = try await modify([item("party", share: "share"), share(participants: [invitee("ann@example.com", permission: .none)])])
        XCTAssertEqual(codes(noPermission), [.referenceViolation, .invalidArguments])
        let unknownPublic = try await modify([item("party", share: "share"), share(publicPermission: .unknown)])
        XCTAssertEqual(codes(unknownPublic), [.referenceViolation, .invalidArguments])
    }

    func testRemovingAParticipantFromTheListDropsIt() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party", participants: [invitee("ann@example.com"), invitee("bob@example.com")])
        let withoutAnn = participants(share).filter { $0.identity.lookupInfo?.emailAddress != "ann@example.com" }
        let saved = try saved(try await modify([self.share(participants: withoutAnn, tag: share.changeTag)]), 0)
        XCTAssertEqual(participants(saved).compactMap(\.identity.lookupInfo?.emailAddress), ["bob@example.com"])
        let stored = try await stored("share")
        XCTAssertEqual(participants(stored), participants(saved))
    }

    func testAClientMayChangeAParticipantsPermissionButNotItsStatusOrRole() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party", participants: [invitee("ann@example.com")])
        var list = participants(share)
        list[1].permission = .readWrite
        list[1].acceptanceStatus = .accepted
        list[1].role = .owner
        let saved = try saved(try await modify([self.share(participants: list, tag: share.changeTag)]), 0)
        let ann = participants(saved)[1]
        XCTAssertEqual(ann.permission, .readWrite)
        XCTAssertEqual(ann.acceptanceStatus, .pending)
        XCTAssertEqual(ann.role, .privateUser)
        XCTAssertEqual(participants(saved).filter { $0.role == .owner }.count, 1)
    }

    func testAtMostOneHundredParticipantsTheOwnerIncluded() async throws {
        try await makeZone()
        let ninetyNine = (0..<99).map { invitee("guest\($0)@example.com") }
        let (_, share) = try await shareRoot("party", participants: ninetyNine)
        XCTAssertEqual(participants(share).count, 100)
        let more = try await modify([self.share(participants: participants(share) + [invitee("one-more@example.com")], tag: share.changeTag)])
        XCTAssertEqual(codes(more), [.tooManyParticipants])
        let stored = try await stored("share")
        XCTAssertEqual(stored, share)
    }

    // MARK: - The public permission

    func testRaisingThePublicPermissionRemovesPendingParticipants() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party", participants: [invitee("ann@example.com"), invitee("bob@example.com")])
        let open = try saved(try await modify([self.share(publicPermission: .readOnly, participants: participants(share), tag: share.changeTag)]), 0)
        XCTAssertEqual(open.shareInfo?.publicPermission, .readOnly)
        XCTAssertEqual(participants(open).map(\.role), [.owner])

        let invitedWhileOpen = try saved(try await modify([self.share(publicPermission: .readWrite, participants: [invitee("cy@example.com")], tag: open.changeTag)]), 0)
        XCTAssertEqual(participants(invitedWhileOpen).map(\.role), [.owner], "an open share has no pending invitations")
    }

    func testSettingThePublicPermissionBackToNoneKeepsTheOwnerAndTheNewInvitations() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party", publicPermission: .readWrite)
        let closed = try saved(try await modify([self.share(publicPermission: .none, participants: [invitee("ann@example.com")], tag: share.changeTag)]), 0)
        XCTAssertEqual(closed.shareInfo?.publicPermission, WireParticipantPermission.none)
        XCTAssertEqual(participants(closed).map(\.role), [.owner, .privateUser])
        XCTAssertEqual(participants(closed).last?.acceptanceStatus, .pending)
    }

    func testSettingThePublicPermissionToNoneRemovesAcceptedParticipants() throws {
        let owner = ShareRules.Owner(
            identity: WireUserIdentity(userRecordName: "_owner", lookupInfo: nil, nameComponents: nil),
            participantID: "owner", url: "https://www.icloud.com/share/x", newParticipantID: { "new-" + $0 }
        )
        let person = { (name: String, role: WireParticipantRole, status: WireParticipantAcceptanceStatus) in
            WireShareParticipant(participantID: name, identity: WireUserIdentity(userRecordName: name, lookupInfo: nil, nameComponents: nil), role: role, acceptanceStatus: status, permission: .readOnly)
        }
        let stored = WireShareInfo(publicPermission: .readOnly, url: "https://www.icloud.com/share/x", participants: [
            person("owner", .owner, .accepted), person("_joined", .publicUser, .accepted), person("_invited", .privateUser, .accepted),
        ])
        let stillOpen = try ShareRules.merged(stored: stored, incoming: WireShareInfo(publicPermission: .readWrite, participants: stored.participants), owner: owner, shareName: "s").get()
        XCTAssertEqual(stillOpen.participants.map(\.participantID), ["owner", "_joined", "_invited"], "accepted participants stay while the share is open")

        let closed = try ShareRules.merged(
            stored: stored,
            incoming: WireShareInfo(publicPermission: .none, participants: stored.participants + [person("_new", .privateUser, .unknown)]),
            owner: owner, shareName: "s"
        ).get()
        XCTAssertEqual(closed.participants.map(\.participantID), ["owner", "_new"])
        XCTAssertEqual(closed.participants.last?.acceptanceStatus, .pending)
    }

    // MARK: - Participants are saved only over the server's version

    func testAStaleSaveThatChangesTheParticipantsFailsUnderEveryPolicy() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party", participants: [invitee("ann@example.com")])
        let current = try saved(try await modify([self.share(participants: participants(share), tag: share.changeTag, fields: ["cloudkit.title": .string("v2")])]), 0)

        for policy in [WireSavePolicy.changedKeys, .allKeys, .ifServerRecordUnchanged] {
            let stale = try await modify([self.share(participants: participants(share) + [invitee("bob@example.com")], tag: share.changeTag)], policy: policy)
            XCTAssertEqual(codes(stale), [.serverRecordChanged], "\(policy)")
            if case .failure(let error) = stale.saveResults[0].result {
                XCTAssertEqual(error.serverRecord?.changeTag, current.changeTag, "\(policy)")
                XCTAssertEqual(participants(error.serverRecord), participants(current))
            }
        }
        let untagged = try await modify([self.share(participants: [], tag: nil)], policy: .allKeys)
        XCTAssertEqual(codes(untagged), [.serverRecordChanged], "removing everyone without a tag is a change too")
        let stored = try await stored("share")
        XCTAssertEqual(stored, current)
    }

    func testAStaleSaveThatLeavesTheParticipantsAloneGoesThroughUnderChangedKeys() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party", participants: [invitee("ann@example.com")])
        let current = try saved(try await modify([self.share(participants: participants(share), tag: share.changeTag, fields: ["cloudkit.title": .string("v2")])]), 0)

        let stale = try await modify([self.share(participants: participants(share), tag: share.changeTag, fields: ["cloudkit.title": .string("v3")])], policy: .changedKeys)
        let overwritten = try saved(stale, 0)
        XCTAssertEqual(overwritten.fields["cloudkit.title"], .string("v3"))
        XCTAssertEqual(participants(overwritten), participants(current))
        XCTAssertNotEqual(overwritten.changeTag, current.changeTag)
        var noState = self.share(tag: nil, fields: ["cloudkit.type": .string("party")])
        noState.record.shareInfo = nil
        let kept = try saved(try await modify([noState], policy: .allKeys), 0)
        XCTAssertEqual(participants(kept), participants(current), "a save without share state keeps the stored one")
    }

    func testACurrentSaveChangesTheParticipantsUnderChangedKeys() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party")
        let saved = try saved(try await modify([self.share(participants: [invitee("ann@example.com")], tag: share.changeTag)], policy: .changedKeys), 0)
        XCTAssertEqual(participants(saved).count, 2)
    }
}
