import Stratus
import XCTest

// Sharing code in the Swift 5 language mode: completion handlers that change local state, and
// `switch`es over the participant enums with `@unknown default`, build without warnings.

final class SharingSwift5SnippetsTests: XCTestCase {
    func testParticipantHandlersAndSwitchesBuildWithoutWarnings() throws {
        let server = CloudServer(clock: ManualClock())
        server.setEmailAddress("ann@example.com", forAccount: "ann")
        let container = server.container(identifier: "iCloud.com.example.albums", account: "olga")
        let album = CKRecord(recordType: "Album", recordID: CKRecord.ID(recordName: "summer", zoneID: CKRecordZone.ID(zoneName: "Albums")))
        let share = CKShare(rootRecord: album)

        var found: CKShare.Participant?
        let fetched = expectation(description: "fetched")
        container.fetchShareParticipant(withEmailAddress: "ann@example.com") { participant, error in
            XCTAssertNil(error)
            found = participant
            fetched.fulfill()
        }
        wait(for: [fetched], timeout: 10)
        let participant = try XCTUnwrap(found)
        share.addParticipant(participant)

        var summary: [String] = []
        for participant in share.participants {
            switch participant.role {
            case .owner: summary.append("owner")
            case .privateUser: summary.append("invited")
            case .publicUser: summary.append("public")
            case .unknown: summary.append("unknown")
            @unknown default: summary.append("new role")
            }
            switch participant.acceptanceStatus {
            case .pending, .unknown: summary.append("waiting")
            case .accepted: summary.append("in")
            case .removed: summary.append("out")
            @unknown default: break
            }
        }
        XCTAssertEqual(summary, ["owner", "in", "invited", "waiting"])
    }

    func testLookupInfoBatchWithACompletionHandlerThatChangesLocalState() {
        let server = CloudServer(clock: ManualClock())
        server.setEmailAddress("ann@example.com", forAccount: "ann")
        let container = server.container(identifier: "iCloud.com.example.albums", account: "olga")
        let ann = CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")

        var participants: [CKShare.Participant] = []
        var failures = 0
        let fetched = expectation(description: "fetched")
        container.fetchShareParticipants(for: [ann]) { result in
            switch result {
            case .success(let participantsByLookupInfo):
                for (_, itemResult) in participantsByLookupInfo {
                    switch itemResult {
                    case .success(let participant): participants.append(participant)
                    case .failure: failures += 1
                    }
                }
            case .failure:
                failures += 1
            }
            fetched.fulfill()
        }
        wait(for: [fetched], timeout: 10)
        XCTAssertEqual(participants.count, 1)
        XCTAssertEqual(failures, 0)
    }
}
