import Foundation
import Stratus
import XCTest

/// Zone-wide shares (`CKShare(recordZoneID:)`, record name `cloudkit.zoneshare`): saved
/// alone, they share every record of the zone, and a zone holds either one or record shares.
final class ZoneWideShareTests: ShareTestCase {
    private var zoneShareReference: WireReference { reference(WireShareRules.zoneWideShareName) }

    func testAZoneWideShareIsSavedAloneAndSharesEveryRecordOfTheZone() async throws {
        try await makeZone()
        try await modify([item("before")])
        let response = try await modify([zoneWideShare(participants: [invitee("ann@example.com")])])
        let share = try saved(response, 0)
        XCTAssertEqual(share.recordType, WireShareRules.recordType)
        XCTAssertTrue(share.shareInfo?.url?.hasPrefix("https://www.icloud.com/share/") == true)
        XCTAssertEqual(share.shareInfo?.participants.map(\.role), [.owner, .privateUser])

        let zone = try await lookUpZone()
        XCTAssertEqual(zone.share, zoneShareReference)
        let listed = try await server.listZones(rawContext(john)).zones.first { $0.zoneID == party }
        XCTAssertEqual(listed?.share, zoneShareReference)
        let again = try await makeZone()
        XCTAssertEqual(again.share, zoneShareReference, "saving the zone again returns it as it is")

        let before = try await stored("before")
        XCTAssertEqual(before.share, zoneShareReference)
        let after = try saved(try await modify([item("after")]), 0)
        XCTAssertEqual(after.share, zoneShareReference)
        let shareItself = try await stored(WireShareRules.zoneWideShareName)
        XCTAssertNil(shareItself.share)
    }

    func testARecordSavedBackWithTheZoneSharesReferenceIsNotARoot() async throws {
        try await makeZone()
        try await modify([zoneWideShare()])
        let first = try saved(try await modify([item("note")]), 0)
        var back = item("note", tag: first.changeTag, fields: ["n": .int64(1)])
        back.record.share = first.share
        let saved = try saved(try await modify([back]), 0)
        XCTAssertEqual(saved.share, zoneShareReference)
        let zone = try await lookUpZone()
        XCTAssertEqual(zone.share, zoneShareReference)
    }

    func testAZoneSharedAsAWholeCannotHoldRecordShares() async throws {
        try await makeZone()
        try await modify([zoneWideShare()])
        let response = try await modify([item("party", share: "share"), share()])
        XCTAssertEqual(codes(response), [.alreadyShared, .alreadyShared])
        let share = try await fetch("share")
        XCTAssertNil(share)
        let party = try await fetch("party")
        XCTAssertNil(party)
    }

    func testAZoneWithRecordSharesCannotBeSharedAsAWhole() async throws {
        try await makeZone()
        try await shareRoot("party")
        let response = try await modify([zoneWideShare()])
        XCTAssertEqual(codes(response), [.alreadyShared])
        let zone = try await lookUpZone()
        XCTAssertNil(zone.share)
        let zoneShare = try await fetch(WireShareRules.zoneWideShareName)
        XCTAssertNil(zoneShare)
    }

    func testAZoneWideShareSavedWithARecordShareIsRefused() async throws {
        try await makeZone()
        let response = try await modify([zoneWideShare(), item("party", share: "share"), share()])
        XCTAssertEqual(codes(response), [.alreadyShared, nil, nil], "the zone-wide share is refused; the record share stands")
        let zone = try await lookUpZone()
        XCTAssertNil(zone.share)
    }

    func testAZoneWideShareNeedsAZoneThatCanBeSharedAsAWhole() async throws {
        let response = try await modify([zoneWideShare(zone: .defaultZone)], zone: .defaultZone)
        XCTAssertEqual(codes(response), [.invalidArguments])
    }

    func testDeletingTheZoneWideShareUnsharesTheZone() async throws {
        try await makeZone()
        try await modify([item("note"), zoneWideShare()])
        let note = try await stored("note")
        XCTAssertEqual(note.share, zoneShareReference)

        let response = try await modify(deleting: [WireShareRules.zoneWideShareName])
        XCTAssertNoThrow(try response.deleteResults.first?.result.get())
        let zone = try await lookUpZone()
        XCTAssertNil(zone.share)
        let after = try await stored("note")
        XCTAssertNil(after.share)
        XCTAssertEqual(after.changeTag, note.changeTag, "unsharing the zone changes none of its records")
        let reshared = try saved(try await modify([item("party", share: "share"), share()]), 1)
        XCTAssertNotNil(reshared.shareInfo)
    }

    func testDeletingTheZoneRemovesItsShare() async throws {
        try await makeZone()
        try await modify([zoneWideShare()])
        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(john), deletes: [party]))
        let zone = try await makeZone()
        XCTAssertNil(zone.share)
        let share = try await fetch(WireShareRules.zoneWideShareName)
        XCTAssertNil(share)
    }
}
