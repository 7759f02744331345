import Stratus
import XCTest

// Accepting a share in the Swift 5 language mode, as apps write it in their scene delegate:
// metadata fetched with a completion handler, then a `CKAcceptSharesOperation` added to the
// share's own container, whose blocks change local state, builds without warnings and runs.

final class ShareAcceptSwift5SnippetsTests: XCTestCase {
    func testFetchingMetadataAndAcceptingWithAnOperationBuildWithoutWarnings() throws {
        let server = CloudServer(clock: ManualClock())
        server.setEmailAddress("ann@example.com", forAccount: "ann")
        let owner = server.container(identifier: "iCloud.com.example.albums", account: "olga")
        let zoneID = CKRecordZone.ID(zoneName: "Albums")
        let album = CKRecord(recordType: "Album", recordID: CKRecord.ID(recordName: "summer", zoneID: zoneID))
        let share = CKShare(rootRecord: album)

        let prepared = expectation(description: "shared")
        var shareURL: URL?
        owner.privateCloudDatabase.save(CKRecordZone(zoneID: zoneID)) { _, _ in
            owner.fetchShareParticipant(withEmailAddress: "ann@example.com") { participant, _ in
                if let participant { share.addParticipant(participant) }
                let save = CKModifyRecordsOperation(recordsToSave: [album, share])
                save.perRecordSaveBlock = { _, result in
                    if case .success(let saved as CKShare) = result { shareURL = saved.url }
                }
                save.modifyRecordsResultBlock = { _ in prepared.fulfill() }
                owner.privateCloudDatabase.add(save)
            }
        }
        wait(for: [prepared], timeout: 10)
        let url = try XCTUnwrap(shareURL)

        let ann = server.container(identifier: "iCloud.com.example.albums", account: "ann")
        var fetchedMetadata: CKShare.Metadata?
        let fetched = expectation(description: "metadata")
        ann.fetchShareMetadata(with: url) { metadata, error in
            XCTAssertNil(error)
            fetchedMetadata = metadata
            fetched.fulfill()
        }
        wait(for: [fetched], timeout: 10)
        let metadata = try XCTUnwrap(fetchedMetadata)
        XCTAssertEqual(metadata.participantStatus, .pending)

        var acceptedShare: CKShare?
        var failure: Error?
        let accepted = expectation(description: "accepted")
        let operation = CKAcceptSharesOperation(shareMetadatas: [metadata])
        operation.perShareResultBlock = { _, result in
            switch result {
            case .success(let share): acceptedShare = share
            case .failure(let error): failure = error
            }
        }
        operation.acceptSharesResultBlock = { _ in accepted.fulfill() }
        server.container(identifier: metadata.containerIdentifier, account: "ann").add(operation)
        wait(for: [accepted], timeout: 10)

        XCTAssertNil(failure)
        XCTAssertEqual(acceptedShare?.currentUserParticipant?.acceptanceStatus, .accepted)
    }
}
