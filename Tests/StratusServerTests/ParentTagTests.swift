import Foundation
@_spi(Testing) import Stratus
import XCTest

/// Saving a record whose `parent` is not saved in the same request gives the parent a new
/// change tag, as iCloud does; ordinary references never change their target (design.md).
final class ParentTagTests: ShareTestCase {
    func testSavingAChildChangesItsParentsTagAndLogsTheParentAsChanged() async throws {
        try await makeZone()
        try await modify([item("folder", fields: ["name": .string("Docs")])])
        let folder = try await stored("folder")
        let before = try await server.recordChanges(WireRecordChangesRequest(context: rawContext(john), zoneID: party))

        try await modify([item("file", parent: "folder")])
        let after = try await stored("folder")
        XCTAssertNotEqual(after.changeTag, folder.changeTag)
        XCTAssertEqual(after.fields, folder.fields)
        XCTAssertEqual(after.modificationDate, folder.modificationDate, "only the tag changes")
        let delta = try await server.recordChanges(WireRecordChangesRequest(context: rawContext(john), zoneID: party, sinceToken: before.token))
        XCTAssertEqual(Set(delta.changed.map(\.recordID.recordName)), ["folder", "file"])

        let stale = try await modify([item("folder", tag: folder.changeTag, fields: ["name": .string("Old")])])
        XCTAssertEqual(codes(stale), [.serverRecordChanged])
    }

    func testSavingAChildAgainChangesTheParentAgain() async throws {
        try await makeZone()
        try await modify([item("folder"), item("file", parent: "folder")])
        let folder = try await stored("folder")
        let file = try await stored("file")
        var resave = item("file", tag: file.changeTag, fields: ["size": .int64(2)])
        resave.parentChanged = false
        try await modify([resave])
        let after = try await stored("folder")
        XCTAssertNotEqual(after.changeTag, folder.changeTag)
    }

    func testAParentSavedInTheSameRequestGetsOnlyItsOwnNewTag() async throws {
        try await makeZone()
        let response = try await modify([item("file", parent: "folder"), item("folder")])
        let folder = try saved(response, 1)
        let stored = try await stored("folder")
        XCTAssertEqual(stored.changeTag, folder.changeTag)
    }

    func testSeveralChildrenInOneRequestChangeTheParentOnce() async throws {
        try await makeZone()
        try await modify([item("folder")])
        let before = try await server.recordChanges(WireRecordChangesRequest(context: rawContext(john), zoneID: party))
        try await modify([item("a", parent: "folder"), item("b", parent: "folder"), item("c", parent: "folder")])
        let logged = server.loggedChanges(ofZone: party, containerIdentifier: identifier, account: "john")
        XCTAssertEqual(logged.filter { $0.recordName == "folder" }.count, 1)
        let delta = try await server.recordChanges(WireRecordChangesRequest(context: rawContext(john), zoneID: party, sinceToken: before.token))
        XCTAssertEqual(Set(delta.changed.map(\.recordID.recordName)), ["folder", "a", "b", "c"])
    }

    func testOrdinaryReferencesNeverChangeTheirTarget() async throws {
        try await makeZone()
        try await modify([item("target")])
        let target = try await stored("target")
        let link = { (action: WireReference.Action) in WireFieldValue.reference(WireReference(recordID: WireRecordID(recordName: "target", zoneID: self.party), action: action)) }
        try await modify([item("weak", fields: ["to": link(.none)]), item("strong", fields: ["to": link(.deleteSelf)])])
        let after = try await stored("target")
        XCTAssertEqual(after.changeTag, target.changeTag)
    }

    func testAFailedChildSaveLeavesTheParentAlone() async throws {
        try await makeZone()
        try await modify([item("folder"), item("file", parent: "folder")])
        let folder = try await stored("folder")
        let stale = try await modify([item("file", parent: "folder", tag: "stale")])
        XCTAssertEqual(codes(stale), [.serverRecordChanged])
        let after = try await stored("folder")
        XCTAssertEqual(after, folder)
    }

    func testAnAtomicBatchThatFailsLeavesTheParentAlone() async throws {
        try await makeZone()
        try await modify([item("folder")])
        let folder = try await stored("folder")
        let response = try await modify([item("file", parent: "folder"), item("folder-copy", share: "ghost")], atomic: true)
        XCTAssertEqual(codes(response), [.batchRequestFailed, .referenceViolation])
        let after = try await stored("folder")
        XCTAssertEqual(after, folder)
    }

    func testTheParentChangesInTheDefaultZoneToo() async throws {
        try await modify([item("folder", zone: .defaultZone)], zone: .defaultZone)
        let folder = try await stored("folder", zone: .defaultZone)
        try await modify([item("file", zone: .defaultZone, parent: "folder")], zone: .defaultZone)
        let after = try await stored("folder", zone: .defaultZone)
        XCTAssertNotEqual(after.changeTag, folder.changeTag)
    }
}
