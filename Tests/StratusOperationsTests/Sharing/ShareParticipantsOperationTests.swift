import Foundation
import Stratus
import XCTest

/// `CKFetchShareParticipantsOperation` and the container's share participant calls: who is
/// found (anyone, discoverable or not), what a new participant holds, block order, legacy
/// blocks, partial failures, and that each call is one request; and the `CloudService`
/// endpoint behind them.
final class ShareParticipantsOperationTests: OperationTestCase {
    private var john: CKContainer!
    private var annRecordID: CKRecord.ID!

    override func setUp() {
        super.setUp()
        john = database.container
        server.setEmailAddress("ann@example.com", forAccount: "ann")
        server.setPhoneNumber("+1 555 010 0001", forAccount: "ann")
        var name = PersonNameComponents()
        name.givenName = "Ann"
        name.familyName = "Lee"
        server.setName(name, forAccount: "ann")
        annRecordID = CKRecord.ID(recordName: server.userRecordName(account: "ann", containerIdentifier: identifier))
    }

    override func tearDown() {
        john = nil
        annRecordID = nil
        super.tearDown()
    }

    private func annOptsIn() {
        server.setUserDiscoverability(.granted, forAccount: "ann", containerIdentifier: identifier)
    }

    /// Runs `operation` on John's container and returns its per-item results, the order of
    /// its callbacks, and its final result.
    private func run(
        _ operation: CKFetchShareParticipantsOperation,
        on container: CKContainer? = nil
    ) async -> (results: [(CKUserIdentity.LookupInfo, Result<CKShare.Participant, any Error>)], log: [String], final: Result<Void, any Error>?) {
        let log = EventLog()
        nonisolated(unsafe) var results: [(CKUserIdentity.LookupInfo, Result<CKShare.Participant, any Error>)] = []
        nonisolated(unsafe) var final: Result<Void, any Error>?
        operation.perShareParticipantResultBlock = { info, result in
            log.callback("item")
            results.append((info, result))
        }
        let done = expectation(description: "final block")
        operation.fetchShareParticipantsResultBlock = { result in
            log.callback("final")
            final = result
            done.fulfill()
        }
        (container ?? john).add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.overlapCount, 0)
        return (results, log.all, final)
    }

    private func assertNewParticipant(_ participant: CKShare.Participant?, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(participant?.role, .privateUser, file: file, line: line)
        XCTAssertEqual(participant?.acceptanceStatus, .pending, file: file, line: line)
        XCTAssertEqual(participant?.permission, .readOnly, file: file, line: line)
        XCTAssertFalse(participant?.participantID.isEmpty ?? true, file: file, line: line)
    }

    // MARK: - The operation

    func testUsersAreFoundWithoutOptingInButTheirNameNeedsDiscoverability() async throws {
        let byEmail = CKUserIdentity.LookupInfo(emailAddress: "ANN@example.com ")
        let byPhone = CKUserIdentity.LookupInfo(phoneNumber: "(555) 010-0001")
        let byRecordID = CKUserIdentity.LookupInfo(userRecordID: annRecordID)
        let before = server.requestCount
        let (results, log, final) = await run(CKFetchShareParticipantsOperation(userIdentityLookupInfos: [byEmail, byPhone, byRecordID]))
        XCTAssertEqual(server.requestCount, before + 1)
        XCTAssertEqual(log, ["item", "item", "item", "final"])
        XCTAssertNotNil(try final?.get())
        XCTAssertTrue(results.map(\.0) == [byEmail, byPhone, byRecordID], "in the order of the lookup infos")
        for (info, result) in results {
            let participant = try result.get()
            assertNewParticipant(participant)
            XCTAssertEqual(participant.userIdentity.userRecordID, annRecordID)
            XCTAssertEqual(participant.userIdentity.lookupInfo, info)
            XCTAssertTrue(participant.userIdentity.hasiCloudAccount)
            XCTAssertNil(participant.userIdentity.nameComponents, "Ann did not opt in to discoverability")
        }
        XCTAssertEqual(Set(results.compactMap { try? $0.1.get().participantID }).count, 3, "each participant is new")

        annOptsIn()
        let (named, _, _) = await run(CKFetchShareParticipantsOperation(userIdentityLookupInfos: [byEmail]))
        let participant = try XCTUnwrap(named.first).1.get()
        XCTAssertEqual(participant.userIdentity.nameComponents?.givenName, "Ann")
        XCTAssertEqual(participant.userIdentity.nameComponents?.familyName, "Lee")
    }

    func testAnAddressNoAccountHasStillGivesAParticipantWithoutAnICloudAccount() async throws {
        let unknown = CKUserIdentity.LookupInfo(emailAddress: "nobody@example.com")
        let unknownUser = CKUserIdentity.LookupInfo(userRecordID: CKRecord.ID(recordName: "_00000000000000000000000000000000"))
        let (results, _, final) = await run(CKFetchShareParticipantsOperation(userIdentityLookupInfos: [unknown, unknownUser]))
        XCTAssertNotNil(try final?.get())
        for (info, result) in results {
            let participant = try result.get()
            assertNewParticipant(participant)
            XCTAssertFalse(participant.userIdentity.hasiCloudAccount)
            XCTAssertNil(participant.userIdentity.userRecordID)
            XCTAssertNil(participant.userIdentity.nameComponents)
            XCTAssertEqual(participant.userIdentity.lookupInfo, info)
        }
    }

    func testDefaultOwnerNamesTheCallersOwnUserRecord() async throws {
        let me = CKRecord.ID(recordName: CKCurrentUserDefaultName)
        let participant = try await john.shareParticipant(forUserRecordID: me)
        XCTAssertEqual(participant.userIdentity.userRecordID?.recordName, server.userRecordName(account: "john", containerIdentifier: identifier))
        XCTAssertEqual(participant.userIdentity.lookupInfo?.userRecordID, me, "the identity keeps the lookup info as asked")
        XCTAssertTrue(participant.userIdentity.hasiCloudAccount)
    }

    func testAMalformedLookupInfoFailsAloneAndTheOperationEndsInAPartialFailure() async throws {
        let ann = CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")
        let empty = CKUserIdentity.LookupInfo(emailAddress: "  ")
        let noDigits = CKUserIdentity.LookupInfo(phoneNumber: "call me")
        let (results, log, final) = await run(CKFetchShareParticipantsOperation(userIdentityLookupInfos: [empty, ann, noDigits]))
        XCTAssertEqual(log, ["item", "item", "item", "final"])
        XCTAssertEqual(results[0].1.failureCode, .invalidArguments)
        XCTAssertEqual(try results[1].1.get().userIdentity.userRecordID, annRecordID)
        XCTAssertEqual(results[2].1.failureCode, .invalidArguments)
        XCTAssertEqual(final?.failureCode, .partialFailure)
        guard case .failure(let error as CKError)? = final else { return XCTFail("a partial failure") }
        let partial = try XCTUnwrap(error.partialErrorsByItemID)
        XCTAssertEqual(partial.count, 2)
        XCTAssertEqual((partial[empty] as? CKError)?.code, .invalidArguments, "keyed by the lookup info")
        XCTAssertEqual((partial[CKUserIdentity.LookupInfo(phoneNumber: "call me")] as? CKError)?.code, .invalidArguments)
        XCTAssertNil(partial[ann])
    }

    func testNothingToLookUpSucceedsWithoutARequest() async {
        let before = server.requestCount
        let (results, log, final) = await run(CKFetchShareParticipantsOperation())
        XCTAssertTrue(results.isEmpty)
        XCTAssertEqual(log, ["final"])
        XCTAssertNotNil(try final?.get())
        XCTAssertEqual(server.requestCount, before)
    }

    func testWithoutAnAccountEveryItemAndTheOperationFailWithNotAuthenticated() async {
        let guest = server.container(identifier: identifier, account: nil)
        let (results, _, final) = await run(CKFetchShareParticipantsOperation(userIdentityLookupInfos: [CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")]), on: guest)
        XCTAssertEqual(results.map(\.1.failureCode), [.notAuthenticated])
        XCTAssertEqual(final?.failureCode, .notAuthenticated)
    }

    func testACancelledOperationReportsOperationCancelledAndSendsNothing() async {
        let before = server.requestCount
        let operation = CKFetchShareParticipantsOperation(userIdentityLookupInfos: [CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")])
        operation.cancel()
        let (results, _, final) = await run(operation)
        XCTAssertEqual(results.map(\.1.failureCode), [.operationCancelled])
        XCTAssertEqual(final?.failureCode, .operationCancelled)
        XCTAssertEqual(server.requestCount, before)
    }

    @available(*, deprecated)
    func testLegacyBlocksRunOnlyWithoutTheirReplacements() async throws {
        let infos = [CKUserIdentity.LookupInfo(emailAddress: "ann@example.com"), CKUserIdentity.LookupInfo(emailAddress: "")]
        let legacy = CKFetchShareParticipantsOperation(userIdentityLookupInfos: infos)
        nonisolated(unsafe) var fetched: [CKShare.Participant] = []
        legacy.shareParticipantFetchedBlock = { fetched.append($0) }
        let legacyDone = expectation(description: "legacy completion")
        nonisolated(unsafe) var legacyError: (any Error)?
        legacy.fetchShareParticipantsCompletionBlock = { error in
            legacyError = error
            legacyDone.fulfill()
        }
        john.add(legacy)
        await fulfillment(of: [legacyDone], timeout: 10)
        XCTAssertEqual(fetched.map(\.userIdentity.userRecordID), [annRecordID], "the legacy block sees only the participants made")
        XCTAssertEqual((legacyError as? CKError)?.code, .partialFailure)

        let both = CKFetchShareParticipantsOperation(userIdentityLookupInfos: infos)
        both.shareParticipantFetchedBlock = { _ in XCTFail("ignored when perShareParticipantResultBlock is set") }
        both.fetchShareParticipantsCompletionBlock = { _ in XCTFail("ignored when fetchShareParticipantsResultBlock is set") }
        let (results, _, final) = await run(both)
        XCTAssertEqual(results.count, 2)
        XCTAssertEqual(final?.failureCode, .partialFailure)
    }

    // MARK: - The container's calls

    func testBatchCallsKeyTheirResultsByWhatWasPassedInOneRequestEach() async throws {
        var before = server.requestCount
        let byEmail = try await john.shareParticipants(forEmailAddresses: ["ann@example.com", "nobody@example.com", ""])
        XCTAssertEqual(server.requestCount, before + 1)
        XCTAssertEqual(Set(byEmail.keys), ["ann@example.com", "nobody@example.com", ""])
        XCTAssertEqual(try byEmail["ann@example.com"]?.get().userIdentity.userRecordID, annRecordID)
        XCTAssertEqual(try byEmail["nobody@example.com"]?.get().userIdentity.hasiCloudAccount, false)
        XCTAssertEqual(byEmail[""]?.failureCode, .invalidArguments)

        before = server.requestCount
        let byPhone = try await john.shareParticipants(forPhoneNumbers: ["5550100001"])
        XCTAssertEqual(try byPhone["5550100001"]?.get().userIdentity.userRecordID, annRecordID)
        let byRecordID = try await john.shareParticipants(forUserRecordIDs: [annRecordID])
        XCTAssertEqual(try byRecordID[annRecordID]?.get().userIdentity.lookupInfo?.userRecordID, annRecordID)
        XCTAssertEqual(server.requestCount, before + 2)
    }

    func testLookupInfoBatchesKeyTheirResultsByTheLookupInfosInOneRequest() async throws {
        let byEmail = CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")
        let byPhone = CKUserIdentity.LookupInfo(phoneNumber: "5550100001")
        let byRecordID = CKUserIdentity.LookupInfo(userRecordID: annRecordID)
        let empty = CKUserIdentity.LookupInfo(emailAddress: "")
        let before = server.requestCount

        let results = try await john.shareParticipants(for: [byEmail, byPhone, byRecordID, empty])

        XCTAssertEqual(server.requestCount, before + 1)
        XCTAssertEqual(Set(results.keys), [byEmail, byPhone, byRecordID, empty])
        for info in [byEmail, byPhone, byRecordID] {
            XCTAssertEqual(try results[info]?.get().userIdentity.userRecordID, annRecordID)
        }
        XCTAssertEqual(results[empty]?.failureCode, .invalidArguments)

        let done = expectation(description: "handler")
        let recordID = annRecordID!
        john.fetchShareParticipants(for: [byEmail]) { result in
            XCTAssertEqual(try? result.get()[byEmail]?.get().userIdentity.userRecordID, recordID)
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 10)
    }

    func testSingleCallsReturnTheParticipantOrThrowTheItemsError() async throws {
        let byEmail = try await john.shareParticipant(forEmailAddress: "ann@example.com")
        assertNewParticipant(byEmail)
        XCTAssertEqual(byEmail.userIdentity.userRecordID, annRecordID)
        let byPhone = try await john.shareParticipant(forPhoneNumber: "+15550100001")
        XCTAssertEqual(byPhone.userIdentity.userRecordID, annRecordID)
        let byRecordID = try await john.shareParticipant(forUserRecordID: annRecordID)
        XCTAssertEqual(byRecordID.userIdentity.userRecordID, annRecordID)
        do {
            _ = try await john.shareParticipant(forEmailAddress: "")
            XCTFail("an empty address names no one")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .invalidArguments)
        }
    }

    func testCompletionHandlerFormsPassTheSameResults() async throws {
        let done = (0..<4).map { expectation(description: "handler \($0)") }
        let recordID = annRecordID!
        john.fetchShareParticipant(withEmailAddress: "ann@example.com") { participant, error in
            XCTAssertNil(error)
            XCTAssertEqual(participant?.userIdentity.userRecordID, recordID)
            done[0].fulfill()
        }
        john.fetchShareParticipant(withPhoneNumber: "no digits") { participant, error in
            XCTAssertNil(participant)
            XCTAssertEqual((error as? CKError)?.code, .invalidArguments)
            done[1].fulfill()
        }
        john.fetchShareParticipant(withUserRecordID: recordID) { participant, _ in
            XCTAssertEqual(participant?.userIdentity.userRecordID, recordID)
            done[2].fulfill()
        }
        john.fetchShareParticipants(forEmailAddresses: ["ann@example.com"]) { result in
            XCTAssertEqual(try? result.get()["ann@example.com"]?.get().userIdentity.userRecordID, recordID)
            done[3].fulfill()
        }
        await fulfillment(of: done, timeout: 10)

        let phones = expectation(description: "phones")
        let ids = expectation(description: "record IDs")
        john.fetchShareParticipants(forPhoneNumbers: ["5550100001"]) { result in
            XCTAssertEqual(try? result.get()["5550100001"]?.get().userIdentity.userRecordID, recordID)
            phones.fulfill()
        }
        john.fetchShareParticipants(forUserRecordIDs: [recordID]) { result in
            XCTAssertNotNil(try? result.get()[recordID]?.get())
            ids.fulfill()
        }
        await fulfillment(of: [phones, ids], timeout: 10)
    }

    func testAWholeRequestFailureIsThrownByTheBatchCall() async {
        let guest = server.container(identifier: identifier, account: nil)
        do {
            _ = try await guest.shareParticipants(forEmailAddresses: ["ann@example.com"])
            XCTFail("no account")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .notAuthenticated)
        }
    }

    func testAFoundParticipantCanBeAddedToAShare() async throws {
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party", zoneID: CKRecordZone.ID(zoneName: "Parties")))
        let share = CKShare(rootRecord: party)
        let ann = try await john.shareParticipant(forEmailAddress: "ann@example.com")
        ann.permission = .readWrite
        share.addParticipant(ann)
        XCTAssertEqual(share.participants.count, 2)
        XCTAssertTrue(share.participants.last === ann)
        XCTAssertEqual(share.participants.last?.userIdentity.userRecordID, annRecordID)
    }

    // MARK: - The CloudService endpoint

    func testTheEndpointAnswersEachLookupInfoInOrderAndIsRecorded() async throws {
        let context = database.requestPath(qualityOfService: .default).context()
        let infos = [
            WireUserLookupInfo(emailAddress: "ann@example.com"),
            WireUserLookupInfo(),
            WireUserLookupInfo(emailAddress: "a@example.com", phoneNumber: "5550100001"),
            WireUserLookupInfo(userRecordID: WireRecordID(recordName: annRecordID.recordName, zoneID: WireZoneID(zoneName: "Other", ownerName: "__defaultOwner__"))),
            WireUserLookupInfo(userRecordID: WireRecordID(recordName: "")),
        ]
        let response = try await server.lookupShareParticipants(WireShareParticipantsLookupRequest(context: context, ids: infos))
        XCTAssertEqual(response.results.map(\.id), infos)
        let found = try response.results[0].result.get()
        XCTAssertEqual(found.identity.userRecordName, annRecordID.recordName)
        XCTAssertEqual(found.role, .privateUser)
        XCTAssertEqual(found.acceptanceStatus, .pending)
        XCTAssertEqual(found.permission, .readOnly)
        for index in [1, 2, 4] {
            guard case .failure(let error) = response.results[index].result else { XCTFail("item \(index) is malformed"); continue }
            XCTAssertEqual(error.code, .invalidArguments)
        }
        let otherZone = try response.results[3].result.get()
        XCTAssertNil(otherZone.identity.userRecordName, "user records live in the default zone")
        XCTAssertFalse(otherZone.identity.hasiCloudAccount)
        XCTAssertEqual(server.requestLog.last?.endpoint, .lookupShareParticipants)
        XCTAssertEqual(RecordedRequest.Endpoint.lookupShareParticipants.subpath, "users/participants")
    }

    func testTheEndpointRefusesMoreThanFourHundredLookupInfos() async {
        let context = database.requestPath(qualityOfService: .default).context()
        let infos = (0...400).map { WireUserLookupInfo(emailAddress: "u\($0)@example.com") }
        do {
            _ = try await server.lookupShareParticipants(WireShareParticipantsLookupRequest(context: context, ids: infos))
            XCTFail("401 lookup infos are too many")
        } catch {
            XCTAssertEqual(error.code, .limitExceeded)
        }
    }
}
