import Foundation
import Stratus
import XCTest

/// Unsharing: deleting a share clears its root's `share`, deleting the root deletes its share,
/// and deleting the zone removes everything; each shows in the zone's changes.
final class ShareDeletionTests: ShareTestCase {
    private func changes(since token: [UInt8]?) async throws -> WireRecordChangesResponse {
        try await server.recordChanges(WireRecordChangesRequest(context: rawContext(john), zoneID: party, sinceToken: token))
    }

    func testDeletingAShareClearsItsRootsShareWithANewChangeTag() async throws {
        try await makeZone()
        let (root, _) = try await shareRoot("party")
        try await modify([item("guests", parent: "party")])
        let guests = try await stored("guests")
        let before = try await changes(since: nil)

        let response = try await modify(deleting: ["share"])
        XCTAssertNoThrow(try response.deleteResults.first?.result.get())
        let after = try await stored("party")
        XCTAssertNil(after.share)
        XCTAssertNotEqual(after.changeTag, root.changeTag)
        let guestsAfter = try await stored("guests")
        XCTAssertEqual(guestsAfter, guests, "children are not changed")

        let delta = try await changes(since: before.token)
        XCTAssertEqual(delta.changed.map(\.recordID.recordName), ["party"])
        XCTAssertNil(delta.changed.first?.share)
        XCTAssertEqual(delta.deleted.map(\.recordID.recordName), ["share"])
        XCTAssertEqual(delta.deleted.first?.recordType, WireShareRules.recordType)

        let stale = try await modify([item("party", tag: root.changeTag, fields: ["n": .int64(1)])])
        XCTAssertEqual(codes(stale), [.serverRecordChanged], "a copy from before the unsharing is stale")
    }

    func testDeletingTheRootDeletesItsShare() async throws {
        try await makeZone()
        try await shareRoot("party")
        let before = try await changes(since: nil)
        try await modify(deleting: ["party"])
        let share = try await fetch("share")
        XCTAssertNil(share)
        let delta = try await changes(since: before.token)
        XCTAssertEqual(Set(delta.deleted.map(\.recordID.recordName)), ["party", "share"])
        XCTAssertTrue(delta.changed.isEmpty)
    }

    func testARootDeletedByACascadeTakesItsShareWithIt() async throws {
        try await makeZone()
        try await modify([item("owner")])
        try await modify([item("party", fields: ["owner": .reference(WireReference(recordID: WireRecordID(recordName: "owner", zoneID: party), action: .deleteSelf))])])
        try await shareRoot("party")
        try await modify(deleting: ["owner"])
        let root = try await fetch("party")
        XCTAssertNil(root)
        let share = try await fetch("share")
        XCTAssertNil(share)
    }

    func testDeletingAShareAndSavingItsRootInOneRequestNeedsNoFreshTag() async throws {
        try await makeZone()
        let (root, _) = try await shareRoot("party")
        let response = try await modify([item("party", tag: root.changeTag, fields: ["title": .string("closed")])], deleting: ["share"])
        let saved = try saved(response, 0)
        XCTAssertNil(saved.share)
        let stored = try await stored("party")
        XCTAssertEqual(stored, saved)
    }

    func testARootCanBeSharedAgainInTheRequestThatDeletesItsShare() async throws {
        try await makeZone()
        let (root, _) = try await shareRoot("party")
        let response = try await modify([item("party", share: "fresh", tag: root.changeTag), share("fresh")], deleting: ["share"])
        XCTAssertEqual(codes(response), [nil, nil])
        let stored = try await stored("party")
        XCTAssertEqual(stored.share, reference("fresh"))
    }

    func testAnAtomicRequestThatFailsKeepsTheShareAndItsRoot() async throws {
        try await makeZone()
        let (root, share) = try await shareRoot("party")
        let response = try await modify([item("party", tag: "stale")], deleting: ["share"], atomic: true)
        XCTAssertEqual(codes(response), [.serverRecordChanged])
        let rootAfter = try await stored("party")
        XCTAssertEqual(rootAfter, root)
        let shareAfter = try await stored("share")
        XCTAssertEqual(shareAfter, share)
    }

    func testDeletingTheZoneRemovesSharesAndRoots() async throws {
        try await makeZone()
        try await shareRoot("party")
        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(john), deletes: [party]))
        try await makeZone()
        let root = try await fetch("party")
        XCTAssertNil(root)
        let share = try await fetch("share")
        XCTAssertNil(share)
        let (newRoot, _) = try await shareRoot("party")
        XCTAssertEqual(newRoot.share, reference("share"))
    }
}
