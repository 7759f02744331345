import Foundation
@testable import StratusWire
import XCTest

/// The JSON of `zones/list`, `zones/lookup` and `zones/modify`: CloudKit Web Services' `zones`
/// and `operations` (`create`, `delete`), per-zone results with the requested `zoneID`, saves
/// and deletes rebuilt from one array; anything else is `invalidArguments` naming the key.
final class ZoneRequestsJSONTests: XCTestCase {
    private let context = WireRequestContext(containerIdentifier: "iCloud.com.example.clowns", database: .private, deviceID: "device-7", sessionToken: "session-9")
    private let party = WireZoneID(zoneName: "Party", ownerName: "_abc")
    private let circus = WireZoneID(zoneName: "Circus", ownerName: WireZoneID.currentUserOwnerName)
    private let partyJSON = #"{"ownerRecordName":"_abc","zoneName":"Party"}"#

    private func roundTrip<Request: Codable>(_ request: Request, file: StaticString = #filePath, line: UInt = #line) throws -> Request {
        let text = try json(request)
        for part in ["iCloud.com.example.clowns", "device-7", "session-9"] {
            XCTAssertFalse(text.contains(part), "the context is not in the body: \(text)", file: file, line: line)
        }
        return try WireJSON.decode(Request.self, from: Data(text.utf8), context: context)
    }

    private func assertSameDeletes<ID: Equatable>(_ lhs: [WireItemResult<ID, Void>], _ rhs: [WireItemResult<ID, Void>], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(lhs.map(\.id), rhs.map(\.id), file: file, line: line)
        XCTAssertEqual(lhs.map { $0.result.map { true } }, rhs.map { $0.result.map { true } }, file: file, line: line)
    }

    // MARK: - zones/list

    func testAZoneListIsCloudKitWebServicesZonesAndComesBackExactly() throws {
        let response = WireZonesListResponse(zones: [
            WireZone(zoneID: .defaultZone),
            WireZone(zoneID: party, capabilities: [.fetchChanges, .atomic, .sharing, .zoneWideSharing], share: WireReference(recordID: WireRecordID(recordName: "cloudkit.zoneshare", zoneID: party), action: .none)),
        ])
        XCTAssertEqual(try json(WireZonesListResponse(zones: [WireZone(zoneID: party, capabilities: [.atomic])])), #"{"zones":[{"atomic":true,"capabilities":["ATOMIC"],"zoneID":\#(partyJSON)}]}"#)
        XCTAssertEqual(try WireJSON.decode(WireZonesListResponse.self, from: try WireJSON.encode(response)).zones, response.zones)
        XCTAssertEqual(try WireJSON.decode(WireZonesListResponse.self, from: try WireJSON.encode(WireZonesListResponse(zones: []))).zones, [])
    }

    func testAZoneListFromCloudKitWebServicesDecodesAndAnErrorInItIsInvalidArguments() throws {
        let text = #"{"zones":[{"zoneID":{"zoneName":"_defaultZone","ownerRecordName":"_d1ce","zoneType":"DEFAULT_ZONE"},"atomic":false,"syncToken":"AQAAAaBJidqD"},{"zoneID":{"zoneName":"Party","zoneType":"REGULAR_CUSTOM_ZONE"},"atomic":true}]}"#
        let response = try WireJSON.decode(WireZonesListResponse.self, from: Data(text.utf8))
        XCTAssertEqual(response.zones, [
            WireZone(zoneID: WireZoneID(zoneName: "_defaultZone", ownerName: "_d1ce")),
            WireZone(zoneID: WireZoneID(zoneName: "Party", ownerName: WireZoneID.currentUserOwnerName), capabilities: .atomic),
        ])
        let error = decodeError(WireZonesListResponse.self, #"{"zones":[{"zoneID":{"zoneName":"Party"}},{"zoneID":{"zoneName":"X"},"serverErrorCode":"ZONE_NOT_FOUND","reason":"gone"}]}"#)
        assertInvalid(error, naming: "zones[1]")
        XCTAssertTrue(error?.message.contains("ZONE_NOT_FOUND") == true, error?.message ?? "")
        assertInvalid(decodeError(WireZonesListResponse.self, #"{"zones":[{"atomic":true}]}"#), naming: "zones[0].zoneID")
        assertInvalid(decodeError(WireZonesListResponse.self, #"{"zones":[{"zoneID":{"zoneName":"P"},"capabilities":["TELEPORT"]}]}"#), naming: "zones[0].capabilities")
    }

    // MARK: - zones/lookup

    func testAZoneLookupIsCloudKitWebServicesArrayOfZoneIDs() throws {
        let request = WireZonesLookupRequest(context: context, ids: [party, .defaultZone])
        XCTAssertEqual(try json(request), #"{"zones":[\#(partyJSON),{"ownerRecordName":"__defaultOwner__","zoneName":"_defaultZone"}]}"#)
        let back = try roundTrip(request)
        XCTAssertEqual(back.context, context)
        XCTAssertEqual(back.ids, request.ids)
        XCTAssertEqual(try roundTrip(WireZonesLookupRequest(context: context, ids: [])).ids, [])
        let fromApple = try WireJSON.decode(WireZonesLookupRequest.self, from: Data(#"{"zones":[{"zoneName":"Party"},{}]}"#.utf8), context: context)
        XCTAssertEqual(fromApple.ids, [WireZoneID(zoneName: "Party", ownerName: WireZoneID.currentUserOwnerName), .defaultZone])
    }

    func testAZoneLookupResponseIsZonesOrErrorsWithTheRequestedZoneID() throws {
        let response = WireZonesLookupResponse(results: [
            WireItemResult(id: party, result: .success(WireZone(zoneID: party, capabilities: [.fetchChanges]))),
            WireItemResult(id: circus, result: .failure(WireError(.zoneNotFound, "no zone"))),
        ])
        XCTAssertEqual(try json(response), """
        {"zones":[{"atomic":false,"capabilities":["FETCH_CHANGES"],"zoneID":\(partyJSON)},\
        {"ckErrorCode":26,"reason":"no zone","serverErrorCode":"ZONE_NOT_FOUND","zoneID":{"ownerRecordName":"__defaultOwner__","zoneName":"Circus"}}]}
        """)
        let renamed = WireZone(zoneID: WireZoneID(zoneName: "Party", ownerName: WireZoneID.currentUserOwnerName), capabilities: [.atomic])
        let exact = WireZonesLookupResponse(results: response.results + [
            WireItemResult(id: party, result: .success(renamed)),
            WireItemResult(id: .defaultZone, result: .failure(WireError(.userDeletedZone, "purged"))),
        ])
        let back = try WireJSON.decode(WireZonesLookupResponse.self, from: try WireJSON.encode(exact))
        assertSameResults(back.results, exact.results)
        let fromApple = try WireJSON.decode(WireZonesLookupResponse.self, from: Data(#"{"zones":[{"zoneID":{"zoneName":"Party","ownerRecordName":"_abc"},"atomic":true},{"zoneID":{"zoneName":"Gone"},"serverErrorCode":"ZONE_NOT_FOUND","reason":"Zone does not exist"}]}"#.utf8))
        XCTAssertEqual(fromApple.results.map(\.id), [party, WireZoneID(zoneName: "Gone", ownerName: WireZoneID.currentUserOwnerName)])
        XCTAssertEqual(try fromApple.results[0].result.get(), WireZone(zoneID: party, capabilities: .atomic))
        XCTAssertEqual(fromApple.results[1].result.map { _ in true }, .failure(WireError(.zoneNotFound, "Zone does not exist")))
    }

    func testAMalformedZoneLookupIsInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireZonesLookupRequest.self, "{}", context: context), naming: "zones")
        assertInvalid(decodeError(WireZonesLookupRequest.self, #"{"zones":[{"zoneName":5}]}"#, context: context), naming: "zones[0].zoneName")
        assertInvalid(decodeError(WireZonesLookupResponse.self, #"{"zones":[{"atomic":true}]}"#), naming: "zones[0].zoneID")
        assertInvalid(decodeError(WireZonesLookupResponse.self, #"{"zones":[{"zoneID":{},"serverErrorCode":"UNHEARD_OF"}]}"#), naming: "zones[0].serverErrorCode")
        XCTAssertEqual(decodeError(WireZonesLookupRequest.self, #"{"zones":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}", context: context)?.code, .invalidArguments)
    }

    // MARK: - zones/modify

    func testAZoneModifyIsCloudKitWebServicesOperations() throws {
        let request = WireZonesModifyRequest(context: context, saves: [WireZone(zoneID: party)], deletes: [circus])
        XCTAssertEqual(try json(request), """
        {"operations":[{"operationType":"create","zone":{"atomic":false,"capabilities":[],"zoneID":\(partyJSON)}},\
        {"operationType":"delete","zone":{"zoneID":{"ownerRecordName":"__defaultOwner__","zoneName":"Circus"}}}]}
        """)
        for request in [
            request,
            WireZonesModifyRequest(context: context, saves: [WireZone(zoneID: party, capabilities: [.atomic, .sharing]), WireZone(zoneID: circus)], deletes: []),
            WireZonesModifyRequest(context: context, saves: [], deletes: [party, circus, .defaultZone]),
            WireZonesModifyRequest(context: context),
        ] {
            let back = try roundTrip(request)
            XCTAssertEqual(back.context, context)
            XCTAssertEqual(back.saves, request.saves)
            XCTAssertEqual(back.deletes, request.deletes)
        }
        let fromApple = try WireJSON.decode(WireZonesModifyRequest.self, from: Data(#"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Party"}}},{"operationType":"delete","zone":{"zoneID":{"zoneName":"Old"}}}]}"#.utf8), context: context)
        XCTAssertEqual(fromApple.saves, [WireZone(zoneID: WireZoneID(zoneName: "Party", ownerName: WireZoneID.currentUserOwnerName))])
        XCTAssertEqual(fromApple.deletes, [WireZoneID(zoneName: "Old", ownerName: WireZoneID.currentUserOwnerName)])
    }

    func testAMalformedZoneModifyIsInvalidArgumentsNamingTheKey() {
        let create = #"{"operationType":"create","zone":{"zoneID":{"zoneName":"P"}}}"#
        let delete = #"{"operationType":"delete","zone":{"zoneID":{"zoneName":"Q"}}}"#
        assertInvalid(decodeError(WireZonesModifyRequest.self, "{}", context: context), naming: "operations")
        assertInvalid(decodeError(WireZonesModifyRequest.self, #"{"operations":[{"operationType":"update","zone":{"zoneID":{}}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireZonesModifyRequest.self, #"{"operations":[{"zone":{"zoneID":{}}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireZonesModifyRequest.self, #"{"operations":[\#(delete),\#(create)]}"#, context: context), naming: "operations[1].operationType")
        assertInvalid(decodeError(WireZonesModifyRequest.self, #"{"operations":[{"operationType":"create"}]}"#, context: context), naming: "operations[0].zone")
        assertInvalid(decodeError(WireZonesModifyRequest.self, #"{"operations":[{"operationType":"delete","zone":{}}]}"#, context: context), naming: "operations[0].zone.zoneID")
        assertInvalid(decodeError(WireZonesModifyRequest.self, #"{"operations":[{"operationType":"create","zone":{"zoneID":{},"capabilities":"ATOMIC"}}]}"#, context: context), naming: "operations[0].zone.capabilities")
    }

    func testAZoneModifyResponseIsOneElementPerOperationSavesThenDeletes() throws {
        let response = WireZonesModifyResponse(
            saveResults: [
                WireItemResult(id: party, result: .success(WireZone(zoneID: party, capabilities: [.atomic]))),
                WireItemResult(id: circus, result: .failure(WireError(.quotaExceeded, "full"))),
            ],
            deleteResults: [
                WireItemResult(id: .defaultZone, result: .failure(WireError(.invalidArguments, "the default zone cannot be deleted"))),
                WireItemResult(id: circus, result: .success(())),
            ]
        )
        XCTAssertEqual(try json(response), """
        {"zones":[{"atomic":true,"capabilities":["ATOMIC"],"zoneID":\(partyJSON)},\
        {"ckErrorCode":25,"reason":"full","serverErrorCode":"QUOTA_EXCEEDED","zoneID":{"ownerRecordName":"__defaultOwner__","zoneName":"Circus"}},\
        {"ckErrorCode":12,"operationType":"delete","reason":"the default zone cannot be deleted","serverErrorCode":"BAD_REQUEST","zoneID":{"ownerRecordName":"__defaultOwner__","zoneName":"_defaultZone"}},\
        {"deleted":true,"operationType":"delete","zoneID":{"ownerRecordName":"__defaultOwner__","zoneName":"Circus"}}]}
        """)
        for response in [
            response,
            WireZonesModifyResponse(saveResults: [WireItemResult(id: party, result: .success(WireZone(zoneID: circus)))], deleteResults: [WireItemResult(id: party, result: .failure(WireError(.zoneNotFound, "no")))]),
            WireZonesModifyResponse(saveResults: [], deleteResults: [WireItemResult(id: party, result: .failure(WireError(.zoneNotFound, "no")))]),
            WireZonesModifyResponse(saveResults: [], deleteResults: []),
        ] {
            let back = try WireJSON.decode(WireZonesModifyResponse.self, from: try WireJSON.encode(response))
            assertSameResults(back.saveResults, response.saveResults)
            assertSameDeletes(back.deleteResults, response.deleteResults)
        }
    }

    func testAZoneModifyResponseFromCloudKitWebServicesDecodes() throws {
        let text = #"{"zones":[{"zoneID":{"zoneName":"Party","ownerRecordName":"_abc","zoneType":"REGULAR_CUSTOM_ZONE"},"atomic":true},{"zoneID":{"zoneName":"Old"},"deleted":true}]}"#
        let response = try WireJSON.decode(WireZonesModifyResponse.self, from: Data(text.utf8))
        XCTAssertEqual(response.saveResults.map(\.id), [party])
        XCTAssertEqual(try response.saveResults[0].result.get(), WireZone(zoneID: party, capabilities: .atomic))
        XCTAssertEqual(response.deleteResults.map(\.id), [WireZoneID(zoneName: "Old", ownerName: WireZoneID.currentUserOwnerName)])
        assertInvalid(decodeError(WireZonesModifyResponse.self, #"{"zones":[{"zoneID":{},"deleted":true},{"zoneID":{},"atomic":true}]}"#), naming: "zones[1]")
        assertInvalid(decodeError(WireZonesModifyResponse.self, #"{"zones":[{"zoneID":{},"operationType":"forceDelete"}]}"#), naming: "zones[0].operationType")
    }
}
