import Stratus
import XCTest

/// The server tells zones apart by the bytes of their names, as CloudKit's does: two
/// canonically equivalent spellings are two zones.
final class ExactNameServerTests: ServerTestCase {
    private let precomposed = "Zon\u{E9}"
    private let decomposed = "Zone\u{301}"

    func testCanonicallyEquivalentZoneNamesAreTwoZones() async throws {
        let database = device("john").privateCloudDatabase
        let response = try await server.modifyZones(WireZonesModifyRequest(
            context: rawContext(database),
            saves: [WireZone(zoneID: WireZoneID(zoneName: precomposed)), WireZone(zoneID: WireZoneID(zoneName: decomposed))]
        ))
        XCTAssertEqual(response.saveResults.compactMap { try? $0.result.get().zoneID.zoneName }.map { Array($0.utf8) },
                       [Array(precomposed.utf8), Array(decomposed.utf8)])

        let listed = try await server.listZones(rawContext(database)).zones.map(\.zoneID)
        XCTAssertTrue(listed.contains(WireZoneID(zoneName: precomposed)))
        XCTAssertTrue(listed.contains(WireZoneID(zoneName: decomposed)))

        // Deleting one spelling leaves the other.
        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(database), deletes: [WireZoneID(zoneName: decomposed)]))
        let lookup = try await server.lookupZones(WireZonesLookupRequest(
            context: rawContext(database),
            ids: [WireZoneID(zoneName: precomposed), WireZoneID(zoneName: decomposed)]
        ))
        XCTAssertNotNil(try? lookup.results[0].result.get())
        XCTAssertEqual(lookup.results[1].result.failureCode, .zoneNotFound)

        // Through the client: the zone IDs are different keys.
        let zones = try await database.allRecordZones().map(\.zoneID)
        XCTAssertEqual(Set(zones).count, zones.count)
        XCTAssertTrue(zones.contains(CKRecordZone.ID(zoneName: precomposed)))
        XCTAssertFalse(zones.contains(CKRecordZone.ID(zoneName: decomposed)))
    }
}

private extension Result {
    var failureCode: CKErrorCode? {
        guard case .failure(let error) = self else { return nil }
        return (error as? WireError)?.code
    }
}
