import Foundation
import Stratus
import XCTest

/// A share's `publicPermission` is what anyone with its URL may do: a public user who joined
/// through the link has no permission of their own, so changing the public permission changes
/// what every public user may do, at the `CloudService` boundary.
final class SharePublicPermissionTests: ShareTestCase {
    private var mary: CKDatabase!

    override func setUp() {
        super.setUp()
        mary = device("mary").sharedCloudDatabase
    }

    override func tearDown() {
        mary = nil
        super.tearDown()
    }

    /// The Party zone as shared databases name it.
    private var sharedParty: WireZoneID {
        WireZoneID(zoneName: party.zoneName, ownerName: server.userRecordName(account: "john", containerIdentifier: identifier))
    }

    /// John's "party" with a child "ann", shared with anyone who has the link at
    /// `publicPermission`, and mary joined through the link.
    private func joinedPublicParty(_ publicPermission: WireParticipantPermission) async throws -> WireRecord {
        try await makeZone()
        try await modify([item("party"), item("ann", parent: "party")])
        let (_, share) = try await shareRoot("party", publicPermission: publicPermission)
        let url = try XCTUnwrap(share.shareInfo?.url)
        let response = try await server.acceptShares(WireAcceptSharesRequest(context: rawContext(mary), ids: [url]))
        _ = try XCTUnwrap(response.results.first).result.get()
        return try await stored("share")
    }

    /// John saves the share with `publicPermission`, sending the participants as he fetched
    /// them (mary's entry with the permission she joined with).
    private func setPublicPermission(_ publicPermission: WireParticipantPermission) async throws -> WireRecord {
        let current = try await stored("share")
        var save = share(publicPermission: publicPermission, participants: current.shareInfo?.participants ?? [], tag: current.changeTag)
        save.record.shareInfo?.url = current.shareInfo?.url
        return try saved(try await modify([save]), 0)
    }

    /// Mary's writes through her shared database: a new child of the party, an edit of ann
    /// and the deletion of ann, each in its own request; their error codes (nil: success).
    private func marysWrites(_ suffix: String) async throws -> [CKErrorCode?] {
        var created = item("new-\(suffix)", zone: sharedParty, parent: "party")
        created.record.fields["name"] = .string(suffix)
        let create = try await modify([created], zone: sharedParty, in: mary)
        let fetched = try await fetch("ann", zone: sharedParty, in: mary)
        let ann = try XCTUnwrap(fetched)
        var edit = WireRecordSave(record: ann)
        edit.record.fields["note"] = .string(suffix)
        let change = try await modify([edit], zone: sharedParty, in: mary)
        let delete = try await modify(deleting: ["ann"], zone: sharedParty, in: mary)
        let deleteCode: CKErrorCode? = if case .failure(let error) = delete.deleteResults.first?.result { error.code } else { nil }
        return codes(create) + codes(change) + [deleteCode]
    }

    func testLoweringThePublicPermissionToReadOnlyStopsPublicUsersWriting() async throws {
        _ = try await joinedPublicParty(.readWrite)

        let lowered = try await setPublicPermission(.readOnly)

        XCTAssertEqual(lowered.shareInfo?.publicPermission, .readOnly)
        let publicUser = try XCTUnwrap(lowered.shareInfo?.participants.first { $0.role == .publicUser })
        XCTAssertEqual(publicUser.permission, .readOnly, "a public user's permission is the share's public permission")
        let writes = try await marysWrites("after")
        XCTAssertEqual(writes, [.permissionFailure, .permissionFailure, .permissionFailure])
        let ann = try await fetch("ann", zone: sharedParty, in: mary)
        XCTAssertNotNil(ann, "mary still reads the share")
    }

    func testRaisingThePublicPermissionLetsPublicUsersWrite() async throws {
        _ = try await joinedPublicParty(.readOnly)

        let raised = try await setPublicPermission(.readWrite)

        XCTAssertEqual(raised.shareInfo?.participants.first { $0.role == .publicUser }?.permission, .readWrite)
        let writes = try await marysWrites("after")
        XCTAssertEqual(writes, [nil, nil, nil])
    }

    func testTheOwnerCannotGiveAPublicUserAPermissionOfTheirOwn() async throws {
        let share = try await joinedPublicParty(.readOnly)
        var participants = share.shareInfo?.participants ?? []
        for index in participants.indices where participants[index].role == .publicUser { participants[index].permission = .readWrite }

        var save = self.share(publicPermission: .readOnly, participants: participants, tag: share.changeTag)
        save.record.shareInfo?.url = share.shareInfo?.url
        let saved = try saved(try await modify([save]), 0)

        XCTAssertEqual(saved.shareInfo?.participants.first { $0.role == .publicUser }?.permission, .readOnly)
        let writes = try await marysWrites("after")
        XCTAssertEqual(writes, [.permissionFailure, .permissionFailure, .permissionFailure])
    }

    func testAURLKeptFromADeletedShareLeadsNowhereThenToALaterShareOfTheSameRoot() async throws {
        try await makeZone()
        try await modify([item("party")])
        let (_, first) = try await shareRoot("party")
        let url = try XCTUnwrap(first.shareInfo?.url)
        try await modify(deleting: ["share"])
        let gone = try await server.acceptShares(WireAcceptSharesRequest(context: rawContext(mary), ids: [url]))
        if case .failure(let error)? = gone.results.first?.result {
            XCTAssertEqual(error.code, .unknownItem)
        } else {
            XCTFail("no share has the URL while the root is not shared")
        }

        // Apple: the URL "is stable and persists across shares and reshares of the same root
        // record", so whoever kept it reaches the new share, and joins it when it is public.
        let (_, second) = try await shareRoot("party", as: "share2", publicPermission: .readOnly)
        XCTAssertEqual(second.shareInfo?.url, url)
        let joined = try await server.acceptShares(WireAcceptSharesRequest(context: rawContext(mary), ids: [url]))
        let share = try XCTUnwrap(joined.results.first).result.get()
        XCTAssertEqual(share.recordID.recordName, "share2")
    }
}
