import Foundation
import Stratus
import XCTest

/// Where shares live and how a new share is saved with its root record (cloudkit-api.md §10,
/// CKShare.h), enforced by the server whatever the client checked.
final class ShareRulesTests: ShareTestCase {
    // MARK: - Where shares live

    func testCustomZonesOfThePrivateDatabaseCanHoldRecordSharesAndZoneWideShares() async throws {
        let zone = try await makeZone()
        XCTAssertEqual(zone.capabilities, [.fetchChanges, .atomic, .sharing, .zoneWideSharing])
        let looked = try await lookUpZone()
        XCTAssertEqual(looked.capabilities, [.fetchChanges, .atomic, .sharing, .zoneWideSharing])
        XCTAssertNil(looked.share)
        let defaultZone = try await lookUpZone(.defaultZone)
        XCTAssertEqual(defaultZone.capabilities, [])
    }

    func testAShareInTheDefaultZoneFailsInvalidArgumentsAndItsRootIsNotSaved() async throws {
        let response = try await modify([item("root", zone: .defaultZone, share: "share"), share(zone: .defaultZone)], zone: .defaultZone)
        XCTAssertEqual(codes(response), [.referenceViolation, .invalidArguments])
        let root = try await fetch("root", zone: .defaultZone)
        XCTAssertNil(root)
        let zoneWide = try await modify([zoneWideShare(zone: .defaultZone)])
        XCTAssertEqual(codes(zoneWide), [.invalidArguments])
    }

    func testAShareInThePublicDatabaseFailsBadDatabase() async throws {
        let publicDatabase = device("john").publicCloudDatabase
        let response = try await modify([item("root", zone: .defaultZone, share: "share"), share(zone: .defaultZone)], zone: .defaultZone, in: publicDatabase)
        XCTAssertEqual(codes(response), [.referenceViolation, .badDatabase])
    }

    // MARK: - A new share and its root

    func testANewShareSavedWithItsRootGetsAURLAndAnOwnerAndTheRootPointsAtIt() async throws {
        try await makeZone()
        let (root, share) = try await shareRoot("party")
        XCTAssertEqual(root.share, reference("share"))
        XCTAssertNil(root.shareInfo)
        let info = try XCTUnwrap(share.shareInfo)
        XCTAssertTrue(info.url?.hasPrefix("https://www.icloud.com/share/") == true, "\(info.url ?? "nil")")
        XCTAssertEqual(info.participants.map(\.role), [.owner])

        let storedRoot = try await stored("party")
        XCTAssertEqual(storedRoot.share, reference("share"))
        XCTAssertEqual(storedRoot.changeTag, root.changeTag)
        let storedShare = try await stored("share")
        XCTAssertEqual(storedShare.recordType, "cloudkit.share")
        XCTAssertEqual(storedShare.shareInfo, info)
        XCTAssertNil(storedShare.share)
        XCTAssertNil(storedShare.parent)
    }

    func testTheRootMayComeAfterItsShareInTheRequest() async throws {
        try await makeZone()
        let response = try await modify([share(), item("party", share: "share")])
        XCTAssertEqual(codes(response), [nil, nil])
        let root = try await stored("party")
        XCTAssertEqual(root.share, reference("share"))
    }

    func testANewShareSavedWithoutItsRootFailsInvalidArgumentsAndNothingIsStored() async throws {
        try await makeZone()
        try await modify([item("party")])
        let before = try await stored("party")

        let alone = try await modify([share()])
        XCTAssertEqual(codes(alone), [.invalidArguments])
        if case .failure(let error) = alone.saveResults[0].result {
            XCTAssertTrue(error.message.contains("same request as its root record"), error.message)
        }
        let unrelated = try await modify([item("other"), share()])
        XCTAssertEqual(codes(unrelated), [nil, .invalidArguments])

        let share = try await fetch("share")
        XCTAssertNil(share)
        let after = try await stored("party")
        XCTAssertEqual(after, before)
    }

    func testARootNamingAShareThatNeitherExistsNorIsSavedFailsReferenceViolation() async throws {
        try await makeZone()
        let response = try await modify([item("party", share: "ghost"), item("other")])
        XCTAssertEqual(codes(response), [.referenceViolation, nil])
        let party = try await fetch("party")
        XCTAssertNil(party)
    }

    func testARootInAnotherZoneThanItsShareFails() async throws {
        try await makeZone()
        let other = WireZoneID(zoneName: "Other")
        try await makeZone(other)
        var root = item("party", zone: other)
        root.record.share = reference("share")
        let response = try await modify([root, share()])
        XCTAssertEqual(codes(response), [.invalidArguments, .invalidArguments])
    }

    func testAShareHasOneRoot() async throws {
        try await makeZone()
        let response = try await modify([item("first", share: "share"), item("second", share: "share"), share()])
        XCTAssertEqual(codes(response), [nil, .invalidArguments, nil])
        let second = try await stored("first")
        XCTAssertEqual(second.share, reference("share"))
    }

    func testARootWhoseNewShareFailsIsNotSavedAndTheShareWhoseRootFailsIsNotSaved() async throws {
        try await makeZone()
        let crowd = (0..<100).map { invitee("guest\($0)@example.com") }
        let tooMany = try await modify([item("party", share: "share"), share(participants: crowd)])
        XCTAssertEqual(codes(tooMany), [.referenceViolation, .tooManyParticipants])

        try await modify([item("party", fields: ["title": .string("v1")])])
        let staleRoot = try await modify([item("party", share: "share", tag: "stale"), share()])
        XCTAssertEqual(codes(staleRoot), [.serverRecordChanged, .invalidArguments])
        let share = try await fetch("share")
        XCTAssertNil(share)
        let party = try await stored("party")
        XCTAssertNil(party.share)
        XCTAssertEqual(party.fields["title"], .string("v1"))
    }

    func testInAnAtomicRequestARefusedShareFailsTheWholeZoneAndNothingStoredIsLost() async throws {
        try await makeZone()
        try await modify([item("kept", fields: ["n": .int64(1)])])
        let before = try await stored("kept")

        let response = try await modify(
            [item("kept", tag: before.changeTag, fields: ["n": .int64(2)]), item("party", share: "share"), share(participants: (0..<100).map { invitee("g\($0)@example.com") })],
            atomic: true
        )
        XCTAssertEqual(codes(response), [.batchRequestFailed, .referenceViolation, .tooManyParticipants])
        let kept = try await stored("kept")
        XCTAssertEqual(kept, before)
        let party = try await fetch("party")
        XCTAssertNil(party)
    }

    func testInANonAtomicRequestTheOtherSavesStandWhenAShareIsRefused() async throws {
        try await makeZone()
        let response = try await modify([item("plain"), share("lonely")], atomic: false)
        XCTAssertEqual(codes(response), [nil, .invalidArguments])
        let plain = try await fetch("plain")
        XCTAssertNotNil(plain)
    }

    // MARK: - The server owns `share`

    func testAnExistingShareIsSavedAgainWithoutItsRoot() async throws {
        try await makeZone()
        let (_, first) = try await shareRoot("party")
        let again = try await modify([share(participants: [invitee("ann@example.com")], tag: first.changeTag, fields: ["cloudkit.title": .string("Party")])])
        let saved = try saved(again, 0)
        XCTAssertEqual(saved.fields["cloudkit.title"], .string("Party"))
        XCTAssertEqual(saved.shareInfo?.participants.count, 2)
    }

    func testTheServerKeepsTheRootsShareWhateverTheClientSends() async throws {
        try await makeZone()
        let (root, _) = try await shareRoot("party")
        try await shareRoot("other", as: "otherShare")

        var cleared = item("party", tag: root.changeTag, fields: ["title": .string("renamed")])
        cleared.record.share = nil
        let clearedSave = try saved(try await modify([cleared]), 0)
        XCTAssertEqual(clearedSave.share, reference("share"))

        let moved = try saved(try await modify([item("party", share: "otherShare", tag: clearedSave.changeTag)]), 0)
        XCTAssertEqual(moved.share, reference("share"))
        let party = try await stored("party")
        XCTAssertEqual(party.share, reference("share"))
        XCTAssertEqual(party.fields["title"], .string("renamed"))
    }

    func testARecordNotSharedCannotBePointedAtAnotherRecordsShare() async throws {
        try await makeZone()
        try await shareRoot("party")
        let response = try await modify([item("intruder", share: "share")])
        let intruder = try saved(response, 0)
        XCTAssertNil(intruder.share)
        let root = try await stored("party")
        XCTAssertEqual(root.share, reference("share"))
    }

    func testASecondNewShareForARootThatIsSharedFailsAlreadyShared() async throws {
        try await makeZone()
        let (root, _) = try await shareRoot("party")
        let response = try await modify([item("party", share: "second", tag: root.changeTag), share("second")])
        XCTAssertEqual(codes(response), [nil, .alreadyShared])
        let second = try await fetch("second")
        XCTAssertNil(second)
        let party = try await stored("party")
        XCTAssertEqual(party.share, reference("share"))
    }

    func testARecordOtherThanAShareCannotTakeTheZoneWideShareName() async throws {
        try await makeZone()
        let response = try await modify([item(WireShareRules.zoneWideShareName)])
        XCTAssertEqual(codes(response), [.invalidArguments])
    }

    func testShareStateSentOnAnotherRecordIsDropped() async throws {
        try await makeZone()
        var record = item("party")
        record.record.shareInfo = WireShareInfo(publicPermission: .readWrite, url: "https://example.com", participants: [])
        let saved = try saved(try await modify([record]), 0)
        XCTAssertNil(saved.shareInfo)
    }

    // MARK: - The URL

    func testTheURLIsAssignedOnceAndAClientSentURLIsIgnored() async throws {
        try await makeZone()
        let (_, first) = try await shareRoot("party")
        let url = try XCTUnwrap(first.shareInfo?.url)
        let again = try saved(try await modify([share(url: "https://www.icloud.com/share/forged", tag: first.changeTag)]), 0)
        XCTAssertEqual(again.shareInfo?.url, url)

        let (_, other) = try await shareRoot("other", as: "otherShare")
        XCTAssertNotEqual(other.shareInfo?.url, url)
        let forgedNew = try await modify([item("third", share: "thirdShare"), share("thirdShare", url: "https://www.icloud.com/share/forged")])
        let third = try saved(forgedNew, 1)
        XCTAssertNotEqual(third.shareInfo?.url, "https://www.icloud.com/share/forged")
    }

    func testTheURLIsStableForItsRootAcrossSharesAndDiffersBetweenServers() async throws {
        try await makeZone()
        let (_, first) = try await shareRoot("party")
        try await modify(deleting: ["share"])
        let root = try await stored("party")
        let reshared = try await modify([item("party", share: "again", tag: root.changeTag), share("again")])
        let second = try saved(reshared, 1)
        XCTAssertEqual(second.shareInfo?.url, first.shareInfo?.url, "CKShare.h: a new share of the same root has the same URL")

        let elsewhere = CloudServer(clock: clock)
        let otherJohn = elsewhere.container(identifier: identifier, account: "john").privateCloudDatabase
        let context = otherJohn.requestPath(qualityOfService: .default).context()
        _ = try await elsewhere.modifyZones(WireZonesModifyRequest(context: context, saves: [WireZone(zoneID: party)]))
        let response = try await elsewhere.modifyRecords(WireRecordsModifyRequest(context: context, saves: [item("party", share: "share"), share()], savePolicy: .ifServerRecordUnchanged, isAtomic: false))
        let foreign = try saved(response, 1)
        XCTAssertNotEqual(foreign.shareInfo?.url, first.shareInfo?.url)
    }

    // MARK: - Shares flow through everything else

    func testSharesAndRootsFlowThroughChangesQueriesAndLookups() async throws {
        try await makeZone()
        let (_, share) = try await shareRoot("party", participants: [invitee("ann@example.com")])

        let changes = try await server.recordChanges(WireRecordChangesRequest(context: rawContext(john), zoneID: party))
        XCTAssertEqual(Set(changes.changed.map(\.recordID.recordName)), ["party", "share"])
        XCTAssertEqual(changes.changed.first { $0.recordID.recordName == "share" }?.shareInfo, share.shareInfo)
        XCTAssertEqual(changes.changed.first { $0.recordID.recordName == "party" }?.share, reference("share"))

        let query = try await server.queryRecords(WireQueryRequest(
            context: rawContext(john),
            query: WireQuery(recordType: WireShareRules.recordType, predicate: .constant(true)),
            zoneID: party
        ))
        XCTAssertEqual(query.records.map(\.recordID.recordName), ["share"])
        XCTAssertEqual(query.records.first?.shareInfo, share.shareInfo)

        let systemFieldsOnly = try await server.lookupRecords(WireRecordsLookupRequest(context: rawContext(john), recordIDs: [WireRecordID(recordName: "share", zoneID: party)], desiredKeys: []))
        XCTAssertEqual(try systemFieldsOnly.results.first?.result.get().shareInfo, share.shareInfo)
    }

    func testShareSystemFieldsAreAcceptedOnSharesOnly() async throws {
        try await makeZone()
        let fields: [String: WireFieldValue] = ["cloudkit.title": .string("Party"), "cloudkit.type": .string("com.example.party"), "cloudkit.thumbnailImageData": .bytes(Data([1, 2]))]
        let response = try await modify([item("party", share: "share"), share(fields: fields)])
        XCTAssertEqual(try saved(response, 1).fields, fields)
        let onItem = try await modify([item("plain", fields: ["cloudkit.title": .string("x")])])
        XCTAssertEqual(codes(onItem), [.invalidArguments])
    }

    func testParticipantsCountTowardTheRecordSize() async throws {
        try await makeZone()
        // The title alone fits in a record (14 bytes of key, 1,048,512 of value); with the
        // participants and URL it does not.
        let big = String(repeating: "x", count: WireLimits.maximumRecordBytes - 64)
        let response = try await modify([item("party", share: "share"), share(participants: [invitee("ann@example.com")], fields: ["cloudkit.title": .string(big)])])
        XCTAssertEqual(codes(response), [.referenceViolation, .limitExceeded])
    }
}
