import Stratus
import XCTest

// Sharing as Apple's CKShare documentation and its sharing sample write it, with
// `import Stratus` in place of `import CloudKit`. These snippets build a share, invite people
// found by email address and prepare the save; what the server does with the save (URLs,
// acceptance, the shared database) is checked where the server's sharing rules are.

final class SharingSnippetsTests: XCTestCase {
    private var server: CloudServer!
    private var container: CKContainer!

    override func setUp() {
        super.setUp()
        server = CloudServer(clock: ManualClock())
        container = server.container(identifier: "iCloud.com.example.albums", account: "olga")
        server.setEmailAddress("ann@example.com", forAccount: "ann")
    }

    override func tearDown() {
        container = nil
        server = nil
        super.tearDown()
    }

    private let zoneID = CKRecordZone.ID(zoneName: "Albums", ownerName: CKCurrentUserDefaultName)

    /// CKShare's overview: a share for a root record, with the title, thumbnail and type the
    /// system shows, open to anyone with the link, saved with its root in one modify operation.
    func testCreateAShareForARootRecordAsTheOverviewDoes() throws {
        let album = CKRecord(recordType: "Album", recordID: CKRecord.ID(recordName: "summer", zoneID: zoneID))
        album["name"] = "Summer" as CKRecordValue

        let share = CKShare(rootRecord: album)
        share[CKShare.SystemFieldKey.title] = album["name"]
        share[CKShare.SystemFieldKey.thumbnailImageData] = Data([0x89, 0x50, 0x4E, 0x47])
        share[CKShare.SystemFieldKey.shareType] = "com.example.app.album"
        share.publicPermission = .readOnly

        let operation = CKModifyRecordsOperation(recordsToSave: [album, share], recordIDsToDelete: nil)
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { print("Could not share the album: \(error)") }
        }

        XCTAssertEqual(album.share?.recordID, share.recordID)
        XCTAssertEqual(share[CKShare.SystemFieldKey.title] as? String, "Summer")
        XCTAssertEqual(share.publicPermission, .readOnly)
        XCTAssertTrue(share.owner === share.currentUserParticipant)
        XCTAssertEqual(operation.recordsToSave?.map(\.recordID), [album.recordID, share.recordID])
        XCTAssertTrue(operation.recordsToSave?.last is CKShare)

        let isZoneWide = (share.recordID.recordName == CKRecordNameZoneWideShare)
        XCTAssertFalse(isZoneWide)
        let zoneShare = CKShare(recordZoneID: zoneID)
        XCTAssertEqual(zoneShare.recordID, CKRecord.ID(recordName: CKRecordNameZoneWideShare, zoneID: zoneID))
    }

    /// The container's lookup-info batch (`shareParticipants(for:)`): participants for
    /// whatever mix of addresses, numbers and user record IDs the app holds, in one call.
    func testLookUpParticipantsByLookupInfosWithTheContainer() async throws {
        let lookupInfos = [
            CKUserIdentity.LookupInfo(emailAddress: "ann@example.com"),
            CKUserIdentity.LookupInfo(phoneNumber: "+1 555 0100"),
        ]
        let share = CKShare(rootRecord: CKRecord(recordType: "Album", recordID: CKRecord.ID(recordName: "autumn", zoneID: zoneID)))

        let participantsByLookupInfo: [CKUserIdentity.LookupInfo: Result<CKShare.Participant, Error>] =
            try await container.shareParticipants(for: lookupInfos)
        for (_, result) in participantsByLookupInfo {
            guard let participant = try? result.get() else { continue }
            participant.permission = .readWrite
            share.addParticipant(participant)
        }

        XCTAssertEqual(participantsByLookupInfo.count, 2)
        XCTAssertEqual(share.participants.count, 3, "the owner and the two people looked up")
    }

    /// Inviting people without the system sharing interface: look up participants by email
    /// address with `CKFetchShareParticipantsOperation`, give them a permission, add them.
    func testInvitePeopleFoundByEmailAddress() async throws {
        let album = CKRecord(recordType: "Album", recordID: CKRecord.ID(recordName: "winter", zoneID: zoneID))
        let share = CKShare(rootRecord: album)
        share[CKShare.SystemFieldKey.title] = "Winter" as CKRecordValue

        let emails = ["ann@example.com", "friend@example.org"]
        let lookupInfos = emails.map { CKUserIdentity.LookupInfo(emailAddress: $0) }
        let operation = CKFetchShareParticipantsOperation(userIdentityLookupInfos: lookupInfos)
        operation.perShareParticipantResultBlock = { lookupInfo, result in
            switch result {
            case .success(let participant):
                participant.permission = .readWrite
                share.addParticipant(participant)
            case .failure(let error):
                print("No participant for \(lookupInfo): \(error)")
            }
        }
        let done = expectation(description: "participants fetched")
        operation.fetchShareParticipantsResultBlock = { result in
            if case .failure(let error) = result { print("Could not fetch participants: \(error)") }
            done.fulfill()
        }
        container.add(operation)
        await fulfillment(of: [done], timeout: 10)

        XCTAssertEqual(share.participants.count, 3)
        XCTAssertEqual(share.participants.filter { $0.role == .privateUser && $0.acceptanceStatus == .pending }.count, 2)
        XCTAssertTrue(share.participants.dropFirst().allSatisfy { $0.permission == .readWrite })
        XCTAssertEqual(share.participants.last?.userIdentity.hasiCloudAccount, false, "an address without an account can still be invited")

        // The async spelling, one address at a time.
        let participant = try await container.shareParticipant(forEmailAddress: "ann@example.com")
        share.addParticipant(participant)
        XCTAssertEqual(share.participants.count, 3, "Ann is on the share already")
        share.removeParticipant(participant)
        XCTAssertEqual(share.participants.count, 2)
    }
}
