import Stratus
import Synchronization
import XCTest

/// Containers, devices and accounts: who sees which database, and what a sign-in changes.
final class AccountTests: ServerTestCase {
    func testDevicesOfOneAccountShareItsPrivateDatabase() async throws {
        let phone = device("john")
        let laptop = device("john")
        _ = try await phone.privateCloudDatabase.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n")))
        let fetched = try await laptop.privateCloudDatabase.record(for: CKRecord.ID(recordName: "n"))
        XCTAssertEqual(fetched.recordType, "Note")
    }

    func testAccountsHaveSeparatePrivateDatabases() async throws {
        _ = try await device("john").privateCloudDatabase.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n")))
        await assertThrowsCKError(.unknownItem) { try await self.device("alice").privateCloudDatabase.record(for: CKRecord.ID(recordName: "n")) }
    }

    func testEveryAccountSharesThePublicDatabase() async throws {
        _ = try await device("john").publicCloudDatabase.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "bash")))
        let seen = try await device("alice").publicCloudDatabase.record(for: CKRecord.ID(recordName: "bash"))
        XCTAssertEqual(seen.recordType, "Party")
    }

    func testContainersAreSeparate() async throws {
        let other = server.container(identifier: "iCloud.com.example.other", account: "john")
        _ = try await device("john").publicCloudDatabase.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "bash")))
        await assertThrowsCKError(.unknownItem) { try await other.publicCloudDatabase.record(for: CKRecord.ID(recordName: "bash")) }
    }

    func testUserRecordIDIsStableAndDeterministic() async throws {
        let phone = try await device("john").userRecordID()
        let laptop = try await device("john").userRecordID()
        let alice = try await device("alice").userRecordID()
        XCTAssertEqual(phone, laptop)
        XCTAssertNotEqual(phone, alice)
        XCTAssertEqual(phone.zoneID, .default)
        XCTAssertEqual(phone.recordName.count, 33)
        XCTAssertTrue(phone.recordName.hasPrefix("_"))
        XCTAssertTrue(phone.recordName.dropFirst().allSatisfy { "0123456789abcdef".contains($0) })
        XCTAssertEqual(phone.recordName, server.userRecordName(account: "john", containerIdentifier: identifier))
        let elsewhere = CloudServer(clock: ManualClock())
        let again = try await elsewhere.container(identifier: identifier, account: "john").userRecordID()
        XCTAssertEqual(again, phone, "the same account and container give the same ID on every server")
        let otherContainer = try await server.container(identifier: "iCloud.com.example.other", account: "john").userRecordID()
        XCTAssertNotEqual(otherContainer, phone)
    }

    func testFetchUserRecordIDCompletionForm() async throws {
        let result = await withCheckedContinuation { continuation in
            device("john").fetchUserRecordID { recordID, error in continuation.resume(returning: (recordID, error)) }
        }
        XCTAssertNotNil(result.0)
        XCTAssertNil(result.1)
        let guest = await withCheckedContinuation { continuation in
            device(nil).fetchUserRecordID { recordID, error in continuation.resume(returning: (recordID, error)) }
        }
        XCTAssertNil(guest.0)
        XCTAssertEqual((guest.1 as? CKError)?.code, .notAuthenticated)
    }

    func testUsersRecordIsCreatedOnFirstUse() async throws {
        let john = device("john")
        let userID = try await john.userRecordID()
        let privateUser = try await john.privateCloudDatabase.record(for: userID)
        XCTAssertEqual(privateUser.recordType, CKRecord.SystemType.userRecord)
        let publicUser = try await device(nil).publicCloudDatabase.record(for: userID)
        XCTAssertEqual(publicUser.recordType, "Users")
        let current = try await john.privateCloudDatabase.record(for: CKRecord.ID(recordName: CKCurrentUserDefaultName))
        XCTAssertEqual(current.recordID, userID)
    }

    func testOwnRecordsShowDefaultOwnerAndOthersShowTheRealUser() async throws {
        let john = device("john")
        let saved = try await john.publicCloudDatabase.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "bash")))
        XCTAssertEqual(saved.creatorUserRecordID?.recordName, CKCurrentUserDefaultName)
        XCTAssertEqual(saved.lastModifiedUserRecordID?.recordName, CKCurrentUserDefaultName)
        let johnID = try await john.userRecordID()
        let seenByAlice = try await device("alice").publicCloudDatabase.record(for: saved.recordID)
        XCTAssertEqual(seenByAlice.creatorUserRecordID, johnID)
        let seenByGuest = try await device(nil).publicCloudDatabase.record(for: saved.recordID)
        XCTAssertEqual(seenByGuest.creatorUserRecordID, johnID)
    }

    func testAccountStatusFollowsSignInAndTheServerKnobs() async throws {
        let john = device("john")
        var status = try await john.accountStatus()
        XCTAssertEqual(status, .available)
        status = try await device(nil).accountStatus()
        XCTAssertEqual(status, .noAccount)
        for knob in [CKAccountStatus.restricted, .couldNotDetermine, .temporarilyUnavailable] {
            server.setAccountStatus(knob, for: john)
            status = try await john.accountStatus()
            XCTAssertEqual(status, knob)
        }
        server.setAccountStatus(.available, for: john)
        status = try await john.accountStatus()
        XCTAssertEqual(status, .available)
        XCTAssertEqual(server.requestCount, 0, "accountStatus costs no request")
    }

    func testAccountStatusCompletionForm() async {
        let status = await withCheckedContinuation { continuation in
            device("john").accountStatus { status, _ in continuation.resume(returning: status) }
        }
        XCTAssertEqual(status, .available)
    }

    func testTemporarilyUnavailableAccountFailsRequestsThatNeedIt() async {
        let john = device("john")
        server.setAccountStatus(.temporarilyUnavailable, for: john)
        await assertThrowsCKError(.accountTemporarilyUnavailable) { try await john.privateCloudDatabase.allRecordZones() }
        await assertThrowsCKError(.accountTemporarilyUnavailable) { try await john.userRecordID() }
    }

    func testRestrictedAndUndeterminedAccountsAreNotAuthenticated() async {
        let john = device("john")
        server.setAccountStatus(.restricted, for: john)
        await assertThrowsCKError(.notAuthenticated) { try await john.privateCloudDatabase.allRecordZones() }
        server.setAccountStatus(.couldNotDetermine, for: john)
        await assertThrowsCKError(.notAuthenticated) { try await john.publicCloudDatabase.save(CKRecord(recordType: "Party")) }
    }

    func testPublicDatabaseIsReadableWithoutAnAccountButNotWritable() async throws {
        _ = try await device("john").publicCloudDatabase.save(CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "bash")))
        let guest = device(nil)
        let party = try await guest.publicCloudDatabase.record(for: CKRecord.ID(recordName: "bash"))
        XCTAssertEqual(party.recordType, "Party")
        let zones = try await guest.publicCloudDatabase.allRecordZones()
        XCTAssertEqual(zones.map(\.zoneID), [.default])
        await assertThrowsCKError(.notAuthenticated) { try await guest.publicCloudDatabase.save(CKRecord(recordType: "Party")) }
        await assertThrowsCKError(.notAuthenticated) { try await guest.publicCloudDatabase.deleteRecord(withID: CKRecord.ID(recordName: "bash")) }
    }

    func testPrivateAndSharedDatabasesNeedAnAccount() async {
        let guest = device(nil)
        await assertThrowsCKError(.notAuthenticated) { try await guest.privateCloudDatabase.record(for: CKRecord.ID(recordName: "x")) }
        await assertThrowsCKError(.notAuthenticated) { try await guest.privateCloudDatabase.allRecordZones() }
        await assertThrowsCKError(.notAuthenticated) { try await guest.sharedCloudDatabase.allRecordZones() }
        await assertThrowsCKError(.notAuthenticated) { try await guest.userRecordID() }
    }

    func testSharedDatabaseIsEmpty() async throws {
        let zones = try await device("john").sharedCloudDatabase.allRecordZones()
        XCTAssertEqual(zones, [])
    }

    func testSignOutAndSignInPostAccountChangedWithTheContainer() async throws {
        let john = device("john")
        let other = device("john")
        let posted = Mutex<[ObjectIdentifier]>([])
        let observer = NotificationCenter.default.addObserver(forName: .CKAccountChanged, object: nil, queue: nil) { note in
            if let object = note.object as AnyObject? { posted.withLock { $0.append(ObjectIdentifier(object)) } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        server.signOut(john)
        var status = try await john.accountStatus()
        XCTAssertEqual(status, .noAccount)
        status = try await other.accountStatus()
        XCTAssertEqual(status, .available, "signing out one device leaves the others signed in")
        server.signIn(john, as: "alice")
        status = try await john.accountStatus()
        XCTAssertEqual(status, .available)
        XCTAssertEqual(posted.withLock { $0 }.filter { $0 == ObjectIdentifier(john) }.count, 2)
    }

    func testAfterSigningInAsAnotherUserTheDeviceSeesOnlyThatUsersPrivateData() async throws {
        let device = device("john")
        _ = try await device.privateCloudDatabase.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "johns")))
        server.signIn(device, as: "alice")
        await assertThrowsCKError(.unknownItem) { try await device.privateCloudDatabase.record(for: CKRecord.ID(recordName: "johns")) }
        _ = try await device.privateCloudDatabase.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "alices")))
        let aliceID = try await device.userRecordID()
        XCTAssertEqual(aliceID.recordName, server.userRecordName(account: "alice", containerIdentifier: identifier))
        server.signIn(device, as: "john")
        let johns = try await device.privateCloudDatabase.record(for: CKRecord.ID(recordName: "johns"))
        XCTAssertEqual(johns.recordType, "Note")
    }

    func testDefaultContainerUsesTheSharedServerAndOneDevice() async throws {
        let first = CKContainer(identifier: "iCloud.com.example.stratus-tests")
        let second = CKContainer(identifier: "iCloud.com.example.stratus-tests")
        XCTAssertEqual(first.containerIdentifier, "iCloud.com.example.stratus-tests")
        let firstID = try await first.userRecordID()
        let secondID = try await second.userRecordID()
        XCTAssertEqual(firstID, secondID)
        XCTAssertEqual(firstID.recordName, CloudServer.shared.userRecordName(account: CloudServer.defaultAccount, containerIdentifier: "iCloud.com.example.stratus-tests"))
        XCTAssertTrue(CKContainer.default().containerIdentifier?.hasPrefix("iCloud.") == true)
    }
}
