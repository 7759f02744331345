import Foundation
import Stratus
import XCTest

/// A record's parent must exist: deleting a record that is the `parent` of a record that
/// stays is refused with `referenceViolation` and deletes nothing, in every database, at the
/// `CloudService` boundary. A parent goes with its children in one request, after them, or
/// through a `deleteSelf` cascade that reaches them.
final class ParentDeletionTests: ShareTestCase {
    /// The error code of each delete result, nil for a success, in request order.
    private func deleteCodes(_ response: WireRecordsModifyResponse) -> [CKErrorCode?] {
        response.deleteResults.map { item in
            if case .failure(let error) = item.result { return error.code }
            return nil
        }
    }

    /// The names among `names` that `zone` of john's private database still holds.
    private func remaining(_ names: [String], zone: WireZoneID? = nil) async throws -> [String] {
        var found: [String] = []
        for name in names where try await fetch(name, zone: zone) != nil { found.append(name) }
        return found
    }

    /// A record of type `Item` holding a `deleteSelf` reference to `target` in field "owner".
    private func owned(_ name: String, by target: String, parent: String? = nil) -> WireRecordSave {
        item(name, parent: parent, fields: ["owner": .reference(WireReference(recordID: WireRecordID(recordName: target, zoneID: party), action: .deleteSelf))])
    }

    func testDeletingAParentWhoseChildStaysIsRefusedAndDeletesNothing() async throws {
        try await makeZone()
        try await modify([item("folder"), item("file", parent: "folder")])
        let folder = try await stored("folder")

        let response = try await modify(deleting: ["folder"])

        XCTAssertEqual(deleteCodes(response), [.referenceViolation])
        if case .failure(let error) = response.deleteResults[0].result {
            XCTAssertTrue(error.message.contains("'file'"), error.message)
        }
        let after = try await stored("folder")
        XCTAssertEqual(after, folder, "nothing of the parent changed")
        let left = try await remaining(["folder", "file"])
        XCTAssertEqual(left, ["folder", "file"])
    }

    func testAParentDeletedWithItsChildrenInOneRequestIsDeletedWhateverTheOrder() async throws {
        try await makeZone()
        try await modify([item("folder"), item("sub", parent: "folder"), item("file", parent: "sub")])

        let response = try await modify(deleting: ["folder", "sub", "file"])

        XCTAssertEqual(deleteCodes(response), [nil, nil, nil])
        let left = try await remaining(["folder", "sub", "file"])
        XCTAssertEqual(left, [])
    }

    func testAParentWhoseChildrenWereDeletedBeforeIsDeleted() async throws {
        try await makeZone()
        try await modify([item("folder"), item("file", parent: "folder")])
        try await modify(deleting: ["file"])

        let response = try await modify(deleting: ["folder"])

        XCTAssertEqual(deleteCodes(response), [nil])
    }

    func testADeleteSelfCascadeThatTakesTheChildrenDeletesTheParent() async throws {
        try await makeZone()
        try await modify([item("folder"), owned("file", by: "folder", parent: "folder")])

        let response = try await modify(deleting: ["folder"])

        XCTAssertEqual(deleteCodes(response), [nil])
        let left = try await remaining(["folder", "file"])
        XCTAssertEqual(left, [])
    }

    func testACascadeThatReachesAParentWhoseChildStaysIsRefusedAndDeletesNothing() async throws {
        try await makeZone()
        // Deleting "list" cascades to "folder" (its deleteSelf source), whose child "file" stays.
        try await modify([item("list"), owned("folder", by: "list"), item("file", parent: "folder")])

        let response = try await modify(deleting: ["list"])

        XCTAssertEqual(deleteCodes(response), [.referenceViolation])
        if case .failure(let error) = response.deleteResults[0].result {
            XCTAssertTrue(error.message.contains("deleting 'list' deletes it"), error.message)
        }
        let left = try await remaining(["list", "folder", "file"])
        XCTAssertEqual(left, ["list", "folder", "file"])
    }

    func testANonAtomicRequestFailsOnlyTheDeletesThatWouldLeaveAChildBehind() async throws {
        try await makeZone()
        try await modify([item("top"), item("middle", parent: "top"), item("bottom", parent: "middle"), item("loose")])

        // "middle" would leave "bottom"; "top" relied on "middle" going, so it fails in turn.
        let response = try await modify(deleting: ["top", "middle", "loose"])

        XCTAssertEqual(deleteCodes(response), [.referenceViolation, .referenceViolation, nil])
        let left = try await remaining(["top", "middle", "bottom", "loose"])
        XCTAssertEqual(left, ["top", "middle", "bottom"])
    }

    func testAnAtomicRequestInAnAtomicZoneFailsWhole() async throws {
        try await makeZone()
        try await modify([item("folder"), item("file", parent: "folder"), item("loose")])

        let response = try await modify([item("new")], deleting: ["folder", "loose"], atomic: true)

        XCTAssertEqual(deleteCodes(response), [.referenceViolation, .batchRequestFailed])
        XCTAssertEqual(codes(response), [.batchRequestFailed])
        let left = try await remaining(["folder", "file", "loose", "new"])
        XCTAssertEqual(left, ["folder", "file", "loose"])
    }

    func testTheRuleHoldsInTheDefaultZoneAndThePublicDatabase() async throws {
        try await modify([item("folder", zone: .defaultZone), item("file", zone: .defaultZone, parent: "folder")], zone: .defaultZone)
        let privateDelete = try await modify(deleting: ["folder"], zone: .defaultZone)
        XCTAssertEqual(deleteCodes(privateDelete), [.referenceViolation])

        let publicDatabase = device("john").publicCloudDatabase
        try await modify([item("folder", zone: .defaultZone), item("file", zone: .defaultZone, parent: "folder")], zone: .defaultZone, in: publicDatabase)
        let publicDelete = try await modify(deleting: ["folder"], zone: .defaultZone, in: publicDatabase)
        XCTAssertEqual(deleteCodes(publicDelete), [.referenceViolation])
        let both = try await modify(deleting: ["file", "folder"], zone: .defaultZone, in: publicDatabase)
        XCTAssertEqual(deleteCodes(both), [nil, nil])
    }

    func testDeletingASharedRootWhoseHierarchyStaysIsRefusedAndKeepsTheShare() async throws {
        try await makeZone()
        try await modify([item("party"), item("ann", parent: "party")])
        try await shareRoot("party")

        let refused = try await modify(deleting: ["party"])
        XCTAssertEqual(deleteCodes(refused), [.referenceViolation])
        let share = try await fetch("share")
        XCTAssertNotNil(share, "the share stays with its root")

        let whole = try await modify(deleting: ["party", "ann"])
        XCTAssertEqual(deleteCodes(whole), [nil, nil])
        let left = try await remaining(["party", "ann", "share"])
        XCTAssertEqual(left, [])
    }

    func testARefusalNamesNoRecordOutsideTheParticipantsShare() async throws {
        try await makeZone()
        server.setEmailAddress("bob@example.com", forAccount: "bob")
        let bob = device("bob").sharedCloudDatabase
        try await modify([item("party"), item("note", parent: "party")])
        let (_, share) = try await shareRoot("party", participants: [invitee("bob@example.com", permission: .readWrite)])
        let accepted = try await server.acceptShares(WireAcceptSharesRequest(context: rawContext(bob), ids: [try XCTUnwrap(share.shareInfo?.url)]))
        _ = try XCTUnwrap(accepted.results.first).result.get()
        // Outside the share: "secret" goes with "note" (deleteSelf), and "hidden-child" stays.
        try await modify([owned("secret", by: "note"), item("hidden-child", parent: "secret")])
        let sharedParty = WireZoneID(zoneName: party.zoneName, ownerName: server.userRecordName(account: "john", containerIdentifier: identifier))

        let response = try await modify(deleting: ["note"], zone: sharedParty, in: bob)

        XCTAssertEqual(deleteCodes(response), [.referenceViolation])
        if case .failure(let error) = response.deleteResults[0].result {
            XCTAssertFalse(error.message.contains("secret"), error.message)
            XCTAssertFalse(error.message.contains("hidden-child"), error.message)
            XCTAssertTrue(error.message.contains("'note'"), error.message)
        }
        let left = try await remaining(["note", "secret", "hidden-child"])
        XCTAssertEqual(left, ["note", "secret", "hidden-child"])
    }

    func testAPublicRefusalNamesNoChildTheCallerCannotRead() async throws {
        server.setPermissions(RecordPermissions(world: [], authenticated: [.create], creator: [.read, .write]), forRecordType: "Secret", containerIdentifier: identifier)
        let alice = device("alice").publicCloudDatabase
        let mallory = device("mallory").publicCloudDatabase
        try await modify([item("folder", zone: .defaultZone)], zone: .defaultZone, in: alice)
        var diary = item("diary", zone: .defaultZone, parent: "folder")
        diary.record.recordType = "Secret"
        let saved = try await modify([diary], zone: .defaultZone, in: mallory)
        XCTAssertEqual(codes(saved), [nil])

        let response = try await modify(deleting: ["folder"], zone: .defaultZone, in: alice)

        XCTAssertEqual(deleteCodes(response), [.referenceViolation], "a child stays, whoever wrote it")
        if case .failure(let error) = response.deleteResults[0].result {
            XCTAssertFalse(error.message.contains("diary"), error.message)
        }
    }
}
