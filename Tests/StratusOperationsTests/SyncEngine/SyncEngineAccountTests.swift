import Foundation
import Stratus
import Synchronization
import XCTest

/// The account checks at the start of every sync: sign-in, sign-out and switch events with
/// the state reset, a dormant engine without an account, the public database refused, and the
/// engine's database subscription.
final class SyncEngineAccountTests: SyncEngineTestCase {
    private let notes = CKRecordZone.ID(zoneName: "Notes")
    private func id(_ name: String) -> CKRecord.ID { CKRecord.ID(recordName: name, zoneID: notes) }

    /// A device of `account` that has synced once: signed in, subscription made.
    private func syncedDevice(_ account: String = "john") async throws -> (container: CKContainer, delegate: RecordingNotesDelegate, engine: CKSyncEngine) {
        let device = notesDevice(account)
        device.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: notes))])
        try await device.engine.sendChanges()
        device.delegate.clearEvents()
        return device
    }

    private func assertThrows(_ code: CKError.Code, _ body: () async throws -> Void, _ message: String = "", line: UInt = #line) async {
        do {
            try await body()
            XCTFail("expected \(code.title) \(message)", line: line)
        } catch let error as CKError {
            XCTAssertEqual(error.code, code, "\(error) \(message)", line: line)
        } catch {
            XCTFail("expected a CKError, got \(error)", line: line)
        }
    }

    // MARK: Sign-in

    func testAFreshEngineReportsTheSignInBeforeAnythingElseOfItsFirstSend() async throws {
        let a = notesDevice()
        let user = try await a.container.userRecordID()

        try await a.engine.sendChanges()

        XCTAssertEqual(a.delegate.events.first?.accountChangeType, .signIn(currentUser: user))
        XCTAssertEqual(a.delegate.events.compactMap(\.accountChangeType).count, 1)
    }

    func testAFreshEngineReportsTheSignInBeforeItsFirstFetchAndKeepsWhatWasPending() async throws {
        try await seedNotes(zones: ["Notes"], notesPerZone: 2)
        let b = notesDevice()
        let user = try await b.container.userRecordID()
        b.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("mine"))])

        try await b.engine.fetchChanges()

        XCTAssertEqual(b.delegate.names.first, "accountChange(signIn)")
        XCTAssertEqual(b.delegate.events.compactMap(\.accountChangeType), [.signIn(currentUser: user)])
        XCTAssertEqual(b.delegate.names.dropFirst().first, "willFetchChanges")
        XCTAssertEqual(b.delegate.fetchedRecordIDs.count, 2)
        XCTAssertEqual(b.engine.state.pendingRecordZoneChanges, [.saveRecord(id("mine"))], "a sign-in does not reset the state")

        b.delegate.clearEvents()
        try await b.engine.fetchChanges()
        XCTAssertNil(b.delegate.events.compactMap(\.accountChangeType).first, "only once")
    }

    func testAnEngineRestoredForTheSameUserReportsNoAccountChange() async throws {
        let a = try await syncedDevice()
        try await a.engine.fetchChanges()
        let saved = try XCTUnwrap(a.delegate.lastSerialization)

        let relaunched = notesDevice(serialization: saved)
        relaunched.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("n"))])
        try await relaunched.engine.fetchChanges()
        try await relaunched.engine.sendChanges()

        XCTAssertEqual(relaunched.delegate.events.compactMap(\.accountChangeType), [])
        XCTAssertEqual(relaunched.delegate.names.first, "willFetchChanges")
        XCTAssertTrue(relaunched.engine.state.pendingRecordZoneChanges.isEmpty)
    }

    // MARK: Sign-out and sign-in again

    func testASignOutIsReportedResetsTheStateAndLeavesTheEngineDormant() async throws {
        let a = try await syncedDevice()
        let john = try await a.container.userRecordID()
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("unsent"))])
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneName: "Later"))])

        server.signOut(a.container)
        await assertThrows(.notAuthenticated) { try await a.engine.sendChanges() }

        XCTAssertEqual(a.delegate.names, ["accountChange(signOut)"])
        XCTAssertEqual(a.delegate.events.compactMap(\.accountChangeType), [.signOut(previousUser: john)])
        XCTAssertTrue(a.engine.state.pendingRecordZoneChanges.isEmpty, "the state was reset")
        XCTAssertTrue(a.engine.state.pendingDatabaseChanges.isEmpty)
        let saved = try XCTUnwrap(a.delegate.lastSerialization)
        XCTAssertTrue(restoredPending(saved).isEmpty, "the reset was persisted by a stateUpdate")

        a.delegate.clearEvents()
        let requestsBefore = server.requestCount
        await assertThrows(.notAuthenticated) { try await a.engine.fetchChanges() }
        await assertThrows(.notAuthenticated) { try await a.engine.sendChanges() }
        XCTAssertEqual(a.delegate.names, [], "dormant: the sign-out is reported once")
        XCTAssertEqual(server.requestCount, requestsBefore, "a dormant engine sends no request")
    }

    func testSigningInAfterASignOutReportsASignInOfTheNewUser() async throws {
        let a = try await syncedDevice()
        try await seedNotes("john", zones: ["Notes"], notesPerZone: 3)
        server.signOut(a.container)
        await assertThrows(.notAuthenticated) { try await a.engine.fetchChanges() }
        a.delegate.clearEvents()

        server.signIn(a.container, as: "mary")
        let mary = try await a.container.userRecordID()
        try await seedNotes("mary", zones: ["Diary"], notesPerZone: 1, prefix: "m")
        try await a.engine.fetchChanges()

        XCTAssertEqual(a.delegate.events.first?.accountChangeType, .signIn(currentUser: mary), "the previous user is gone with the sign-out")
        XCTAssertEqual(a.delegate.fetchedRecordIDs, [CKRecord.ID(recordName: "m0000", zoneID: CKRecordZone.ID(zoneName: "Diary"))], "mary's data only, from the start")
    }

    func testAStateOfAnotherUserIsReportedAsASwitchAndReset() async throws {
        let john = try await syncedDevice("john")
        let johnID = try await john.container.userRecordID()
        try await john.engine.fetchChanges()
        let johnsState = try XCTUnwrap(john.delegate.lastSerialization)
        try await seedNotes("mary", zones: ["Diary"], notesPerZone: 2, prefix: "m")

        // The device was signed in to mary while the app was not running.
        let device = notesDevice("mary", serialization: johnsState)
        let maryID = try await device.container.userRecordID()
        device.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("johns"))])
        try await device.engine.fetchChanges()

        XCTAssertEqual(device.delegate.names.first, "accountChange(switchAccounts)")
        XCTAssertEqual(device.delegate.events.compactMap(\.accountChangeType), [.switchAccounts(previousUser: johnID, currentUser: maryID)])
        XCTAssertTrue(device.engine.state.pendingRecordZoneChanges.isEmpty, "john's pending changes are gone")
        XCTAssertEqual(Set(device.delegate.fetchedRecordIDs.map(\.recordName)), ["m0000", "m0001"], "mary's data, fetched from the start")
        XCTAssertNotEqual(johnID, maryID)
    }

    func testALiveEngineNoticesAnAccountSwitchedWithoutASignOut() async throws {
        let a = try await syncedDevice("john")
        let johnID = try await a.container.userRecordID()
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("johns"))])

        server.signIn(a.container, as: "mary")
        let maryID = try await a.container.userRecordID()
        try await a.engine.fetchChanges()

        XCTAssertEqual(a.delegate.events.compactMap(\.accountChangeType), [.switchAccounts(previousUser: johnID, currentUser: maryID)])
        XCTAssertTrue(a.engine.state.pendingRecordZoneChanges.isEmpty, "john's change is not sent to mary's database")
    }

    // MARK: No usable account

    func testATemporarilyUnavailableAccountThrowsWithoutAnEventAndKeepsTheState() async throws {
        let a = try await syncedDevice()
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("n"))])
        server.setAccountStatus(.temporarilyUnavailable, for: a.container)

        await assertThrows(.accountTemporarilyUnavailable) { try await a.engine.sendChanges() }
        await assertThrows(.accountTemporarilyUnavailable) { try await a.engine.fetchChanges() }

        XCTAssertEqual(a.delegate.names, [])
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges, [.saveRecord(id("n"))])

        server.setAccountStatus(.available, for: a.container)
        try await a.engine.sendChanges()
        XCTAssertEqual(a.delegate.names, ["willSendChanges", "sentRecordZoneChanges", "didSendChanges"], "the same user: no account change")
        XCTAssertTrue(a.engine.state.pendingRecordZoneChanges.isEmpty)
    }

    func testAFreshEngineWithoutAnAccountIsDormantAndSaysSo() async throws {
        let container = server.container(identifier: identifier, account: nil)
        let delegate = RecordingNotesDelegate()
        var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: nil, delegate: delegate)
        configuration.automaticallySync = false
        let engine = CKSyncEngine(configuration)
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("n"))])

        do {
            try await engine.sendChanges()
            XCTFail("no account")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .notAuthenticated)
            XCTAssertTrue(error.localizedDescription.contains("dormant"), error.localizedDescription)
        }
        XCTAssertEqual(delegate.names, [])
        XCTAssertEqual(engine.state.pendingRecordZoneChanges, [.saveRecord(id("n"))])
    }

    func testAnEngineOnThePublicDatabaseRefusesEverySyncWithAClearError() async throws {
        let container = server.container(identifier: identifier, account: "john")
        let delegate = RecordingNotesDelegate()
        var configuration = CKSyncEngine.Configuration(database: container.publicCloudDatabase, stateSerialization: nil, delegate: delegate)
        configuration.automaticallySync = false
        let engine = CKSyncEngine(configuration)
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(CKRecord.ID(recordName: "n"))])

        for name in ["fetch", "send"] {
            do {
                if name == "fetch" { try await engine.fetchChanges() } else { try await engine.sendChanges() }
                XCTFail("\(name) on the public database")
            } catch let error as CKError {
                XCTAssertEqual(error.code, .invalidArguments, name)
                XCTAssertTrue(error.localizedDescription.contains("public database"), error.localizedDescription)
            }
        }
        XCTAssertEqual(delegate.names, [])
        XCTAssertEqual(server.requestCount, 0)
    }

    // MARK: The database subscription

    func testTheEngineCreatesItsDatabaseSubscriptionOncePerUser() async throws {
        let a = try await syncedDevice()
        try await a.engine.fetchChanges()
        a.engine.state.add(pendingRecordZoneChanges: [.saveRecord(id("n"))])
        try await a.engine.sendChanges()

        let subscriptions = try await a.container.privateCloudDatabase.allSubscriptions()
        XCTAssertEqual(subscriptions.map(\.subscriptionID), ["CKSyncEngineDatabaseSubscription-Private"])
        let subscription = try XCTUnwrap(subscriptions.first as? CKDatabaseSubscription)
        XCTAssertEqual(subscription.notificationInfo?.shouldSendContentAvailable, true, "a silent push")
        XCTAssertEqual(requests(.modifySubscriptions), 1, "made once, not at every sync")

        let relaunched = notesDevice(serialization: try XCTUnwrap(a.delegate.lastSerialization))
        try await relaunched.engine.fetchChanges()
        XCTAssertEqual(requests(.modifySubscriptions), 1, "the restored state knows it was made")
    }

    func testAConfiguredSubscriptionIDReplacesTheEnginesOwn() async throws {
        let a = notesDevice(subscriptionID: "contacts-changes")
        try await a.engine.fetchChanges()
        let subscriptions = try await a.container.privateCloudDatabase.allSubscriptions()
        XCTAssertEqual(subscriptions.map(\.subscriptionID), ["contacts-changes"])
    }

    func testTheSubscriptionIsMadeAgainForTheNextUser() async throws {
        let a = try await syncedDevice("john")
        server.signOut(a.container)
        await assertThrows(.notAuthenticated) { try await a.engine.fetchChanges() }
        server.signIn(a.container, as: "mary")
        let marysDatabase = server.container(identifier: identifier, account: "mary").privateCloudDatabase
        let before = try await marysDatabase.allSubscriptions()
        XCTAssertEqual(before.count, 0)

        try await a.engine.fetchChanges()

        let after = try await marysDatabase.allSubscriptions()
        XCTAssertEqual(after.map(\.subscriptionID), ["CKSyncEngineDatabaseSubscription-Private"])
    }

    func testAnEngineOnTheSharedDatabaseNamesItsSubscriptionShared() async throws {
        let container = server.container(identifier: identifier, account: "john")
        let delegate = RecordingNotesDelegate()
        var configuration = CKSyncEngine.Configuration(database: container.sharedCloudDatabase, stateSerialization: nil, delegate: delegate)
        configuration.automaticallySync = false
        let engine = CKSyncEngine(configuration)

        try await engine.fetchChanges()

        let subscriptions = try await container.sharedCloudDatabase.allSubscriptions()
        XCTAssertEqual(subscriptions.map(\.subscriptionID), ["CKSyncEngineDatabaseSubscription-Shared"])
        XCTAssertEqual(delegate.names, ["accountChange(signIn)", "willFetchChanges", "didFetchChanges"])
    }
}
