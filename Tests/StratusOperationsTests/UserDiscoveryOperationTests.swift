import Foundation
import Stratus
import XCTest

/// The discovery operations and the container's discovery and permission calls: who is found
/// (only users who opted in), block order, legacy blocks, cancellation, errors, and that each
/// call is one request.
///
/// The whole API is deprecated (iOS 17), so every test is marked deprecated too: it uses the
/// API as CloudKit code does, without warnings.
final class UserDiscoveryOperationTests: OperationTestCase {
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
        server.setEmailAddress("carl@example.com", forAccount: "carl")
        annRecordID = CKRecord.ID(recordName: server.userRecordName(account: "ann", containerIdentifier: identifier))
    }

    override func tearDown() {
        john = nil
        annRecordID = nil
        super.tearDown()
    }

    /// Ann opts in from her own device, as an app does.
    @available(*, deprecated)
    private func annOptsIn() async throws {
        let annDevice = server.container(identifier: identifier, account: "ann")
        let status = try await annDevice.requestApplicationPermission(.userDiscoverability)
        XCTAssertEqual(status, .granted)
    }

    // MARK: - CKDiscoverUserIdentitiesOperation

    @available(*, deprecated)
    func testDiscoverUserIdentitiesReportsOnlyOptedInUsersInOrderThenSucceedsInOneRequest() async throws {
        try await annOptsIn()
        let byEmail = CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")
        let unknown = CKUserIdentity.LookupInfo(emailAddress: "nobody@example.com")
        let notOptedIn = CKUserIdentity.LookupInfo(emailAddress: "carl@example.com")
        let byRecordID = CKUserIdentity.LookupInfo(userRecordID: annRecordID)
        let operation = CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: [byEmail, unknown, notOptedIn, byRecordID])
        let log = EventLog()
        nonisolated(unsafe) var found: [(CKUserIdentity, CKUserIdentity.LookupInfo)] = []
        operation.userIdentityDiscoveredBlock = { identity, info in
            log.callback("found")
            found.append((identity, info))
        }
        let done = expectation(description: "final block")
        nonisolated(unsafe) var outcome: Result<Void, any Error>?
        operation.discoverUserIdentitiesResultBlock = { result in
            log.callback("final")
            outcome = result
            done.fulfill()
        }
        let before = server.requestCount
        john.add(operation)
        await fulfillment(of: [done], timeout: 10)

        XCTAssertEqual(log.all, ["found", "found", "final"])
        XCTAssertEqual(log.overlapCount, 0)
        XCTAssertNotNil(try outcome?.get())
        XCTAssertEqual(server.requestCount, before + 1)
        XCTAssertTrue(found.map(\.1) == [byEmail, byRecordID])
        XCTAssertTrue(found[0].0.lookupInfo === byEmail, "the identity holds the lookup info that found it")
        for (identity, _) in found {
            XCTAssertEqual(identity.userRecordID, annRecordID)
            XCTAssertEqual(identity.nameComponents?.givenName, "Ann")
            XCTAssertEqual(identity.nameComponents?.familyName, "Lee")
            XCTAssertTrue(identity.hasiCloudAccount)
            XCTAssertEqual(identity.contactIdentifiers, [])
        }
    }

    @available(*, deprecated)
    func testDiscoverUserIdentitiesLegacyBlockRunsOnlyWithoutTheResultBlock() async throws {
        try await annOptsIn()
        let legacy = CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: CKUserIdentity.LookupInfo.lookupInfos(withPhoneNumbers: ["5550100001"]))
        let legacyDone = expectation(description: "legacy block")
        nonisolated(unsafe) var names: [String?] = []
        legacy.userIdentityDiscoveredBlock = { identity, _ in names.append(identity.nameComponents?.givenName) }
        legacy.discoverUserIdentitiesCompletionBlock = { error in
            XCTAssertNil(error)
            legacyDone.fulfill()
        }
        john.add(legacy)
        await fulfillment(of: [legacyDone], timeout: 10)
        XCTAssertEqual(names, ["Ann"])

        let both = CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: [])
        let modernDone = expectation(description: "result block")
        both.discoverUserIdentitiesCompletionBlock = { _ in XCTFail("the legacy block runs only when the result block is not set") }
        both.discoverUserIdentitiesResultBlock = { _ in modernDone.fulfill() }
        let before = server.requestCount
        john.add(both)
        await fulfillment(of: [modernDone], timeout: 10)
        XCTAssertEqual(server.requestCount, before, "nothing to look up costs no request")
    }

    @available(*, deprecated)
    func testDiscoverUserIdentitiesWithoutAnAccountFailsWithNotAuthenticated() async throws {
        let guest = server.container(identifier: identifier, account: nil)
        let operation = CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: [CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")])
        operation.userIdentityDiscoveredBlock = { _, _ in XCTFail("nobody is found without an account") }
        let done = expectation(description: "final block")
        operation.discoverUserIdentitiesResultBlock = { result in
            XCTAssertEqual(result.failureCode, .notAuthenticated)
            done.fulfill()
        }
        guest.add(operation)
        await fulfillment(of: [done], timeout: 10)
    }

    @available(*, deprecated)
    func testCancelledDiscoveryReportsOperationCancelledAndSendsNothing() async throws {
        let before = server.requestCount
        let identities = CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: [CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")])
        let all = CKDiscoverAllUserIdentitiesOperation()
        let contacts = CKDiscoverAllContactsOperation()
        let infos = CKDiscoverUserInfosOperation(emailAddresses: ["ann@example.com"], userRecordIDs: nil)
        let finished = (0..<4).map { expectation(description: "final block \($0)") }
        identities.discoverUserIdentitiesResultBlock = { XCTAssertEqual($0.failureCode, .operationCancelled); finished[0].fulfill() }
        all.discoverAllUserIdentitiesResultBlock = { XCTAssertEqual($0.failureCode, .operationCancelled); finished[1].fulfill() }
        contacts.discoverAllContactsCompletionBlock = { userInfos, error in
            XCTAssertNil(userInfos)
            XCTAssertEqual((error as? CKError)?.code, .operationCancelled)
            finished[2].fulfill()
        }
        infos.discoverUserInfosCompletionBlock = { byEmail, byRecordID, error in
            XCTAssertNil(byEmail)
            XCTAssertNil(byRecordID)
            XCTAssertEqual((error as? CKError)?.code, .operationCancelled)
            finished[3].fulfill()
        }
        for operation in [identities, all, contacts, infos] as [CKOperation] {
            operation.cancel()
            john.add(operation)
        }
        await fulfillment(of: finished, timeout: 10)
        XCTAssertEqual(server.requestCount, before)
    }

    // MARK: - CKDiscoverAllUserIdentitiesOperation

    @available(*, deprecated)
    func testDiscoverAllFindsOptedInContactsWithTheirContactIdentifiers() async throws {
        try await annOptsIn()
        server.setContacts([
            CloudServer.Contact(identifier: "ann-work", emailAddresses: ["ann@example.com"]),
            CloudServer.Contact(identifier: "carl", emailAddresses: ["carl@example.com"]),
            CloudServer.Contact(identifier: "ann-home", phoneNumbers: ["(555) 010-0001"]),
        ], forAccount: "john")
        let operation = CKDiscoverAllUserIdentitiesOperation()
        nonisolated(unsafe) var found: [CKUserIdentity] = []
        operation.userIdentityDiscoveredBlock = { found.append($0) }
        let done = expectation(description: "final block")
        operation.discoverAllUserIdentitiesResultBlock = { result in
            XCTAssertNil(result.failureCode)
            done.fulfill()
        }
        john.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.userRecordID, annRecordID)
        XCTAssertEqual(found.first?.contactIdentifiers, ["ann-work", "ann-home"])
        XCTAssertEqual(found.first?.lookupInfo, CKUserIdentity.LookupInfo(emailAddress: "ann@example.com"))

        let legacy = CKDiscoverAllUserIdentitiesOperation()
        let legacyDone = expectation(description: "legacy block")
        legacy.discoverAllUserIdentitiesCompletionBlock = { error in
            XCTAssertNil(error)
            legacyDone.fulfill()
        }
        john.add(legacy)
        await fulfillment(of: [legacyDone], timeout: 10)

        let fromContacts = try await john.allUserIdentitiesFromContacts()
        XCTAssertEqual(fromContacts, found)
    }

    // MARK: - The iOS 8 operations

    @available(*, deprecated)
    func testLegacyOperationsReturnDiscoveredUserInfos() async throws {
        try await annOptsIn()
        server.setContacts([CloudServer.Contact(identifier: "a", emailAddresses: ["ann@example.com"])], forAccount: "john")

        let all = CKDiscoverAllContactsOperation()
        let allDone = expectation(description: "all contacts")
        nonisolated(unsafe) var contacts: [CKDiscoveredUserInfo]?
        all.discoverAllContactsCompletionBlock = { userInfos, error in
            XCTAssertNil(error)
            contacts = userInfos
            allDone.fulfill()
        }
        john.add(all)
        await fulfillment(of: [allDone], timeout: 10)
        XCTAssertEqual(contacts?.map(\.firstName), ["Ann"])
        XCTAssertEqual(contacts?.map(\.lastName), ["Lee"])
        XCTAssertEqual(contacts?.first?.userRecordID, annRecordID)

        let nobody = CKRecord.ID(recordName: server.userRecordName(account: "carl", containerIdentifier: identifier))
        let infos = CKDiscoverUserInfosOperation(emailAddresses: ["ann@example.com", "carl@example.com"], userRecordIDs: [annRecordID, nobody])
        let infosDone = expectation(description: "user infos")
        let before = server.requestCount
        infos.discoverUserInfosCompletionBlock = { byEmail, byRecordID, error in
            XCTAssertNil(error)
            XCTAssertEqual(byEmail?.keys.sorted(), ["ann@example.com"])
            XCTAssertEqual(byEmail?["ann@example.com"]?.userRecordID, self.annRecordID)
            XCTAssertEqual(byRecordID.map { Array($0.keys) }, [self.annRecordID])
            XCTAssertEqual(byRecordID?[self.annRecordID]?.firstName, "Ann")
            infosDone.fulfill()
        }
        john.add(infos)
        await fulfillment(of: [infosDone], timeout: 10)
        XCTAssertEqual(server.requestCount, before + 1)
    }

    // MARK: - The container's calls

    @available(*, deprecated)
    func testContainerLookupsGiveNilUntilTheUserOptsIn() async throws {
        let unknown = try await john.userIdentity(forEmailAddress: "nobody@example.com")
        XCTAssertNil(unknown)
        let before = try await john.userIdentity(forEmailAddress: "ann@example.com")
        XCTAssertNil(before, "Ann has not opted in")
        let beforeByID = try await john.userIdentity(forUserRecordID: annRecordID)
        XCTAssertNil(beforeByID)

        try await annOptsIn()
        let requests = server.requestCount
        let byEmail = try await john.userIdentity(forEmailAddress: "Ann@Example.com")
        let byPhone = try await john.userIdentity(forPhoneNumber: "15550100001")
        let byID = try await john.userIdentity(forUserRecordID: annRecordID)
        XCTAssertEqual(server.requestCount, requests + 3, "each lookup is one request")
        XCTAssertEqual([byEmail, byPhone, byID].map { $0?.userRecordID }, [annRecordID, annRecordID, annRecordID])
        XCTAssertEqual(byEmail?.lookupInfo?.emailAddress, "Ann@Example.com")
        XCTAssertEqual(byPhone?.lookupInfo?.phoneNumber, "15550100001")
        XCTAssertEqual(byID?.lookupInfo?.userRecordID, annRecordID)
        XCTAssertEqual(server.requestLog.last?.context.qualityOfService, .utility, "lookups run at a low priority")
    }

    @available(*, deprecated)
    func testCompletionHandlerLookupsGiveNilWithoutErrorForSomeoneNotFound() async throws {
        try await annOptsIn()
        let found = expectation(description: "found")
        john.discoverUserIdentity(withEmailAddress: "ann@example.com") { identity, error in
            XCTAssertNil(error)
            XCTAssertEqual(identity?.nameComponents?.givenName, "Ann")
            found.fulfill()
        }
        let missing = expectation(description: "missing")
        john.discoverUserIdentity(withPhoneNumber: "555 999 9999") { identity, error in
            XCTAssertNil(identity)
            XCTAssertNil(error)
            missing.fulfill()
        }
        let byID = expectation(description: "by ID")
        let annRecordID = self.annRecordID
        john.discoverUserIdentity(withUserRecordID: annRecordID!) { identity, error in
            XCTAssertNil(error)
            XCTAssertEqual(identity?.userRecordID, annRecordID)
            byID.fulfill()
        }
        let all = expectation(description: "all")
        john.discoverAllIdentities { identities, error in
            XCTAssertNil(error)
            XCTAssertEqual(identities, [])
            all.fulfill()
        }
        await fulfillment(of: [found, missing, byID, all], timeout: 10)
    }

    @available(*, deprecated)
    func testContainerCallsWithoutAnAccountFailWithNotAuthenticated() async throws {
        let guest = server.container(identifier: identifier, account: nil)
        do {
            _ = try await guest.userIdentity(forEmailAddress: "ann@example.com")
            XCTFail("expected notAuthenticated")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .notAuthenticated)
        }
        do {
            _ = try await guest.allUserIdentitiesFromContacts()
            XCTFail("expected notAuthenticated")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .notAuthenticated)
        }
        let read = expectation(description: "status")
        guest.status(forApplicationPermission: .userDiscoverability) { status, error in
            XCTAssertEqual(status, .couldNotComplete)
            XCTAssertEqual((error as? CKError)?.code, .notAuthenticated)
            read.fulfill()
        }
        let request = expectation(description: "request")
        guest.requestApplicationPermission(.userDiscoverability) { status, error in
            XCTAssertEqual(status, .couldNotComplete)
            XCTAssertEqual((error as? CKError)?.code, .notAuthenticated)
            request.fulfill()
        }
        await fulfillment(of: [read, request], timeout: 10)
    }

    @available(*, deprecated)
    func testPermissionStatusFollowsTheUsersAnswer() async throws {
        let initial = try await john.applicationPermissionStatus(for: .userDiscoverability)
        XCTAssertEqual(initial, .initialState)
        server.userDiscoverabilityPromptAnswer = .denied
        let answered = expectation(description: "answered")
        john.requestApplicationPermission(.userDiscoverability) { status, error in
            XCTAssertNil(error)
            XCTAssertEqual(status, .denied)
            answered.fulfill()
        }
        await fulfillment(of: [answered], timeout: 10)
        let read = expectation(description: "read")
        john.status(forApplicationPermission: .userDiscoverability) { status, error in
            XCTAssertNil(error)
            XCTAssertEqual(status, .denied)
            read.fulfill()
        }
        await fulfillment(of: [read], timeout: 10)
        do {
            _ = try await john.applicationPermissionStatus(for: [])
            XCTFail("expected invalidArguments")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .invalidArguments)
        }
    }

    // MARK: - Values and archives

    func testLookupInfosAreValuesAndArchive() throws {
        let infos = CKUserIdentity.LookupInfo.lookupInfos(withEmails: ["a@example.com"])
            + CKUserIdentity.LookupInfo.lookupInfos(withPhoneNumbers: ["555"])
            + CKUserIdentity.LookupInfo.lookupInfos(with: [CKRecord.ID(recordName: "_u", zoneID: CKRecordZone.ID(zoneName: "Z"))])
        XCTAssertEqual(infos.map(\.emailAddress), ["a@example.com", nil, nil])
        XCTAssertEqual(infos.map(\.phoneNumber), [nil, "555", nil])
        XCTAssertEqual(infos.map(\.userRecordID?.zoneID.zoneName), [nil, nil, "Z"])
        XCTAssertEqual(CKUserIdentity.LookupInfo(emailAddress: "a@example.com"), infos[0])
        XCTAssertNotEqual(CKUserIdentity.LookupInfo(emailAddress: "555"), infos[1])
        XCTAssertEqual(Set(infos + infos.map { $0.copy() as! CKUserIdentity.LookupInfo }).count, 3)
        for info in infos {
            let data = try NSKeyedArchiver.archivedData(withRootObject: info, requiringSecureCoding: true)
            let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKUserIdentity.LookupInfo.self, from: data)
            XCTAssertEqual(decoded, info)
        }
    }

    @available(*, deprecated)
    func testUserIdentitiesArchiveWithEveryField() async throws {
        try await annOptsIn()
        server.setContacts([CloudServer.Contact(identifier: "a", emailAddresses: ["ann@example.com"])], forAccount: "john")
        let identities = try await john.allUserIdentitiesFromContacts()
        let identity = try XCTUnwrap(identities.first)
        let data = try NSKeyedArchiver.archivedData(withRootObject: identity, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKUserIdentity.self, from: data))
        XCTAssertEqual(decoded, identity)
        XCTAssertEqual(decoded.contactIdentifiers, ["a"])
        XCTAssertEqual(decoded.nameComponents?.familyName, "Lee")
        XCTAssertEqual(decoded.lookupInfo?.emailAddress, "ann@example.com")
        XCTAssertTrue(decoded.hasiCloudAccount)
        XCTAssertTrue(identity.copy() as AnyObject === identity)

        // A lookup info's archive is not an identity's.
        let infoData = try NSKeyedArchiver.archivedData(withRootObject: CKUserIdentity.LookupInfo(emailAddress: "x"), requiringSecureCoding: true)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: infoData)
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        XCTAssertNil(CKUserIdentity(coder: unarchiver))
    }
}
