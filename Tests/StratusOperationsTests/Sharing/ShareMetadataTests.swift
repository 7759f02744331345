import Foundation
import Stratus
import XCTest

/// `CKFetchShareMetadataOperation` and the container's share metadata calls: what a share URL
/// tells its owner, an invitee, a stranger on a public share and an outsider; the root record;
/// zone-wide shares; callback order, legacy blocks, partial failures keyed by URL; one request
/// per call.
final class ShareMetadataTests: SharingTestCase {
    /// Runs `operation` on `container` and returns its per-URL results, the order of its
    /// callbacks, and its final result.
    private func run(
        _ operation: CKFetchShareMetadataOperation,
        on container: CKContainer
    ) async -> (results: [(URL, Result<CKShare.Metadata, any Error>)], log: [String], final: Result<Void, any Error>?) {
        let log = EventLog()
        nonisolated(unsafe) var results: [(URL, Result<CKShare.Metadata, any Error>)] = []
        nonisolated(unsafe) var final: Result<Void, any Error>?
        operation.perShareMetadataResultBlock = { url, result in
            log.callback("item")
            results.append((url, result))
        }
        let done = expectation(description: "final block")
        operation.fetchShareMetadataResultBlock = { result in
            log.callback("final")
            final = result
            done.fulfill()
        }
        container.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.overlapCount, 0)
        return (results, log.all, final)
    }

    // MARK: - Who sees what

    func testAnInviteeSeesTheirPendingInvitationWithTheOwnersPermission() async throws {
        let root = party()
        let share = try await share(root, permission: .readWrite)
        let before = server.requestCount

        let metadata = try await mary.shareMetadata(for: try url(of: share))

        XCTAssertEqual(server.requestCount, before + 1, "one request")
        XCTAssertEqual(metadata.participantRole, .privateUser)
        XCTAssertEqual(metadata.participantStatus, .pending)
        XCTAssertEqual(metadata.participantPermission, .readWrite)
        XCTAssertEqual(metadata.containerIdentifier, identifier)
        XCTAssertEqual(metadata.ownerIdentity.userRecordID?.recordName, userRecordName("john"))
        XCTAssertEqual(metadata.share.url, share.url)
        XCTAssertEqual(metadata.share.recordID, CKRecord.ID(recordName: share.recordID.recordName, zoneID: sharedZoneID), "as in her shared database: the zone is named by its owner")
        XCTAssertEqual(metadata.hierarchicalRootRecordID, CKRecord.ID(recordName: root.recordID.recordName, zoneID: sharedZoneID))
        XCTAssertNil(metadata.rootRecord, "the root record only when asked for")
        let me = try XCTUnwrap(metadata.share.currentUserParticipant, "she finds herself on the share")
        XCTAssertEqual(me.acceptanceStatus, .pending)
        XCTAssertEqual(me.userIdentity.lookupInfo?.emailAddress, "mary@example.com")
        XCTAssertEqual(metadata.share[CKShare.SystemFieldKey.title] as? String, "Party time")
    }

    func testTheOwnerSeesTheirOwnShareAsItsAcceptedOwner() async throws {
        let root = party()
        let share = try await share(root)

        let metadata = try await john.shareMetadata(for: try url(of: share))

        XCTAssertEqual(metadata.participantRole, .owner)
        XCTAssertEqual(metadata.participantStatus, .accepted)
        XCTAssertEqual(metadata.participantPermission, .readWrite)
        XCTAssertEqual(metadata.share.recordID, share.recordID, "as in his private database")
        XCTAssertEqual(metadata.hierarchicalRootRecordID, root.recordID)
        XCTAssertEqual(metadata.share.currentUserParticipant?.participantID, metadata.share.owner.participantID)
    }

    func testAStrangerOnAShareOpenToThePublicIsAPendingPublicUser() async throws {
        let share = try await share(party(), inviteMary: false, publicPermission: .readOnly)

        let metadata = try await sam.shareMetadata(for: try url(of: share))

        XCTAssertEqual(metadata.participantRole, .publicUser)
        XCTAssertEqual(metadata.participantStatus, .pending, "he has not joined yet, and may")
        XCTAssertEqual(metadata.participantPermission, .readOnly, "the share's public permission")
        XCTAssertNil(metadata.share.currentUserParticipant, "he is not on the share yet")
    }

    func testAUserAPrivateShareDoesNotListIsRefusedWithParticipantMayNeedVerification() async throws {
        let share = try await share(party())

        do {
            _ = try await sam.shareMetadata(for: try url(of: share))
            XCTFail("sam was not invited")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .participantMayNeedVerification)
        }
    }

    func testAURLNoShareHasIsUnknownItem() async throws {
        try await share(party())
        let made = try XCTUnwrap(URL(string: "https://www.icloud.com/share/0000000000000000000000000000"))

        do {
            _ = try await mary.shareMetadata(for: made)
            XCTFail("no share has this URL")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .unknownItem)
        }
    }

    func testWithoutAnAccountTheRequestFailsWithNotAuthenticated() async throws {
        let share = try await share(party())
        let guest = server.container(identifier: identifier, account: nil)
        let shareURL = try url(of: share)

        let (results, _, final) = await run(CKFetchShareMetadataOperation(shareURLs: [shareURL]), on: guest)

        XCTAssertEqual(results.map(\.1.failureCode), [.notAuthenticated])
        XCTAssertEqual(final?.failureCode, .notAuthenticated)
    }

    func testMetadataCanBeFetchedInAnyContainerAndNamesTheSharesOwn() async throws {
        let share = try await share(party())
        let elsewhere = server.container(identifier: "iCloud.com.example.elsewhere", account: "mary")

        let metadata = try await elsewhere.shareMetadata(for: try url(of: share))

        XCTAssertEqual(metadata.containerIdentifier, identifier)
        XCTAssertEqual(metadata.participantStatus, .pending)
    }

    // MARK: - The root record

    func testTheRootRecordComesOnlyWhenAskedAndWithOnlyTheDesiredKeys() async throws {
        let root = party()
        root["secret"] = "cake"
        let share = try await share(root)
        let operation = CKFetchShareMetadataOperation(shareURLs: [try url(of: share)])
        XCTAssertFalse(operation.shouldFetchRootRecord, "off by default")
        XCTAssertNil(operation.rootRecordDesiredKeys)
        operation.shouldFetchRootRecord = true
        operation.rootRecordDesiredKeys = ["title"]

        let (results, _, final) = await run(operation, on: mary)

        XCTAssertNotNil(try final?.get())
        let metadata = try XCTUnwrap(results.first).1.get()
        let fetchedRoot = try XCTUnwrap(metadata.rootRecord, "asked for")
        XCTAssertEqual(fetchedRoot.recordID, metadata.hierarchicalRootRecordID)
        XCTAssertEqual(fetchedRoot["title"] as? String, "Big Top Bash")
        XCTAssertNil(fetchedRoot["secret"], "not a desired key")
        XCTAssertEqual(fetchedRoot.share?.recordID, metadata.share.recordID)

        let whole = CKFetchShareMetadataOperation(shareURLs: [try url(of: share)])
        whole.shouldFetchRootRecord = true
        let (all, _, _) = await run(whole, on: mary)
        XCTAssertEqual(try XCTUnwrap(all.first).1.get().rootRecord?["secret"] as? String, "cake", "nil desired keys fetch every field")

        let ignored = CKFetchShareMetadataOperation(shareURLs: [try url(of: share)])
        ignored.rootRecordDesiredKeys = ["title"]
        let (none, _, _) = await run(ignored, on: mary)
        XCTAssertNil(try XCTUnwrap(none.first).1.get().rootRecord, "desired keys alone do not ask for the root")
    }

    /// A root record fetched with the metadata has its assets downloaded like any fetched
    /// record's.
    func testTheRootRecordsAssetsArriveAsLocalFiles() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("poster-\(UUID().uuidString).txt")
        try Data("come one, come all".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let root = party()
        root["poster"] = CKAsset(fileURL: file)
        let share = try await share(root)
        let operation = CKFetchShareMetadataOperation(shareURLs: [try url(of: share)])
        operation.shouldFetchRootRecord = true

        let (results, _, _) = await run(operation, on: mary)

        let fetchedRoot = try XCTUnwrap(try XCTUnwrap(results.first).1.get().rootRecord)
        let local = try XCTUnwrap((fetchedRoot["poster"] as? CKAsset)?.fileURL, "the root record's asset has no local file")
        XCTAssertEqual(try Data(contentsOf: local), Data("come one, come all".utf8))
    }

    func testAZoneWideShareHasNoHierarchicalRoot() async throws {
        let share = try await shareZone(permission: .readWrite)
        let operation = CKFetchShareMetadataOperation(shareURLs: [try url(of: share)])
        operation.shouldFetchRootRecord = true

        let (results, _, _) = await run(operation, on: mary)

        let metadata = try XCTUnwrap(results.first).1.get()
        XCTAssertNil(metadata.hierarchicalRootRecordID)
        XCTAssertNil(metadata.rootRecord)
        XCTAssertEqual(metadata.share.recordID.recordName, CKRecordNameZoneWideShare)
        XCTAssertEqual(metadata.share.recordID.zoneID, sharedZoneID)
        XCTAssertEqual(metadata.participantStatus, .pending)
        XCTAssertEqual(metadata.participantPermission, .readWrite)
    }

    // MARK: - The operation's contract

    func testEachURLGetsItsResultInOrderAndFailuresAreKeyedByURL() async throws {
        let share = try await share(party())
        let good = try url(of: share)
        let unknown = try XCTUnwrap(URL(string: "https://www.icloud.com/share/unknown"))
        let before = server.requestCount

        let (results, log, final) = await run(CKFetchShareMetadataOperation(shareURLs: [unknown, good]), on: mary)

        XCTAssertEqual(server.requestCount, before + 1, "one request for every URL")
        XCTAssertEqual(log, ["item", "item", "final"])
        XCTAssertEqual(results.map(\.0), [unknown, good])
        XCTAssertEqual(results[0].1.failureCode, .unknownItem)
        XCTAssertEqual(try results[1].1.get().participantStatus, .pending)
        guard case .failure(let error as CKError)? = final else { return XCTFail("a partial failure") }
        XCTAssertEqual(error.code, .partialFailure)
        let partial = try XCTUnwrap(error.partialErrorsByItemID)
        XCTAssertEqual(partial.count, 1)
        XCTAssertEqual((partial[unknown] as? CKError)?.code, .unknownItem, "keyed by the URL")
    }

    @available(*, deprecated, message: "exercises the legacy blocks")
    func testTheLegacyBlocksGetEveryURLAndTheFinalErrorAndOnlyWithoutTheirReplacements() async throws {
        let share = try await share(party())
        let good = try url(of: share)
        let unknown = try XCTUnwrap(URL(string: "https://www.icloud.com/share/unknown"))
        let operation = CKFetchShareMetadataOperation(shareURLs: [good, unknown])
        let log = EventLog()
        nonisolated(unsafe) var finalError: (any Error)?
        operation.perShareMetadataBlock = { url, metadata, error in
            log.callback("\(url == good ? "good" : "unknown") metadata=\(metadata != nil) error=\(error != nil)")
        }
        let done = expectation(description: "final")
        operation.fetchShareMetadataCompletionBlock = { error in
            log.callback("final")
            finalError = error
            done.fulfill()
        }
        mary.add(operation)
        await fulfillment(of: [done], timeout: 10)

        XCTAssertEqual(log.all, ["good metadata=true error=false", "unknown metadata=false error=true", "final"])
        XCTAssertEqual((finalError as? CKError)?.code, .partialFailure)

        let both = CKFetchShareMetadataOperation(shareURLs: [good, unknown])
        both.perShareMetadataBlock = { _, _, _ in XCTFail("ignored when perShareMetadataResultBlock is set") }
        both.fetchShareMetadataCompletionBlock = { _ in XCTFail("ignored when fetchShareMetadataResultBlock is set") }
        let (results, _, final) = await run(both, on: mary)
        XCTAssertEqual(results.count, 2)
        XCTAssertEqual(final?.failureCode, .partialFailure)
    }

    func testNoURLsSucceedWithoutARequest() async {
        let before = server.requestCount
        let (results, log, final) = await run(CKFetchShareMetadataOperation(), on: mary)
        XCTAssertTrue(results.isEmpty)
        XCTAssertEqual(log, ["final"])
        XCTAssertNotNil(try final?.get())
        XCTAssertEqual(server.requestCount, before)
    }

    // MARK: - The container's calls

    func testTheBatchCallKeysEachOutcomeByTheURLsPassed() async throws {
        let share = try await share(party())
        let good = try url(of: share)
        let unknown = try XCTUnwrap(URL(string: "https://www.icloud.com/share/unknown"))
        let before = server.requestCount

        let results = try await mary.shareMetadatas(for: [good, unknown])

        XCTAssertEqual(server.requestCount, before + 1)
        XCTAssertEqual(try results[good]?.get().participantRole, .privateUser)
        XCTAssertEqual(results[unknown]?.failureCode, .unknownItem)
    }

    func testTheCompletionHandlerFormsHandOverTheMetadataOrTheError() async throws {
        let share = try await share(party())
        let good = try url(of: share)

        let single = expectation(description: "single")
        mary.fetchShareMetadata(with: good) { metadata, error in
            XCTAssertEqual(metadata?.participantStatus, .pending)
            XCTAssertNil(error)
            single.fulfill()
        }
        let refused = expectation(description: "refused")
        sam.fetchShareMetadata(with: good) { metadata, error in
            XCTAssertNil(metadata)
            XCTAssertEqual((error as? CKError)?.code, .participantMayNeedVerification)
            refused.fulfill()
        }
        let batch = expectation(description: "batch")
        mary.fetchShareMetadatas(for: [good]) { result in
            XCTAssertEqual(try? result.get()[good]?.get().participantRole, .privateUser)
            batch.fulfill()
        }
        await fulfillment(of: [single, refused, batch], timeout: 10)
    }
}
