import Stratus
import XCTest
import _StratusTestSupport

/// A request runs under the account its device was signed in to when the request was made,
/// whatever happens to the device while the request is on its way.
final class SessionTests: ServerTestCase {
    private func note(_ name: String) -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name))
        record["text"] = name
        return record
    }

    /// Waits until the server has logged `count` requests: they are on their way.
    private func waitForRequests(_ count: Int) async {
        while server.requestLog.count < count { await Task.yield() }
    }

    func testASaveDelayedAcrossAnAccountSwitchLandsInTheAccountThatMadeIt() async throws {
        let phone = device("john")
        server.delayNextRequests(1, by: 5)
        let record = note("johns-note")
        let save = Task { try await phone.privateCloudDatabase.save(record) }
        await waitForRequests(1)
        server.signIn(phone, as: "alice")
        clock.advance(by: 5)
        _ = try await save.value

        let johnsLaptop = device("john")
        let alicesLaptop = device("alice")
        _ = try await johnsLaptop.privateCloudDatabase.record(for: CKRecord.ID(recordName: "johns-note"))
        await assertThrowsCKError(.unknownItem) {
            try await alicesLaptop.privateCloudDatabase.record(for: CKRecord.ID(recordName: "johns-note"))
        }
    }

    func testAFetchDelayedAcrossAnAccountSwitchReadsTheAccountThatMadeIt() async throws {
        let phone = device("john")
        _ = try await phone.privateCloudDatabase.save(note("shared-name"))
        _ = try await device("alice").privateCloudDatabase.save({ let r = note("shared-name"); r["text"] = "alice's"; return r }())
        server.delayNextRequests(1, by: 5)
        let fetch = Task { try await phone.privateCloudDatabase.record(for: CKRecord.ID(recordName: "shared-name")) }
        await waitForRequests(3)
        server.signIn(phone, as: "alice")
        clock.advance(by: 5)
        let fetched = try await fetch.value
        XCTAssertEqual(fetched["text"] as? String, "shared-name", "the fetch returned another account's record")
        // After the switch the device reads Alice's data.
        let now = try await phone.privateCloudDatabase.record(for: CKRecord.ID(recordName: "shared-name"))
        XCTAssertEqual(now["text"] as? String, "alice's")
    }

    func testASessionTheDeviceNoLongerHasIsRefusedAtTheService() async throws {
        let phone = device("john")
        let database = phone.privateCloudDatabase
        let oldContext = rawContext(database)
        server.signIn(phone, as: "alice")
        let save = WireRecordsModifyRequest(context: oldContext, saves: [WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: "late"), recordType: "Note"))])
        do {
            _ = try await server.modifyRecords(save)
            XCTFail("a request for the old session was applied")
        } catch {
            XCTAssertEqual(error.code, .notAuthenticated)
        }
        // Nothing landed in either account.
        await assertThrowsCKError(.unknownItem) { try await device("john").privateCloudDatabase.record(for: CKRecord.ID(recordName: "late")) }
        await assertThrowsCKError(.unknownItem) { try await device("alice").privateCloudDatabase.record(for: CKRecord.ID(recordName: "late")) }
    }

    func testAForgedSessionIsRefusedAndNoSessionIsAnonymous() async throws {
        let phone = device("john")
        var forged = rawContext(phone.privateCloudDatabase)
        forged.sessionToken = "not-a-session"
        do {
            _ = try await server.listZones(forged)
            XCTFail("a forged session was accepted")
        } catch {
            XCTAssertEqual(error.code, .notAuthenticated)
        }
        var anonymous = rawContext(phone.privateCloudDatabase)
        anonymous.sessionToken = nil
        do {
            _ = try await server.listZones(anonymous)
            XCTFail("a request without a session read a private database")
        } catch {
            XCTAssertEqual(error.code, .notAuthenticated)
        }
        anonymous.database = .public
        let zones = try await server.listZones(anonymous)
        XCTAssertEqual(zones.zones.map(\.zoneID), [.defaultZone], "the public database is readable without an account")
    }

    func testASessionOfOneContainerIsRefusedByAnother() async throws {
        let phone = device("john")
        var other = rawContext(phone.privateCloudDatabase)
        other.containerIdentifier = "iCloud.com.example.other"
        do {
            _ = try await server.listZones(other)
            XCTFail("a session of one container opened another")
        } catch {
            XCTAssertEqual(error.code, .badContainer)
        }
    }

    func testRequestsMadeAfterASwitchUseTheNewAccountOnEveryContainerObjectOfTheDevice() async throws {
        let phone = device("john")
        let sameDevice = CKContainer(identifier: identifier, service: server, device: phone.device)
        server.signIn(phone, as: "alice")
        _ = try await sameDevice.privateCloudDatabase.save(note("after-switch"))
        _ = try await device("alice").privateCloudDatabase.record(for: CKRecord.ID(recordName: "after-switch"))
    }

    /// Devices switch accounts at random while their saves are delayed: every save lands in
    /// the account that made it, never in the one the device switched to.
    func testRandomAccountSwitchesDuringDelayedSavesNeverMoveAWrite() async throws {
        var generator = SeededGenerator(seed: 5)
        let accounts = ["john", "alice", "bob"]
        let phone = device("john")
        var expected: [String: String] = [:]   // record name -> account that saved it
        var current = "john"
        for round in 0..<(20 * stressScale) {
            let name = "note-\(round)"
            server.delayNextRequests(1, by: 1)
            let record = note(name)
            let save = Task { try await phone.privateCloudDatabase.save(record) }
            await waitForRequests(round + 1)
            expected[name] = current
            if Bool.random(using: &generator) {
                current = accounts[Int.random(in: 0..<accounts.count, using: &generator)]
                server.signIn(phone, as: current)
            }
            clock.advance(by: 1)
            _ = try await save.value
        }
        for account in accounts {
            let names = try await device(account).privateCloudDatabase.records(
                matching: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)), resultsLimit: 1_000
            ).matchResults.map(\.0.recordName)
            XCTAssertEqual(Set(names), Set(expected.filter { $0.value == account }.keys), "account \(account)")
        }
    }
}
