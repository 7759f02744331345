import Foundation
import Stratus
import XCTest

/// A record belongs to at most one share (`CKError.Code.alreadyShared`): the records under a
/// root (through `parent`) are shared with it, so no root may sit above or below another.
final class ShareHierarchyTests: ShareTestCase {
    /// Saves `names` as a chain: each record's parent is the one before it.
    private func chain(_ names: [String]) async throws {
        var saves: [WireRecordSave] = []
        for (index, name) in names.enumerated() {
            saves.append(item(name, parent: index == 0 ? nil : names[index - 1]))
        }
        let response = try await modify(saves)
        XCTAssertEqual(codes(response), Array(repeating: nil, count: names.count))
    }

    func testARecordInsideAShareCannotBecomeTheRootOfAnother() async throws {
        try await makeZone()
        try await chain(["party", "guests", "ann"])
        try await shareRoot("party")
        let ann = try await stored("ann")
        let response = try await modify([item("ann", share: "second", tag: ann.changeTag), share("second")])
        XCTAssertEqual(codes(response), [.alreadyShared, .alreadyShared])
        if case .failure(let error) = response.saveResults[1].result {
            XCTAssertTrue(error.message.contains("at most one share"), error.message)
        }
        let after = try await stored("ann")
        XCTAssertEqual(after, ann)
        let second = try await fetch("second")
        XCTAssertNil(second)
    }

    func testARecordAboveASharedRootCannotBecomeARoot() async throws {
        try await makeZone()
        try await chain(["party", "guests", "ann"])
        let ann = try await stored("ann")
        try await modify([item("ann", share: "share", tag: ann.changeTag), share()])
        let party = try await stored("party")
        let response = try await modify([item("party", share: "top", tag: party.changeTag), share("top")])
        XCTAssertEqual(codes(response), [.alreadyShared, .alreadyShared])
        let top = try await fetch("top")
        XCTAssertNil(top)
    }

    func testARootAndItsChildCannotBeSharedInOneRequest() async throws {
        try await makeZone()
        let response = try await modify([
            item("party", share: "top"), share("top"),
            item("guests", parent: "party", share: "inner"), share("inner"),
        ])
        XCTAssertEqual(codes(response), [nil, nil, .alreadyShared, .alreadyShared])
        let guests = try await fetch("guests")
        XCTAssertNil(guests, "the refused root was not saved either")
    }

    func testMovingASharedRootUnderAnotherSharedRecordFailsAndChangesNothing() async throws {
        try await makeZone()
        try await chain(["party", "guests"])
        try await shareRoot("party")
        try await shareRoot("picnic", as: "picnicShare")
        let picnic = try await stored("picnic")
        let guests = try await stored("guests")

        let response = try await modify([item("picnic", parent: "guests", tag: picnic.changeTag)])
        XCTAssertEqual(codes(response), [.alreadyShared])
        let after = try await stored("picnic")
        XCTAssertEqual(after, picnic)
        let guestsAfter = try await stored("guests")
        XCTAssertEqual(guestsAfter, guests, "a refused save touches no parent")
    }

    func testMovingAPlainRecordWhoseChildIsARootUnderAnotherShareFails() async throws {
        try await makeZone()
        try await shareRoot("party")
        try await chain(["folder", "picnic"])
        let picnic = try await stored("picnic")
        try await modify([item("picnic", share: "picnicShare", tag: picnic.changeTag), share("picnicShare")])
        let folder = try await stored("folder")
        let response = try await modify([item("folder", parent: "party", tag: folder.changeTag)])
        XCTAssertEqual(codes(response), [.alreadyShared])
    }

    func testMovingAPlainRecordFromOneShareToAnotherWorks() async throws {
        try await makeZone()
        try await shareRoot("party")
        try await shareRoot("picnic", as: "picnicShare")
        try await modify([item("ann", parent: "party")])
        let ann = try await stored("ann")
        let response = try await modify([item("ann", parent: "picnic", tag: ann.changeTag)])
        XCTAssertEqual(codes(response), [nil])
    }

    func testARecordOutsideEveryShareCanBecomeARoot() async throws {
        try await makeZone()
        try await shareRoot("party")
        try await chain(["picnic", "food"])
        let food = try await stored("food")
        let response = try await modify([item("food", share: "foodShare", tag: food.changeTag), share("foodShare")])
        XCTAssertEqual(codes(response), [nil, nil])
    }

    func testAParentCycleEndsTheWalk() async throws {
        try await makeZone()
        let response = try await modify([item("a", parent: "b"), item("b", parent: "a")])
        XCTAssertEqual(codes(response), [nil, nil])
        let a = try await stored("a")
        let shared = try await modify([item("a", share: "share", tag: a.changeTag), share()])
        XCTAssertEqual(codes(shared), [nil, nil])
        let b = try await stored("b")
        let second = try await modify([item("b", share: "second", tag: b.changeTag), share("second")])
        XCTAssertEqual(codes(second), [.alreadyShared, .alreadyShared], "b is under a, a under b: both in a's share")
    }

    func testADeepHierarchyIsFollowedToItsRoot() async throws {
        try await makeZone()
        let names = (0..<300).map { "level\($0)" }
        try await chain(names)
        try await modify([item("level0", share: "share", tag: try await stored("level0").changeTag), share()])
        let bottom = try await stored("level299")
        let response = try await modify([item("level299", share: "bottom", tag: bottom.changeTag), share("bottom")])
        XCTAssertEqual(codes(response), [.alreadyShared, .alreadyShared])
    }

    func testARefusedHierarchyInAnAtomicRequestKeepsEverythingStored() async throws {
        try await makeZone()
        try await chain(["party", "guests"])
        try await shareRoot("party")
        let guests = try await stored("guests")
        let party = try await stored("party")
        let response = try await modify(
            [item("party", tag: party.changeTag, fields: ["title": .string("new")]), item("guests", share: "inner", tag: guests.changeTag), share("inner")],
            atomic: true
        )
        XCTAssertEqual(codes(response), [.batchRequestFailed, .alreadyShared, .alreadyShared])
        let partyAfter = try await stored("party")
        XCTAssertEqual(partyAfter, party)
        let guestsAfter = try await stored("guests")
        XCTAssertEqual(guestsAfter, guests)
    }
}
