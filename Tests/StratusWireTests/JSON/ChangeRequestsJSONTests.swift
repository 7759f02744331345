import Foundation
@testable import StratusWire
import XCTest

/// The JSON of `records/changes` and `changes/database`: CloudKit Web Services' `syncToken`
/// (standard base64), `resultsLimit`, `moreComing`, deletions marked `deleted: true`, with the
/// deletion reason and the client change token as Stratus extensions; anything else is
/// `invalidArguments` naming the key.
final class ChangeRequestsJSONTests: XCTestCase {
    private let context = WireRequestContext(containerIdentifier: "iCloud.com.example.clowns", database: .shared, deviceID: "device-7", sessionToken: "session-9", operationID: "operation-3")
    private let party = WireZoneID(zoneName: "Party", ownerName: "_abc")
    private let partyJSON = #"{"ownerRecordName":"_abc","zoneName":"Party"}"#

    private func roundTrip<Request: Codable>(_ request: Request, file: StaticString = #filePath, line: UInt = #line) throws -> Request {
        let text = try json(request)
        for part in ["iCloud.com.example.clowns", "device-7", "session-9", "operation-3"] {
            XCTAssertFalse(text.contains(part), "the context is not in the body: \(text)", file: file, line: line)
        }
        return try WireJSON.decode(Request.self, from: Data(text.utf8), context: context)
    }

    private func assertSame(_ lhs: WireRecordChangesResponse, _ rhs: WireRecordChangesResponse, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(lhs.changed, rhs.changed, file: file, line: line)
        XCTAssertEqual(lhs.deleted, rhs.deleted, file: file, line: line)
        XCTAssertEqual(lhs.token, rhs.token, file: file, line: line)
        XCTAssertEqual(lhs.moreComing, rhs.moreComing, file: file, line: line)
        XCTAssertEqual(lhs.clientChangeTokenData, rhs.clientChangeTokenData, file: file, line: line)
    }

    private func assertSame(_ lhs: WireDatabaseChangesResponse, _ rhs: WireDatabaseChangesResponse, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(lhs.changedZoneIDs, rhs.changedZoneIDs, file: file, line: line)
        XCTAssertEqual(lhs.deleted, rhs.deleted, file: file, line: line)
        XCTAssertEqual(lhs.token, rhs.token, file: file, line: line)
        XCTAssertEqual(lhs.moreComing, rhs.moreComing, file: file, line: line)
    }

    // MARK: - records/changes

    func testARecordChangesRequestIsCloudKitWebServicesRecordsChanges() throws {
        let request = WireRecordChangesRequest(context: context, zoneID: party, sinceToken: [1, 2, 3, 250], resultsLimit: 50, desiredKeys: ["title"])
        XCTAssertEqual(try json(request), #"{"desiredKeys":["title"],"resultsLimit":50,"syncToken":"AQID+g==","zoneID":\#(partyJSON)}"#)
        XCTAssertEqual(try json(WireRecordChangesRequest(context: context, zoneID: party)), #"{"zoneID":\#(partyJSON)}"#, "no token, no limit, every field")
    }

    func testARecordChangesRequestComesBackExactlyWithItsContext() throws {
        for request in [
            WireRecordChangesRequest(context: context, zoneID: party, sinceToken: [1, 2, 3, 250], resultsLimit: 50, desiredKeys: ["title"]),
            WireRecordChangesRequest(context: context, zoneID: party),
            WireRecordChangesRequest(context: context, zoneID: .defaultZone, sinceToken: [], resultsLimit: -3, desiredKeys: []),
            WireRecordChangesRequest(context: context, zoneID: party, sinceToken: Array(0...255), resultsLimit: .max),
        ] {
            let back = try roundTrip(request)
            XCTAssertEqual(back.context, context)
            XCTAssertEqual(back.zoneID, request.zoneID)
            XCTAssertEqual(back.sinceToken, request.sinceToken)
            XCTAssertEqual(back.resultsLimit, request.resultsLimit)
            XCTAssertEqual(back.desiredKeys, request.desiredKeys)
        }
    }

    func testAMalformedRecordChangesRequestIsInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireRecordChangesRequest.self, #"{"syncToken":"AQID"}"#, context: context), naming: "zoneID")
        assertInvalid(decodeError(WireRecordChangesRequest.self, #"{"zoneID":{},"syncToken":"not base64!"}"#, context: context), naming: "syncToken")
        assertInvalid(decodeError(WireRecordChangesRequest.self, #"{"zoneID":{},"syncToken":[1,2]}"#, context: context), naming: "syncToken")
        assertInvalid(decodeError(WireRecordChangesRequest.self, #"{"zoneID":{},"resultsLimit":99999999999999999999}"#, context: context), naming: "resultsLimit")
        assertInvalid(decodeError(WireRecordChangesRequest.self, #"{"zoneID":{},"resultsLimit":2.5}"#, context: context), naming: "resultsLimit")
        assertInvalid(decodeError(WireRecordChangesRequest.self, #"{"zoneID":{},"desiredKeys":[1]}"#, context: context), naming: "desiredKeys[0]")
        XCTAssertEqual(decodeError(WireRecordChangesRequest.self, #"{"zoneID":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}", context: context)?.code, .invalidArguments)
    }

    private func changes() -> WireRecordChangesResponse {
        var record = WireRecord(
            recordID: WireRecordID(recordName: "a", zoneID: party), recordType: "Note", changeTag: "5",
            modificationDate: Date(timeIntervalSinceReferenceDate: 7.5e8 + 1e-6), fields: ["title": .string("Hi")]
        )
        record.share = WireReference(recordID: WireRecordID(recordName: "cloudkit.zoneshare", zoneID: party), action: .none)
        return WireRecordChangesResponse(
            changed: [record, WireRecord(recordID: WireRecordID(recordName: "b", zoneID: party), recordType: "Note", changeTag: "6")],
            deleted: [WireRecordDeletion(recordID: WireRecordID(recordName: "c", zoneID: party), recordType: "Note"), WireRecordDeletion(recordID: WireRecordID(recordName: "d", zoneID: party), recordType: "")],
            token: [9, 8, 7],
            moreComing: true,
            clientChangeTokenData: Data([0xFF, 0])
        )
    }

    func testARecordChangesResponseIsCloudKitWebServicesRecordsWithDeletionsMarked() throws {
        let response = WireRecordChangesResponse(
            changed: [WireRecord(recordID: WireRecordID(recordName: "b", zoneID: party), recordType: "Note", changeTag: "6")],
            deleted: [WireRecordDeletion(recordID: WireRecordID(recordName: "c", zoneID: party), recordType: "Note")],
            token: [9, 8, 7], moreComing: true, clientChangeTokenData: Data([0xFF, 0])
        )
        XCTAssertEqual(try json(response), """
        {"clientChangeTokenData":"/wA=","moreComing":true,"records":[\
        {"fields":{},"recordChangeTag":"6","recordName":"b","recordType":"Note","zoneID":\(partyJSON)},\
        {"deleted":true,"recordName":"c","recordType":"Note","zoneID":\(partyJSON)}],"syncToken":"CQgH"}
        """)
    }

    func testARecordChangesResponseComesBackExactly() throws {
        for response in [
            changes(),
            WireRecordChangesResponse(changed: [], deleted: [], token: [], moreComing: false, clientChangeTokenData: nil),
            WireRecordChangesResponse(changed: [], deleted: changes().deleted, token: Array(0...255), moreComing: false, clientChangeTokenData: Data()),
        ] {
            assertSame(try WireJSON.decode(WireRecordChangesResponse.self, from: try WireJSON.encode(response)), response)
        }
        XCTAssertEqual(try WireJSON.decode(WireRecordDeletion.self, from: try WireJSON.encode(changes().deleted[0])), changes().deleted[0])
    }

    func testARecordChangesResponseFromCloudKitWebServicesDecodesInAnyOrder() throws {
        let text = """
        {"records":[{"recordName":"c","deleted":true},
                    {"recordName":"a","recordType":"Note","recordChangeTag":"e","fields":{"n":{"value":3,"type":"INT64"}},"deleted":false},
                    {"recordName":"d","recordType":"Note","deleted":true}],
         "syncToken":"AQAAAaBJidqD","moreComing":false,"reverse":false}
        """
        let response = try WireJSON.decode(WireRecordChangesResponse.self, from: Data(text.utf8))
        XCTAssertEqual(response.changed.map(\.recordID), [WireRecordID(recordName: "a")])
        XCTAssertEqual(response.changed.first?.fields, ["n": .int64(3)])
        XCTAssertEqual(response.deleted, [WireRecordDeletion(recordID: WireRecordID(recordName: "c"), recordType: ""), WireRecordDeletion(recordID: WireRecordID(recordName: "d"), recordType: "Note")])
        XCTAssertEqual(response.token, [UInt8](Data(base64Encoded: "AQAAAaBJidqD") ?? Data()))
        XCTAssertFalse(response.moreComing)
        XCTAssertNil(response.clientChangeTokenData)
    }

    func testAMalformedRecordChangesResponseIsInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireRecordChangesResponse.self, #"{"records":[],"moreComing":false}"#), naming: "syncToken")
        assertInvalid(decodeError(WireRecordChangesResponse.self, #"{"syncToken":"AQID"}"#), naming: "records")
        assertInvalid(decodeError(WireRecordChangesResponse.self, #"{"records":[],"syncToken":"AQID","moreComing":"no"}"#), naming: "moreComing")
        assertInvalid(decodeError(WireRecordChangesResponse.self, #"{"records":[],"syncToken":"AQID","clientChangeTokenData":"***"}"#), naming: "clientChangeTokenData")
        assertInvalid(decodeError(WireRecordChangesResponse.self, #"{"records":[{"deleted":true}],"syncToken":"AQID"}"#), naming: "records[0].recordName")
        assertInvalid(decodeError(WireRecordChangesResponse.self, #"{"records":[{"recordName":"a"}],"syncToken":"AQID"}"#), naming: "records[0].recordType")
        assertInvalid(decodeError(WireRecordChangesResponse.self, #"{"records":[{"recordName":"a","deleted":1}],"syncToken":"AQID"}"#), naming: "records[0].deleted")
    }

    // MARK: - changes/database

    func testADatabaseChangesRequestIsCloudKitWebServicesChangesDatabase() throws {
        XCTAssertEqual(try json(WireDatabaseChangesRequest(context: context, sinceToken: [0xFB, 0xFF], resultsLimit: 10)), #"{"resultsLimit":10,"syncToken":"+/8="}"#)
        XCTAssertEqual(try json(WireDatabaseChangesRequest(context: context)), "{}")
        for request in [
            WireDatabaseChangesRequest(context: context, sinceToken: [0xFB, 0xFF], resultsLimit: 10),
            WireDatabaseChangesRequest(context: context),
            WireDatabaseChangesRequest(context: context, sinceToken: [], resultsLimit: .min),
        ] {
            let back = try roundTrip(request)
            XCTAssertEqual(back.context, context)
            XCTAssertEqual(back.sinceToken, request.sinceToken)
            XCTAssertEqual(back.resultsLimit, request.resultsLimit)
        }
        assertInvalid(decodeError(WireDatabaseChangesRequest.self, #"{"syncToken":"+/8"}"#, context: context), naming: "syncToken")
        assertInvalid(decodeError(WireDatabaseChangesRequest.self, #"{"resultsLimit":"ten"}"#, context: context), naming: "resultsLimit")
        assertInvalid(decodeError(WireDatabaseChangesRequest.self, #"{"resultsLimit":1e30}"#, context: context), naming: "resultsLimit")
    }

    func testADatabaseChangesResponseListsDeletedZonesWithTheirReason() throws {
        let circus = WireZoneID(zoneName: "Circus", ownerName: WireZoneID.currentUserOwnerName)
        let response = WireDatabaseChangesResponse(
            changedZoneIDs: [party],
            deleted: [WireZoneDeletion(zoneID: circus, reason: .purged)],
            token: [1], moreComing: false
        )
        XCTAssertEqual(try json(response), """
        {"moreComing":false,"syncToken":"AQ==","zones":[{"zoneID":\(partyJSON)},\
        {"deleted":true,"deletionReason":"PURGED","zoneID":{"ownerRecordName":"__defaultOwner__","zoneName":"Circus"}}]}
        """)
        for reason in [WireZoneDeletionReason.deleted, .purged, .encryptedDataReset] {
            XCTAssertEqual(try WireJSON.decode(WireZoneDeletionReason.self, from: try WireJSON.encode(reason)), reason)
        }
        XCTAssertEqual(try json(WireZoneDeletionReason.encryptedDataReset), #""ENCRYPTED_DATA_RESET""#)
        for response in [
            response,
            WireDatabaseChangesResponse(
                changedZoneIDs: [party, circus, .defaultZone],
                deleted: [WireZoneDeletion(zoneID: party, reason: .deleted), WireZoneDeletion(zoneID: circus, reason: .encryptedDataReset), WireZoneDeletion(zoneID: .defaultZone, reason: .purged)],
                token: Array(0...255), moreComing: true
            ),
            WireDatabaseChangesResponse(changedZoneIDs: [], deleted: [], token: [], moreComing: false),
        ] {
            assertSame(try WireJSON.decode(WireDatabaseChangesResponse.self, from: try WireJSON.encode(response)), response)
        }
    }

    func testADatabaseChangesResponseFromCloudKitWebServicesDecodes() throws {
        let text = """
        {"zones":[{"zoneID":{"zoneName":"Gone","ownerRecordName":"_d1ce","zoneType":"REGULAR_CUSTOM_ZONE"},"deleted":true},
                  {"zoneID":{"zoneName":"Party","ownerRecordName":"_abc"},"syncToken":"AQ","atomic":true}],
         "syncToken":"AQAAAaBJidqD","moreComing":true}
        """
        let response = try WireJSON.decode(WireDatabaseChangesResponse.self, from: Data(text.utf8))
        XCTAssertEqual(response.changedZoneIDs, [party])
        XCTAssertEqual(response.deleted, [WireZoneDeletion(zoneID: WireZoneID(zoneName: "Gone", ownerName: "_d1ce"), reason: .deleted)])
        XCTAssertTrue(response.moreComing)
        assertInvalid(decodeError(WireDatabaseChangesResponse.self, #"{"zones":[{"zoneID":{},"deleted":true,"deletionReason":"VANISHED"}],"syncToken":"AQ=="}"#), naming: "zones[0].deletionReason")
        assertInvalid(decodeError(WireDatabaseChangesResponse.self, #"{"zones":[{"deleted":false}],"syncToken":"AQ=="}"#), naming: "zones[0].zoneID")
        assertInvalid(decodeError(WireDatabaseChangesResponse.self, #"{"zones":[]}"#), naming: "syncToken")
        assertInvalid(decodeError(WireDatabaseChangesResponse.self, #"{"zones":{},"syncToken":"AQ=="}"#), naming: "zones")
    }
}
