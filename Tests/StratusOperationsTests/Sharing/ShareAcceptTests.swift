import Foundation
import Stratus
import XCTest

/// `CKAcceptSharesOperation` and the container's accept calls: an invitee accepts, a stranger
/// joins a public share, accepting again or one's own share changes nothing, an outsider is
/// refused; the owner's zone appears in the participant's shared database; callback order,
/// legacy blocks, partial failures keyed by URL; one request per call.
final class ShareAcceptTests: SharingTestCase {
    /// Runs `operation` on `container` and returns its per-share results, the order of its
    /// callbacks, and its final result.
    private func run(
        _ operation: CKAcceptSharesOperation,
        on container: CKContainer
    ) async -> (results: [(CKShare.Metadata, Result<CKShare, any Error>)], log: [String], final: Result<Void, any Error>?) {
        let log = EventLog()
        nonisolated(unsafe) var results: [(CKShare.Metadata, Result<CKShare, any Error>)] = []
        nonisolated(unsafe) var final: Result<Void, any Error>?
        operation.perShareResultBlock = { metadata, result in
            log.callback("item")
            results.append((metadata, result))
        }
        let done = expectation(description: "final block")
        operation.acceptSharesResultBlock = { result in
            log.callback("final")
            final = result
            done.fulfill()
        }
        container.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.overlapCount, 0)
        return (results, log.all, final)
    }

    // MARK: - Accepting

    func testAnInviteeWhoAcceptsIsAcceptedOnTheOwnersShare() async throws {
        let saved = try await share(party(), permission: .readWrite)
        let metadata = try await mary.shareMetadata(for: try url(of: saved))
        let before = server.requestCount

        let accepted = try await mary.accept(metadata)

        XCTAssertEqual(server.requestCount, before + 1, "one request")
        let me = try XCTUnwrap(accepted.currentUserParticipant, "she is the share's current user")
        XCTAssertEqual(me.acceptanceStatus, .accepted)
        XCTAssertEqual(me.role, .privateUser)
        XCTAssertEqual(me.permission, .readWrite)
        XCTAssertEqual(accepted.recordID.zoneID, sharedZoneID, "as in her shared database")
        XCTAssertEqual(metadata.participantStatus, .pending, "the metadata passed in is not changed")

        let ownersRecord = try await database.record(for: saved.recordID)
        let ownersShare = try XCTUnwrap(ownersRecord as? CKShare)
        let invitee = try XCTUnwrap(ownersShare.participants.first { $0.role == .privateUser })
        XCTAssertEqual(invitee.acceptanceStatus, .accepted, "the owner sees her accepted")
        XCTAssertEqual(invitee.userIdentity.userRecordID?.recordName, userRecordName("mary"))
        XCTAssertNotEqual(ownersShare.recordChangeTag, saved.recordChangeTag, "accepting changed the share on the server")
        XCTAssertEqual(ownersShare.recordChangeTag, accepted.recordChangeTag)

        let refetched = try await mary.shareMetadata(for: try url(of: saved))
        XCTAssertEqual(refetched.participantStatus, .accepted)
    }

    func testTheOwnersStaleCopyOfTheShareMeetsServerRecordChangedAfterAnAcceptance() async throws {
        let saved = try await share(party())
        _ = try await mary.accept(try await mary.shareMetadata(for: try url(of: saved)))

        saved[CKShare.SystemFieldKey.title] = "Renamed"
        let operation = CKModifyRecordsOperation(recordsToSave: [saved])
        nonisolated(unsafe) var result: Result<CKRecord, any Error>?
        operation.perRecordSaveBlock = { _, saveResult in result = saveResult }
        let done = expectation(description: "saved")
        operation.modifyRecordsResultBlock = { _ in done.fulfill() }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)

        XCTAssertEqual(result?.failureCode, .serverRecordChanged, "the owner's copy predates the acceptance")
    }

    func testAStrangerWhoAcceptsAPublicShareJoinsAsAPublicUser() async throws {
        let saved = try await share(party(), inviteMary: false, publicPermission: .readOnly)
        let metadata = try await sam.shareMetadata(for: try url(of: saved))

        let accepted = try await sam.accept(metadata)

        let me = try XCTUnwrap(accepted.currentUserParticipant)
        XCTAssertEqual(me.role, .publicUser)
        XCTAssertEqual(me.acceptanceStatus, .accepted)
        XCTAssertEqual(me.permission, .readOnly, "the public permission")
        let ownersRecord = try await database.record(for: saved.recordID)
        let ownersShare = try XCTUnwrap(ownersRecord as? CKShare)
        XCTAssertEqual(ownersShare.participants.count, 2)
        let joined = try XCTUnwrap(ownersShare.participants.first { $0.role == .publicUser })
        XCTAssertEqual(joined.userIdentity.userRecordID?.recordName, userRecordName("sam"))
        XCTAssertEqual(joined.acceptanceStatus, .accepted)
        let again = try await sam.shareMetadata(for: try url(of: saved))
        XCTAssertEqual(again.participantRole, .publicUser)
        XCTAssertEqual(again.participantStatus, .accepted)
    }

    func testAcceptingAgainReturnsTheShareAndChangesNothing() async throws {
        let saved = try await share(party())
        let metadata = try await mary.shareMetadata(for: try url(of: saved))
        let first = try await mary.accept(metadata)

        let second = try await mary.accept(metadata)

        XCTAssertEqual(second.recordChangeTag, first.recordChangeTag)
        XCTAssertEqual(second.currentUserParticipant?.acceptanceStatus, .accepted)
    }

    func testTheOwnerAcceptingTheirOwnShareChangesNothing() async throws {
        let saved = try await share(party())
        let metadata = try await john.shareMetadata(for: try url(of: saved))

        let accepted = try await john.accept(metadata)

        XCTAssertEqual(accepted.recordID, saved.recordID)
        XCTAssertEqual(accepted.recordChangeTag, saved.recordChangeTag)
        XCTAssertEqual(accepted.currentUserParticipant?.role, .owner)
    }

    func testAnOutsiderCannotAcceptAPrivateShare() async throws {
        let saved = try await share(party())
        let metadata = try await mary.shareMetadata(for: try url(of: saved))

        do {
            _ = try await sam.accept(metadata)
            XCTFail("sam was not invited")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .participantMayNeedVerification)
        }
        let ownersRecord = try await database.record(for: saved.recordID)
        let ownersShare = try XCTUnwrap(ownersRecord as? CKShare)
        XCTAssertEqual(ownersShare.participants.count, 2, "nobody joined")
    }

    // MARK: - The shared database

    func testAcceptingBringsTheOwnersZoneIntoTheParticipantsSharedDatabase() async throws {
        let saved = try await share(party())
        let metadata = try await mary.shareMetadata(for: try url(of: saved))
        let before = try await mary.sharedCloudDatabase.databaseChanges(since: nil)
        XCTAssertTrue(before.modifications.isEmpty, "nothing is shared with her before she accepts")

        _ = try await mary.accept(metadata)

        let after = try await mary.sharedCloudDatabase.databaseChanges(since: before.changeToken)
        XCTAssertEqual(after.modifications.map(\.zoneID), [sharedZoneID], "the zone, named by its owner's user record name")
        XCTAssertTrue(after.deletions.isEmpty)
        let johns = try await john.sharedCloudDatabase.databaseChanges(since: nil)
        XCTAssertTrue(johns.modifications.isEmpty, "the owner's own zone is not in his shared database")
    }

    func testAfterAcceptingTheParticipantReadsTheSharedRecordsThroughTheSharedDatabase() async throws {
        let root = party()
        let saved = try await share(root)
        let metadata = try await mary.shareMetadata(for: try url(of: saved))
        let sharedRootID = try XCTUnwrap(metadata.hierarchicalRootRecordID)
        do {
            _ = try await mary.sharedCloudDatabase.record(for: sharedRootID)
            XCTFail("nothing is shared with her before she accepts")
        } catch let error as CKError {
            XCTAssertTrue([.unknownItem, .zoneNotFound].contains(error.code), "\(error.code)")
        }

        _ = try await mary.accept(metadata)

        let zones = try await mary.sharedCloudDatabase.allRecordZones()
        XCTAssertEqual(zones.map(\.zoneID), [sharedZoneID])
        let fetched = try await mary.sharedCloudDatabase.record(for: sharedRootID)
        XCTAssertEqual(fetched["title"] as? String, "Big Top Bash")
        XCTAssertEqual(fetched.share?.recordID, metadata.share.recordID)
    }

    // MARK: - The operation's contract

    func testEachShareGetsItsResultInOrderAndFailuresAreKeyedByURL() async throws {
        let kept = try await share(party("kept"))
        let gone = try await share(party("gone"))
        let keptMetadata = try await mary.shareMetadata(for: try url(of: kept))
        let goneMetadata = try await mary.shareMetadata(for: try url(of: gone))
        _ = try await database.modifyRecords(saving: [], deleting: [gone.recordID])
        let before = server.requestCount

        let (results, log, final) = await run(CKAcceptSharesOperation(shareMetadatas: [goneMetadata, keptMetadata]), on: mary)

        XCTAssertEqual(server.requestCount, before + 1, "one request for every share")
        XCTAssertEqual(log, ["item", "item", "final"])
        XCTAssertTrue(results[0].0 === goneMetadata && results[1].0 === keptMetadata, "in the order of the metadata")
        XCTAssertEqual(results[0].1.failureCode, .unknownItem, "the owner stopped sharing")
        XCTAssertEqual(try results[1].1.get().currentUserParticipant?.acceptanceStatus, .accepted)
        guard case .failure(let error as CKError)? = final else { return XCTFail("a partial failure") }
        XCTAssertEqual(error.code, .partialFailure)
        let partial = try XCTUnwrap(error.partialErrorsByItemID)
        XCTAssertEqual(partial.count, 1)
        XCTAssertEqual((partial[try url(of: gone)] as? CKError)?.code, .unknownItem, "keyed by the share's URL")
    }

    @available(*, deprecated, message: "exercises the legacy blocks")
    func testTheLegacyBlocksGetEveryShareAndTheFinalErrorAndOnlyWithoutTheirReplacements() async throws {
        let saved = try await share(party())
        let metadata = try await mary.shareMetadata(for: try url(of: saved))
        let open = try await share(party("open"), inviteMary: false, publicPermission: .readOnly)
        let gone = try await mary.shareMetadata(for: try url(of: open))
        _ = try await database.modifyRecords(saving: [], deleting: [open.recordID])
        let operation = CKAcceptSharesOperation(shareMetadatas: [metadata, gone])
        let log = EventLog()
        nonisolated(unsafe) var finalError: (any Error)?
        operation.perShareCompletionBlock = { item, share, error in
            log.callback("\(item === metadata ? "invited" : "gone") share=\(share != nil) error=\(error != nil)")
        }
        let done = expectation(description: "final")
        operation.acceptSharesCompletionBlock = { error in
            log.callback("final")
            finalError = error
            done.fulfill()
        }
        mary.add(operation)
        await fulfillment(of: [done], timeout: 10)

        XCTAssertEqual(log.all, ["invited share=true error=false", "gone share=false error=true", "final"])
        XCTAssertEqual((finalError as? CKError)?.code, .partialFailure)

        let both = CKAcceptSharesOperation(shareMetadatas: [metadata])
        both.perShareCompletionBlock = { _, _, _ in XCTFail("ignored when perShareResultBlock is set") }
        both.acceptSharesCompletionBlock = { _ in XCTFail("ignored when acceptSharesResultBlock is set") }
        let (results, _, final) = await run(both, on: mary)
        XCTAssertEqual(results.count, 1)
        XCTAssertNotNil(try final?.get())
    }

    func testNothingToAcceptSucceedsWithoutARequest() async {
        let before = server.requestCount
        let (results, log, final) = await run(CKAcceptSharesOperation(), on: mary)
        XCTAssertTrue(results.isEmpty)
        XCTAssertEqual(log, ["final"])
        XCTAssertNotNil(try final?.get())
        XCTAssertEqual(server.requestCount, before)
    }

    // MARK: - The container's calls

    func testTheBatchCallKeysEachOutcomeByTheMetadataPassed() async throws {
        let saved = try await share(party())
        let metadata = try await mary.shareMetadata(for: try url(of: saved))
        let other = try await share(party("other"), inviteMary: false)
        let foreign = try await john.shareMetadata(for: try url(of: other))
        let before = server.requestCount

        let results = try await mary.accept([metadata, foreign])

        XCTAssertEqual(server.requestCount, before + 1)
        XCTAssertEqual(try results[metadata]?.get().currentUserParticipant?.acceptanceStatus, .accepted)
        XCTAssertEqual(results[foreign]?.failureCode, .participantMayNeedVerification, "she is not on john's other share")
    }

    func testTheCompletionHandlerFormsHandOverTheShareOrTheError() async throws {
        let saved = try await share(party())
        let metadata = try await mary.shareMetadata(for: try url(of: saved))

        let single = expectation(description: "single")
        mary.accept(metadata) { share, error in
            XCTAssertEqual(share?.currentUserParticipant?.acceptanceStatus, .accepted)
            XCTAssertNil(error)
            single.fulfill()
        }
        await fulfillment(of: [single], timeout: 10)
        let refused = expectation(description: "refused")
        sam.accept(metadata) { share, error in
            XCTAssertNil(share)
            XCTAssertEqual((error as? CKError)?.code, .participantMayNeedVerification)
            refused.fulfill()
        }
        let batch = expectation(description: "batch")
        mary.accept([metadata]) { result in
            XCTAssertEqual(try? result.get()[metadata]?.get().currentUserParticipant?.acceptanceStatus, .accepted)
            batch.fulfill()
        }
        await fulfillment(of: [refused, batch], timeout: 10)
    }
}
