import Foundation
import Stratus
import XCTest

/// The server's rules for finding people, checked by calling the `CloudService` directly, as a
/// network transport or a forged client would: a user who did not grant `userDiscoverability`
/// is never revealed, whatever the request asks; the permission is per container and asked
/// once; every call needs an account.
final class UserDiscoveryServerTests: ServerTestCase {
    private var ann: CKContainer!
    private var bob: CKContainer!

    override func setUp() {
        super.setUp()
        ann = device("ann")
        bob = device("bob")
        server.setEmailAddress("ann@example.com", forAccount: "ann")
        server.setPhoneNumber("+1 (555) 010-0001", forAccount: "ann")
        var name = PersonNameComponents()
        name.givenName = "Ann"
        name.familyName = "Lee"
        server.setName(name, forAccount: "ann")
    }

    override func tearDown() {
        ann = nil
        bob = nil
        super.tearDown()
    }

    private var annRecordName: String { server.userRecordName(account: "ann", containerIdentifier: identifier) }

    private func lookUp(_ infos: [WireUserLookupInfo], from container: CKContainer) async throws -> [WireUserIdentity?] {
        try await server.lookupUsers(WireUsersLookupRequest(context: rawContext(container.privateCloudDatabase), ids: infos)).results
    }

    private var everyWayToAskForAnn: [WireUserLookupInfo] {
        [
            WireUserLookupInfo(emailAddress: "ann@example.com"),
            WireUserLookupInfo(emailAddress: "ANN@example.com"),
            WireUserLookupInfo(phoneNumber: "+1 (555) 010-0001"),
            WireUserLookupInfo(phoneNumber: "15550100001"),
            WireUserLookupInfo(userRecordID: WireRecordID(recordName: annRecordName)),
        ]
    }

    private func permission(_ container: CKContainer, request: Bool = false) async throws -> WireApplicationPermissionStatus {
        let wire = WireApplicationPermissionRequest(context: rawContext(container.privateCloudDatabase), permission: .userDiscoverability)
        return request ? try await server.requestApplicationPermission(wire) : try await server.applicationPermissionStatus(wire)
    }

    // MARK: - Never revealed

    func testAUserWhoNeverOptedInIsRevealedByNoLookupAndNoContactList() async throws {
        server.setContacts([CloudServer.Contact(identifier: "c-ann", emailAddresses: ["ann@example.com"], phoneNumbers: ["5550100001"])], forAccount: "bob")
        _ = try await server.currentUser(rawContext(ann.privateCloudDatabase))   // Ann has run the app

        let results = try await lookUp(everyWayToAskForAnn, from: bob)
        XCTAssertEqual(results, Array(repeating: nil, count: everyWayToAskForAnn.count))
        let contacts = try await server.lookupContacts(rawContext(bob.privateCloudDatabase))
        XCTAssertEqual(contacts.identities, [])
        // Not even to herself.
        let own = try await lookUp(everyWayToAskForAnn, from: ann)
        XCTAssertEqual(own, Array(repeating: nil, count: everyWayToAskForAnn.count))
    }

    func testAUserWhoDeniedIsAnsweredExactlyAsAnUnknownUser() async throws {
        server.userDiscoverabilityPromptAnswer = .denied
        let status = try await permission(ann, request: true)
        XCTAssertEqual(status, .denied)
        let denied = try await lookUp(everyWayToAskForAnn, from: bob)
        let unknown = try await lookUp([
            WireUserLookupInfo(emailAddress: "nobody@example.com"),
            WireUserLookupInfo(emailAddress: "nobody@example.com"),
            WireUserLookupInfo(phoneNumber: "555 999"),
            WireUserLookupInfo(phoneNumber: "555 999"),
            WireUserLookupInfo(userRecordID: WireRecordID(recordName: "_00000000000000000000000000000000")),
        ], from: bob)
        XCTAssertEqual(denied, unknown)
        XCTAssertEqual(denied, Array(repeating: nil, count: 5))
    }

    func testAnOptedInUserIsFoundByEmailPhoneAndUserRecordIDWithTheNameTheyGave() async throws {
        let granted = try await permission(ann, request: true)
        XCTAssertEqual(granted, .granted)
        let annUser = try await server.currentUser(rawContext(ann.privateCloudDatabase)).userRecordName
        XCTAssertEqual(annUser, annRecordName)

        let results = try await lookUp(everyWayToAskForAnn, from: bob)
        XCTAssertEqual(results.count, 5)
        for (info, identity) in zip(everyWayToAskForAnn, results) {
            XCTAssertEqual(identity?.userRecordName, annUser, "\(info)")
            XCTAssertEqual(identity?.lookupInfo, info, "the lookup info asked with comes back")
            XCTAssertEqual(identity?.nameComponents?.givenName, "Ann")
            XCTAssertEqual(identity?.nameComponents?.familyName, "Lee")
            XCTAssertEqual(identity?.hasiCloudAccount, true)
            XCTAssertEqual(identity?.contactIdentifiers, [])
        }
    }

    func testAUserRecordIDOutsideTheDefaultZoneNamesNobody() async throws {
        server.setUserDiscoverability(.granted, forAccount: "ann", containerIdentifier: identifier)
        let results = try await lookUp([WireUserLookupInfo(userRecordID: WireRecordID(recordName: annRecordName, zoneID: WireZoneID(zoneName: "Elsewhere")))], from: bob)
        XCTAssertEqual(results, [nil])
    }

    func testDiscoverabilityIsPerContainer() async throws {
        _ = try await permission(ann, request: true)
        let otherApp = server.container(identifier: "iCloud.com.example.other", account: "bob")
        let results = try await lookUp([WireUserLookupInfo(emailAddress: "ann@example.com")], from: otherApp)
        XCTAssertEqual(results, [nil])
        let otherAnn = server.container(identifier: "iCloud.com.example.other", account: "ann")
        let status = try await permission(otherAnn)
        XCTAssertEqual(status, .initialState)
    }

    func testAnEmailAddressBelongsToOneAccountAtATime() async throws {
        server.setUserDiscoverability(.granted, forAccount: "ann", containerIdentifier: identifier)
        server.setUserDiscoverability(.granted, forAccount: "carl", containerIdentifier: identifier)
        server.setEmailAddress("Ann@Example.com", forAccount: "carl")
        let results = try await lookUp([WireUserLookupInfo(emailAddress: "ann@example.com")], from: bob)
        XCTAssertEqual(results.first??.userRecordName, server.userRecordName(account: "carl", containerIdentifier: identifier))
    }

    // MARK: - The permission

    func testTheUserIsAskedOnceAndTheAnswerStands() async throws {
        let initial = try await permission(ann)
        XCTAssertEqual(initial, .initialState)
        server.userDiscoverabilityPromptAnswer = .denied
        let first = try await permission(ann, request: true)
        XCTAssertEqual(first, .denied)
        server.userDiscoverabilityPromptAnswer = .granted
        let second = try await permission(device("ann"), request: true)   // another of Ann's devices
        XCTAssertEqual(second, .denied, "a user who answered is not asked again")
        let status = try await permission(ann)
        XCTAssertEqual(status, .denied)

        server.setUserDiscoverability(.granted, forAccount: "ann", containerIdentifier: identifier)
        let afterKnob = try await permission(ann)
        XCTAssertEqual(afterKnob, .granted)
    }

    func testADismissedPromptRecordsNothing() async throws {
        server.userDiscoverabilityPromptAnswer = .couldNotComplete
        let dismissed = try await permission(ann, request: true)
        XCTAssertEqual(dismissed, .couldNotComplete)
        let status = try await permission(ann)
        XCTAssertEqual(status, .initialState)
    }

    func testAnEmptyOrUnknownPermissionIsRefused() async throws {
        for bits: UInt in [0, 2, 3] {
            let request = WireApplicationPermissionRequest(context: rawContext(ann.privateCloudDatabase), permission: WireApplicationPermissions(rawValue: bits))
            await assertWireError(.invalidArguments) { try await self.server.applicationPermissionStatus(request) }
            await assertWireError(.invalidArguments) { try await self.server.requestApplicationPermission(request) }
        }
    }

    // MARK: - Malformed requests

    func testALookupInfoMustNameExactlyOneThing() async throws {
        for info in [WireUserLookupInfo(), WireUserLookupInfo(emailAddress: "a@b.c", phoneNumber: "1")] {
            await assertWireError(.invalidArguments) { try await self.lookUp([WireUserLookupInfo(emailAddress: "ok@b.c"), info], from: self.bob) }
        }
        let tooMany = Array(repeating: WireUserLookupInfo(emailAddress: "ann@example.com"), count: 401)
        await assertWireError(.limitExceeded) { try await self.lookUp(tooMany, from: self.bob) }
    }

    func testEveryDiscoveryCallNeedsAnAccount() async throws {
        server.setUserDiscoverability(.granted, forAccount: "ann", containerIdentifier: identifier)
        let guest = device(nil)
        let context = rawContext(guest.privateCloudDatabase)
        let permission = WireApplicationPermissionRequest(context: context, permission: .userDiscoverability)
        await assertWireError(.notAuthenticated) { try await self.server.lookupUsers(WireUsersLookupRequest(context: context, ids: self.everyWayToAskForAnn)) }
        await assertWireError(.notAuthenticated) { try await self.server.lookupContacts(context) }
        await assertWireError(.notAuthenticated) { try await self.server.applicationPermissionStatus(permission) }
        await assertWireError(.notAuthenticated) { try await self.server.requestApplicationPermission(permission) }
    }

    func testEachCallIsOneLoggedRequest() async throws {
        let before = server.requestCount
        let context = rawContext(bob.privateCloudDatabase)
        _ = try await lookUp(everyWayToAskForAnn, from: bob)
        _ = try await server.lookupContacts(context)
        _ = try await permission(bob)
        _ = try await permission(bob, request: true)
        XCTAssertEqual(server.requestCount, before + 4)
        XCTAssertEqual(server.requestLog.suffix(4).map(\.endpoint), [.lookupUsers, .lookupContacts, .applicationPermissionStatus, .requestApplicationPermission])
    }

    // MARK: - Contacts

    func testDiscoverAllReturnsEachDiscoverableContactOnceWithEveryMatchingContact() async throws {
        server.setUserDiscoverability(.granted, forAccount: "ann", containerIdentifier: identifier)
        server.setEmailAddress("carl@example.com", forAccount: "carl")              // never opted in
        server.setEmailAddress("erin@example.com", forAccount: "erin")
        server.setUserDiscoverability(.granted, forAccount: "erin", containerIdentifier: identifier)
        server.setContacts([
            CloudServer.Contact(identifier: "c1", emailAddresses: ["nobody@example.com", "ann@example.com"]),
            CloudServer.Contact(identifier: "c2", emailAddresses: ["carl@example.com"]),
            CloudServer.Contact(identifier: "c3", phoneNumbers: ["555-010-0001"]),
            CloudServer.Contact(identifier: "c4", emailAddresses: ["dave@example.com"]),
            CloudServer.Contact(identifier: "c5", emailAddresses: ["ERIN@example.com"], phoneNumbers: ["0"]),
        ], forAccount: "bob")

        let found = try await server.lookupContacts(rawContext(bob.privateCloudDatabase)).identities
        XCTAssertEqual(found.map(\.userRecordName), [annRecordName, server.userRecordName(account: "erin", containerIdentifier: identifier)])
        XCTAssertEqual(found.map(\.contactIdentifiers), [["c1", "c3"], ["c5"]])
        XCTAssertEqual(found.first?.lookupInfo, WireUserLookupInfo(emailAddress: "ann@example.com"))
        XCTAssertEqual(found.first?.nameComponents?.givenName, "Ann")

        // Another account's contacts are its own.
        let fromAnn = try await server.lookupContacts(rawContext(ann.privateCloudDatabase)).identities
        XCTAssertEqual(fromAnn, [])
    }

    // MARK: - Helpers

    private func assertWireError<T>(_ code: CKErrorCode, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> T) async {
        do {
            _ = try await body()
            XCTFail("expected \(code), got success", file: file, line: line)
        } catch let error as WireError {
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        } catch {
            XCTFail("expected \(code), got \(error)", file: file, line: line)
        }
    }
}
