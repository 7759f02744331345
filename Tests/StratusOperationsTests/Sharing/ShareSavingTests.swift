import Foundation
import Stratus
import XCTest

/// The owner's side of sharing through the public API: a share saved with its root in one
/// modify call comes back as a `CKShare` the server completed, and reads back as one.
final class ShareSavingTests: OperationTestCase {
    private let zoneID = CKRecordZone.ID(zoneName: "Parties")

    private func makeZone() async throws {
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
    }

    func testAShareSavedWithItsRootComesBackCompletedByTheServer() async throws {
        try await makeZone()
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party", zoneID: zoneID))
        party["title"] = "Big Top Bash"
        let share = CKShare(rootRecord: party)
        share[CKShare.SystemFieldKey.title] = "Big Top Bash"
        share.publicPermission = .none

        let (saves, _) = try await database.modifyRecords(saving: [party, share], deleting: [])

        let savedShare = try XCTUnwrap(try saves[share.recordID]?.get() as? CKShare)
        XCTAssertNotNil(savedShare.url, "the server gives a new share its URL")
        XCTAssertEqual(savedShare.owner.role, .owner)
        XCTAssertEqual(savedShare.owner.acceptanceStatus, .accepted)
        XCTAssertEqual(savedShare.owner.permission, .readWrite)
        XCTAssertEqual(savedShare.currentUserParticipant?.participantID, savedShare.owner.participantID, "the owner is the current user")
        XCTAssertEqual(savedShare[CKShare.SystemFieldKey.title] as? String, "Big Top Bash")
        let savedRoot = try XCTUnwrap(try saves[party.recordID]?.get())
        XCTAssertEqual(savedRoot.share?.recordID, share.recordID)

        let fetched = try await database.record(for: share.recordID)
        let fetchedShare = try XCTUnwrap(fetched as? CKShare, "a share reads back as a CKShare")
        XCTAssertEqual(fetchedShare.url, savedShare.url)
        XCTAssertEqual(fetchedShare.participants.count, 1)
    }

    func testAShareSavedWithoutItsRootIsRefused() async throws {
        try await makeZone()
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party", zoneID: zoneID))
        _ = try await database.modifyRecords(saving: [party], deleting: [])
        let stored = try await database.record(for: party.recordID)
        let share = CKShare(rootRecord: stored)

        let (saves, _) = try await database.modifyRecords(saving: [share], deleting: [], atomically: false)

        XCTAssertEqual((saves[share.recordID].flatMap { result -> CKError? in
            if case .failure(let error) = result { return error as? CKError }
            return nil
        })?.code, .invalidArguments)
        let root = try await database.record(for: party.recordID)
        XCTAssertNil(root.share, "the root keeps no share")
    }

    func testAnInvitedParticipantIsPendingUntilTheyAccept() async throws {
        try await makeZone()
        server.setEmailAddress("mary@example.com", forAccount: "mary")
        let mary = try await database.container.shareParticipant(forEmailAddress: "mary@example.com")
        mary.permission = .readWrite
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party", zoneID: zoneID))
        let share = CKShare(rootRecord: party)
        share.addParticipant(mary)

        let (saves, _) = try await database.modifyRecords(saving: [party, share], deleting: [])

        let saved = try XCTUnwrap(try saves[share.recordID]?.get() as? CKShare)
        XCTAssertEqual(saved.participants.count, 2)
        let invited = try XCTUnwrap(saved.participants.first { $0.role == .privateUser })
        XCTAssertEqual(invited.acceptanceStatus, .pending)
        XCTAssertEqual(invited.permission, .readWrite)
        XCTAssertEqual(invited.userIdentity.lookupInfo?.emailAddress, "mary@example.com")
    }

    func testAZoneWideShareMarksTheZone() async throws {
        try await makeZone()
        let share = CKShare(recordZoneID: zoneID)

        _ = try await database.modifyRecords(saving: [share], deleting: [])

        let zone = try await database.recordZone(for: zoneID)
        XCTAssertEqual(zone.share?.recordID, share.recordID)
        XCTAssertTrue(zone.capabilities.contains(.zoneWideSharing))
        XCTAssertEqual(share.recordID.recordName, CKRecordNameZoneWideShare)
    }
}
