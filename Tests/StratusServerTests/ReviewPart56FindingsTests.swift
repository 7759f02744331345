import Dispatch
import Foundation
@_spi(Testing) import Stratus
@testable import StratusServer
import XCTest

/// Defects a review of parts 5 and 6 found, each pinned where it occurs.
final class ReviewPart56FindingsTests: ServerTestCase {
    private let trips = WireZoneID(zoneName: "Trips")

    private func note(_ name: String, zone: WireZoneID, text: String = "text") -> WireRecordSave {
        WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: name, zoneID: zone), recordType: "Note", fields: ["text": .string(text)]))
    }

    /// A request already writing to a zone when the zone is deleted commits before the
    /// deletion is logged: database changes still report the zone as deleted.
    func testAZoneDeletedWhileARequestWritesToItIsStillReportedDeleted() async throws {
        let database = device("john").privateCloudDatabase
        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(database), saves: [WireZone(zoneID: trips)]))
        let before = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(database)))
        let store = server.containerStore(identifier).database(.private, account: "john")
        let zone = try XCTUnwrap(store.zone(trips))
        let assets = server.assets

        zone.acquire()                                   // as a modify request holds it
        let removed = expectation(description: "zone removed")
        DispatchQueue.global().async {
            _ = store.removeZone(WireZoneID(zoneName: "Trips"), assets: assets)
            removed.fulfill()
        }
        // Give the removal every chance to run ahead while the zone is held (bounded, no sleep).
        for _ in 0..<20_000 where store.zone(trips) != nil { await Task.yield() }
        var transaction = ZoneTransaction(store: zone)
        transaction.set(StoredRecord(record: WireRecord(recordID: WireRecordID(recordName: "late", zoneID: trips), recordType: "Note", changeTag: "late-tag"), assetBytes: 0), named: "late")
        transaction.commit(in: store, assets: assets)
        zone.release()
        await fulfillment(of: [removed], timeout: 10)

        let after = try await server.databaseChanges(WireDatabaseChangesRequest(context: rawContext(database), sinceToken: before.token))
        XCTAssertEqual(after.deleted.map(\.zoneID), [trips], "the deletion was overwritten by a late change")
        XCTAssertEqual(after.changedZoneIDs, [])
    }

    /// The same record named with the caller's user record name as zone owner and with
    /// `__defaultOwner__` is one record: appearing twice fails both items.
    func testTheSameRecordUnderTwoSpellingsOfItsZoneOwnerIsADuplicate() async throws {
        let database = device("john").privateCloudDatabase
        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(database), saves: [WireZone(zoneID: trips)]))
        let aliased = WireZoneID(zoneName: "Trips", ownerName: server.userRecordName(account: "john", containerIdentifier: identifier))
        let response = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database),
            saves: [note("r", zone: trips, text: "one"), note("r", zone: aliased, text: "two")],
            savePolicy: .allKeys,
            isAtomic: false
        ))
        for result in response.saveResults {
            guard case .failure(let error) = result.result else { return XCTFail("a record saved twice in one request was applied") }
            XCTAssertEqual(error.code, .invalidArguments)
        }
        XCTAssertEqual(response.saveResults.map(\.id), [WireRecordID(recordName: "r", zoneID: trips), WireRecordID(recordName: "r", zoneID: aliased)], "results keep the IDs as the request named them")
    }

    /// Repeating `clientChangeTokenData` in the public database never answers with a record
    /// the caller may not read: there, every request is applied under the security roles.
    func testARepeatedClientChangeTokenNeverRevealsAnUnreadableRecord() async throws {
        server.setPermissions(RecordPermissions(world: [], authenticated: [.create], creator: [.read, .write]), forRecordType: "Secret", containerIdentifier: identifier)
        let alice = device("alice").publicCloudDatabase
        let mallory = device("mallory").publicCloudDatabase
        let secret = WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: "diary"), recordType: "Secret", fields: ["text": .string("my secret")]))
        _ = try await server.modifyRecords(WireRecordsModifyRequest(context: rawContext(alice), saves: [secret]))
        let mine = WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: "mine"), recordType: "Secret", fields: ["text": .string("mine")]))
        _ = try await server.modifyRecords(WireRecordsModifyRequest(context: rawContext(mallory), saves: [mine], clientChangeTokenData: Data([7])))
        let probe = WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: "diary"), recordType: "Secret"))
        let answer = try await server.modifyRecords(WireRecordsModifyRequest(context: rawContext(mallory), saves: [probe], savePolicy: .allKeys, clientChangeTokenData: Data([7])))
        switch answer.saveResults.first?.result {
        case .success(let record)?:
            XCTAssertNotEqual(record.fields["text"], .string("my secret"), "the repeat answer leaked another user's record")
        case .failure(let error)?:
            XCTAssertEqual(error.code, .permissionFailure)
        case nil:
            XCTFail("no result")
        }
    }
}
