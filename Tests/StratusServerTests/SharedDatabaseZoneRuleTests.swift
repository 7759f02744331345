import Foundation
@_spi(Testing) import Stratus
import XCTest

/// Only shared zones can be reached through the shared database: a default zone (never
/// shared) or one of the caller's own zones is `invalidArguments` for every request that names
/// it, as iCloud answers, while an owner's zone the caller does not see stays `zoneNotFound`,
/// the same as a zone that does not exist.
final class SharedDatabaseZoneRuleTests: ShareTestCase {
    private var mary: CKDatabase!
    private var marysName = ""

    override func setUp() {
        super.setUp()
        mary = device("mary").sharedCloudDatabase
        marysName = server.userRecordName(account: "mary", containerIdentifier: identifier)
    }

    override func tearDown() {
        mary = nil
        super.tearDown()
    }

    /// The zones no shared database ever holds: default zones, whoever is named as owner, and
    /// mary's own custom zone, named both ways.
    private func neverShared() async throws -> [WireZoneID] {
        try await makeZone(WireZoneID(zoneName: "Diary"), in: device("mary").privateCloudDatabase)
        let johnsName = server.userRecordName(account: "john", containerIdentifier: identifier)
        return [
            WireZoneID(zoneName: WireZoneID.defaultZoneName),
            WireZoneID(zoneName: WireZoneID.defaultZoneName, ownerName: marysName),
            WireZoneID(zoneName: WireZoneID.defaultZoneName, ownerName: johnsName),
            WireZoneID(zoneName: "Diary"),
            WireZoneID(zoneName: "Diary", ownerName: marysName),
        ]
    }

    private func assertOnlySharedZones(_ error: WireError?, _ what: String, line: UInt = #line) {
        XCTAssertEqual(error?.code, .invalidArguments, what, line: line)
        XCTAssertTrue(error?.message.contains("only shared zones") ?? false, "\(what): \(String(describing: error))", line: line)
    }

    private func failure<T>(_ result: Result<T, WireError>?) -> WireError? {
        guard case .failure(let error)? = result else { return nil }
        return error
    }

    func testSavesAndDeletesIntoADefaultOrOwnZoneAreInvalidArguments() async throws {
        server.isRecordingWrites = true
        for zoneID in try await neverShared() {
            let response = try await modify([item("note", zone: zoneID)], deleting: ["old"], zone: zoneID, in: mary)
            assertOnlySharedZones(failure(response.saveResults.first?.result), "save into \(zoneID)")
            assertOnlySharedZones(failure(response.deleteResults.first?.result), "delete from \(zoneID)")
        }
        XCTAssertTrue(server.recordedWrites.isEmpty)
    }

    func testFetchesQueriesAndChangeFetchesOfADefaultOrOwnZoneAreInvalidArguments() async throws {
        try await makeZone()
        try await modify([item("party")])
        let context = rawContext(mary)
        for zoneID in try await neverShared() {
            let lookup = try await server.lookupRecords(WireRecordsLookupRequest(context: context, recordIDs: [WireRecordID(recordName: "party", zoneID: zoneID)]))
            assertOnlySharedZones(failure(lookup.results.first?.result), "fetch from \(zoneID)")
            let zones = try await server.lookupZones(WireZonesLookupRequest(context: context, ids: [zoneID]))
            assertOnlySharedZones(failure(zones.results.first?.result), "zone lookup of \(zoneID)")
            do {
                _ = try await server.queryRecords(WireQueryRequest(context: context, query: WireQuery(recordType: "Item", predicate: .constant(true)), zoneID: zoneID))
                XCTFail("query of \(zoneID) succeeded")
            } catch {
                assertOnlySharedZones(error, "query of \(zoneID)")
            }
            do {
                _ = try await server.recordChanges(WireRecordChangesRequest(context: context, zoneID: zoneID))
                XCTFail("change fetch of \(zoneID) succeeded")
            } catch {
                assertOnlySharedZones(error, "change fetch of \(zoneID)")
            }
        }
    }

    func testAnotherOwnersZoneNotSharedWithTheCallerStaysZoneNotFoundLikeAMadeUpOne() async throws {
        try await makeZone()
        try await modify([item("party")])
        let johnsName = server.userRecordName(account: "john", containerIdentifier: identifier)
        let context = rawContext(mary)
        for zoneID in [WireZoneID(zoneName: party.zoneName, ownerName: johnsName), WireZoneID(zoneName: "Nowhere", ownerName: johnsName)] {
            let response = try await modify([item("party", zone: zoneID)], in: mary)
            XCTAssertEqual(failure(response.saveResults.first?.result)?.code, .zoneNotFound, "\(zoneID)")
            let lookup = try await server.lookupRecords(WireRecordsLookupRequest(context: context, recordIDs: [WireRecordID(recordName: "party", zoneID: zoneID)]))
            XCTAssertEqual(failure(lookup.results.first?.result)?.code, .zoneNotFound, "\(zoneID)")
        }
    }

    /// A change fetch from a token that is not one of the server's, for an owner's zone the
    /// caller does not see, is `invalidArguments` whether the zone exists or not: the token is
    /// checked before the zone is looked for, so its answer tells nothing of the zone.
    func testAChangeFetchWithAForgedTokenSaysTheSameWhetherAnotherOwnersZoneExists() async throws {
        try await makeZone()
        try await modify([item("party")])
        let johnsName = server.userRecordName(account: "john", containerIdentifier: identifier)
        let context = rawContext(mary)
        for zoneID in [WireZoneID(zoneName: party.zoneName, ownerName: johnsName), WireZoneID(zoneName: "Nowhere", ownerName: johnsName)] {
            do {
                _ = try await server.recordChanges(WireRecordChangesRequest(context: context, zoneID: zoneID, sinceToken: Array(repeating: 7, count: 48)))
                XCTFail("a forged token fetched the changes of \(zoneID)")
            } catch {
                XCTAssertEqual(error.code, .invalidArguments, "\(zoneID): \(error)")
            }
            do {
                _ = try await server.recordChanges(WireRecordChangesRequest(context: context, zoneID: zoneID))
                XCTFail("a fetch from nil read \(zoneID)")
            } catch {
                XCTAssertEqual(error.code, .zoneNotFound, "\(zoneID): \(error)")
            }
        }
    }
}
