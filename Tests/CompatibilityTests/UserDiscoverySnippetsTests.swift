import Stratus
import XCTest

// Finding people as Apple's documentation, its sample code and the WWDC talks write it, with
// `import Stratus` in place of `import CloudKit`. The API is deprecated since iOS 17, so each
// snippet sits in a deprecated test, as it would sit in deprecated app code: it builds without
// warnings and runs.

final class UserDiscoverySnippetsTests: XCTestCase {
    private var server: CloudServer!
    private var container: CKContainer!

    override func setUp() {
        super.setUp()
        server = CloudServer(clock: ManualClock())
        container = server.container(identifier: "iCloud.com.example.clowns", account: "john")
        server.setEmailAddress("ann@example.com", forAccount: "ann")
        var name = PersonNameComponents()
        name.givenName = "Ann"
        name.familyName = "Lee"
        server.setName(name, forAccount: "ann")
        server.setUserDiscoverability(.granted, forAccount: "ann", containerIdentifier: "iCloud.com.example.clowns")
        server.setContacts([CloudServer.Contact(identifier: "ann", emailAddresses: ["ann@example.com"])], forAccount: "john")
    }

    override func tearDown() {
        container = nil
        server = nil
        super.tearDown()
    }

    /// Ask once for discoverability, the way the permission's documentation shows, then look
    /// a friend up by email address.
    @available(*, deprecated)
    func testRequestDiscoverabilityThenDiscoverAFriendByEmail() async throws {
        let container = self.container!
        let done = expectation(description: "looked up")
        container.status(forApplicationPermission: .userDiscoverability) { status, error in
            if status == .granted { return }
            container.requestApplicationPermission(.userDiscoverability) { status, error in
                guard status == .granted, error == nil else { return }
                container.discoverUserIdentity(withEmailAddress: "ann@example.com") { identity, error in
                    if let identity = identity, let name = identity.nameComponents {
                        // (PersonNameComponentsFormatter() is missing from Foundation on Linux.)
                        XCTAssertEqual([name.givenName, name.familyName].compactMap { $0 }.joined(separator: " "), "Ann Lee")
                    } else {
                        XCTFail("Ann opted in: \(String(describing: error))")
                    }
                    done.fulfill()
                }
            }
        }
        await fulfillment(of: [done], timeout: 10)
    }

    /// The `async` spellings.
    @available(*, deprecated)
    func testAsyncLookupAndPermission() async throws {
        let status = try await container.applicationPermissionStatus(for: .userDiscoverability)
        if status != .granted {
            try await container.requestApplicationPermission(.userDiscoverability)
        }
        guard let identity = try await container.userIdentity(forEmailAddress: "ann@example.com"),
              let userRecordID = identity.userRecordID else {
            return XCTFail("Ann opted in")
        }
        let again = try await container.userIdentity(forUserRecordID: userRecordID)
        XCTAssertEqual(again?.nameComponents?.givenName, "Ann")
        let nobody = try await container.userIdentity(forPhoneNumber: "+1 555 0100")
        XCTAssertNil(nobody)
    }

    /// "Friends who also use the app": every discoverable contact, with the operation.
    @available(*, deprecated)
    func testDiscoverAllUserIdentitiesOperation() async throws {
        var discovered: [CKUserIdentity] = []
        let operation = CKDiscoverAllUserIdentitiesOperation()
        operation.userIdentityDiscoveredBlock = { identity in
            discovered.append(identity)
        }
        let done = expectation(description: "done")
        operation.discoverAllUserIdentitiesResultBlock = { result in
            switch result {
            case .success:
                XCTAssertEqual(discovered.compactMap { $0.nameComponents?.givenName }, ["Ann"])
                XCTAssertEqual(discovered.first?.contactIdentifiers, ["ann"])
            case .failure(let error):
                XCTFail("\(error)")
            }
            done.fulfill()
        }
        operation.qualityOfService = .userInitiated
        container.add(operation)
        await fulfillment(of: [done], timeout: 10)
    }

    /// Looking up several users at once, with the older completion block.
    @available(*, deprecated)
    func testDiscoverUserIdentitiesOperationWithTheCompletionBlock() async throws {
        let lookupInfos = CKUserIdentity.LookupInfo.lookupInfos(withEmails: ["ann@example.com", "stranger@example.com"])
        let operation = CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: lookupInfos)
        var identities: [CKUserIdentity.LookupInfo: CKUserIdentity] = [:]
        operation.userIdentityDiscoveredBlock = { identity, lookupInfo in
            identities[lookupInfo] = identity
        }
        let done = expectation(description: "done")
        operation.discoverUserIdentitiesCompletionBlock = { error in
            XCTAssertNil(error)
            XCTAssertEqual(identities.count, 1)
            XCTAssertNotNil(identities[CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")])
            done.fulfill()
        }
        container.add(operation)
        await fulfillment(of: [done], timeout: 10)
    }

    /// "Advanced CloudKit" (WWDC 2014): the iOS 8 discovery of contacts and of user infos.
    @available(*, deprecated)
    func testIOS8DiscoverAllContactsAndUserInfos() async throws {
        let discoverAll = CKDiscoverAllContactsOperation()
        let allDone = expectation(description: "all")
        discoverAll.discoverAllContactsCompletionBlock = { userInfos, error in
            for userInfo in userInfos ?? [] {
                XCTAssertEqual(userInfo.firstName, "Ann")
                XCTAssertEqual(userInfo.lastName, "Lee")
            }
            XCTAssertEqual(userInfos?.count, 1)
            allDone.fulfill()
        }
        container.add(discoverAll)

        let discoverInfos = CKDiscoverUserInfosOperation(emailAddresses: ["ann@example.com"], userRecordIDs: nil)
        let infosDone = expectation(description: "infos")
        discoverInfos.discoverUserInfosCompletionBlock = { emailsToUserInfos, userRecordIDsToUserInfos, error in
            XCTAssertNil(error)
            XCTAssertNotNil(emailsToUserInfos?["ann@example.com"]?.userRecordID)
            XCTAssertEqual(userRecordIDsToUserInfos?.isEmpty, true)
            infosDone.fulfill()
        }
        container.add(discoverInfos)
        await fulfillment(of: [allDone, infosDone], timeout: 10)
    }
}
