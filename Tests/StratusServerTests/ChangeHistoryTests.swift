import Foundation
import Stratus
import XCTest

/// The change history the server keeps and hands out with change tokens, through the
/// `CloudService` directly.
final class ChangeHistoryTests: ServerTestCase {
    private let trips = WireZoneID(zoneName: "Trips")

    private func note(_ name: String, _ text: String = "text", zone: WireZoneID? = nil) -> WireRecordSave {
        WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: name, zoneID: zone ?? trips), recordType: "Note", fields: ["text": .string(text)]))
    }

    private func setUpZone(_ database: CKDatabase) async throws {
        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(database), saves: [WireZone(zoneID: trips)]))
    }

    private func modify(_ database: CKDatabase, saves: [WireRecordSave] = [], deletes: [String] = [], policy: WireSavePolicy = .allKeys, token: Data? = nil) async throws {
        _ = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database), saves: saves, deletes: deletes.map { WireRecordID(recordName: $0, zoneID: trips) },
            savePolicy: policy, isAtomic: false, clientChangeTokenData: token
        ))
    }

    private func changes(_ database: CKDatabase, zone: WireZoneID? = nil, since token: [UInt8]? = nil, limit: Int = 0) async throws(WireError) -> WireRecordChangesResponse {
        try await server.recordChanges(WireRecordChangesRequest(context: rawContext(database), zoneID: zone ?? trips, sinceToken: token, resultsLimit: limit))
    }

    private func assertFails(_ code: CKErrorCode, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws(WireError) -> Void) async {
        do {
            try await body()
            XCTFail("expected \(code)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        }
    }

    func testEachChangedRecordComesOnceInItsLatestVersionAndDeletionsAsTombstones() async throws {
        let database = device("john").privateCloudDatabase
        try await setUpZone(database)
        try await modify(database, saves: [note("a", "one"), note("b"), note("c")], token: Data([1]))
        try await modify(database, saves: [note("a", "two")], deletes: ["b"], token: Data([2]))
        let all = try await changes(database)
        XCTAssertEqual(all.changed.map(\.recordID.recordName), ["c", "a"])
        XCTAssertEqual(all.changed.last?.fields["text"], .string("two"))
        XCTAssertEqual(all.deleted, [WireRecordDeletion(recordID: WireRecordID(recordName: "b", zoneID: trips), recordType: "Note")])
        XCTAssertFalse(all.moreComing)
        XCTAssertEqual(all.clientChangeTokenData, Data([2]))

        try await modify(database, saves: [note("d")])
        try await modify(database, deletes: ["d"])
        try await modify(database, saves: [note("c", "three")])
        let later = try await changes(database, since: all.token)
        XCTAssertEqual(later.changed.map(\.recordID.recordName), ["c"])
        XCTAssertEqual(later.deleted.map(\.recordID.recordName), ["d"], "created and deleted in between: a tombstone at most")
        let none = try await changes(database, since: later.token)
        XCTAssertTrue(none.changed.isEmpty && none.deleted.isEmpty)
    }

    func testSmallBatchesResumeFromEachBatchsToken() async throws {
        let database = device("john").privateCloudDatabase
        try await setUpZone(database)
        try await modify(database, saves: (0..<7).map { note("n\($0)") })
        var token: [UInt8]?
        var names: [String] = []
        var batches = 0
        repeat {
            let batch = try await changes(database, since: token, limit: 3)
            names += batch.changed.map(\.recordID.recordName)
            token = batch.token
            batches += 1
            if !batch.moreComing { break }
        } while batches < 10
        XCTAssertEqual(batches, 3)
        XCTAssertEqual(names, (0..<7).map { "n\($0)" })
    }

    func testCascadesAreTombstonesToo() async throws {
        let database = device("john").privateCloudDatabase
        try await setUpZone(database)
        var child = note("child")
        child.record.fields["owner"] = .reference(WireReference(recordID: WireRecordID(recordName: "parent", zoneID: trips), action: .deleteSelf))
        try await modify(database, saves: [note("parent"), child])
        let before = try await changes(database)
        try await modify(database, deletes: ["parent"])
        let after = try await changes(database, since: before.token)
        XCTAssertEqual(Set(after.deleted.map(\.recordID.recordName)), ["parent", "child"])
    }

    func testWhereChangesCannotBeFetched() async throws {
        let john = device("john")
        await assertFails(.badDatabase) { () throws(WireError) in _ = try await self.changes(john.publicCloudDatabase, zone: .defaultZone) }
        await assertFails(.invalidArguments) { () throws(WireError) in _ = try await self.changes(john.privateCloudDatabase, zone: .defaultZone) }
        await assertFails(.zoneNotFound) { () throws(WireError) in _ = try await self.changes(john.privateCloudDatabase, zone: WireZoneID(zoneName: "Nowhere")) }
        await assertFails(.badDatabase) { () throws(WireError) in
            _ = try await self.server.databaseChanges(WireDatabaseChangesRequest(context: self.rawContext(john.publicCloudDatabase)))
        }
    }

    func testATokenFromElsewhereOrAlteredIsRefused() async throws {
        let john = device("john").privateCloudDatabase
        let alice = device("alice").privateCloudDatabase
        try await setUpZone(john)
        try await setUpZone(alice)
        let other = WireZoneID(zoneName: "Other")
        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(john), saves: [WireZone(zoneID: other)]))
        let token = try await changes(john).token
        await assertFails(.invalidArguments) { () throws(WireError) in _ = try await self.changes(alice, since: token) }
        await assertFails(.invalidArguments) { () throws(WireError) in _ = try await self.changes(john, zone: other, since: token) }
        for index in token.indices {
            var flipped = token
            flipped[index] ^= 0x01
            await assertFails(.invalidArguments) { () throws(WireError) in _ = try await self.changes(john, since: flipped) }
        }
        let databaseToken = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(john))).token
        await assertFails(.invalidArguments) { () throws(WireError) in _ = try await self.changes(john, since: databaseToken) }
        await assertFails(.invalidArguments) { () throws(WireError) in
            _ = try await self.server.databaseChanges(WireDatabaseChangesRequest(context: self.rawContext(john), sinceToken: token))
        }
        let otherServer = CloudServer(clock: clock)
        let stranger = otherServer.container(identifier: identifier, account: "john").privateCloudDatabase
        _ = try await otherServer.modifyZones(WireZonesModifyRequest(context: rawContext(stranger), saves: [WireZone(zoneID: trips)]))
        do {
            _ = try await otherServer.recordChanges(WireRecordChangesRequest(context: rawContext(stranger), zoneID: trips, sinceToken: token))
            XCTFail("another server's token was accepted")
        } catch {
            XCTAssertEqual(error.code, .invalidArguments)
        }
    }

    func testATokenOlderThanTheKeptHistoryExpiresAndNilRecovers() async throws {
        let database = device("john").privateCloudDatabase
        try await setUpZone(database)
        server.changeHistoryLimit = 4
        try await modify(database, saves: [note("kept")])
        let old = try await changes(database).token
        for round in 0..<30 {
            try await modify(database, saves: [note("gone-\(round)")])
            try await modify(database, deletes: ["gone-\(round)"])
        }
        await assertFails(.changeTokenExpired) { () throws(WireError) in _ = try await self.changes(database, since: old) }
        let recovered = try await changes(database)
        XCTAssertEqual(recovered.changed.map(\.recordID.recordName), ["kept"])
        XCTAssertLessThanOrEqual(recovered.deleted.count, 4 + 16)
        XCTAssertGreaterThanOrEqual(recovered.deleted.count, 4)
    }

    func testAZoneDeletedAndCreatedAgainExpiresItsTokens() async throws {
        let database = device("john").privateCloudDatabase
        try await setUpZone(database)
        try await modify(database, saves: [note("a")])
        let token = try await changes(database).token
        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(database), deletes: [trips]))
        await assertFails(.zoneNotFound) { () throws(WireError) in _ = try await self.changes(database, since: token) }
        try await setUpZone(database)
        await assertFails(.changeTokenExpired) { () throws(WireError) in _ = try await self.changes(database, since: token) }
        let fresh = try await changes(database)
        XCTAssertTrue(fresh.changed.isEmpty && fresh.deleted.isEmpty)
    }

    func testDatabaseChangesReportZonesCreatedChangedAndDeletedButNeverTheDefaultZone() async throws {
        let database = device("john").privateCloudDatabase
        try await setUpZone(database)
        let first = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(database)))
        XCTAssertEqual(first.changedZoneIDs, [trips])
        XCTAssertTrue(first.deleted.isEmpty)
        _ = try await server.modifyRecords(WireRecordsModifyRequest(context: rawContext(database), saves: [note("in-default", zone: .defaultZone)]))
        let quiet = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(database), sinceToken: first.token))
        XCTAssertTrue(quiet.changedZoneIDs.isEmpty, "the default zone is never reported")
        try await modify(database, saves: [note("a")])
        let changed = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(database), sinceToken: quiet.token))
        XCTAssertEqual(changed.changedZoneIDs, [trips])
        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(database), deletes: [trips]))
        let deleted = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(database), sinceToken: changed.token))
        XCTAssertEqual(deleted.deleted, [WireZoneDeletion(zoneID: trips, reason: .deleted)])
        XCTAssertTrue(deleted.changedZoneIDs.isEmpty)
    }
}
