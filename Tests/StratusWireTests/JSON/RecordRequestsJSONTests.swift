import Foundation
@testable import StratusWire
import XCTest

/// The JSON of `records/lookup` and `records/modify`: CloudKit Web Services' `records` and
/// `operations` with `operationType`, the save policy, cleared keys, parent changes and the
/// client change token kept exactly, saves and deletes rebuilt from one array; anything else
/// is `invalidArguments` naming the key.
final class RecordRequestsJSONTests: XCTestCase {
    private let context = WireRequestContext(
        containerIdentifier: "iCloud.com.example.clowns", database: .private, deviceID: "device-7",
        sessionToken: "session-9", operationID: "operation-3", qualityOfService: .userInitiated
    )
    private let zone = WireZoneID(zoneName: "Party", ownerName: "_abc")
    private let otherZone = WireZoneID(zoneName: "Circus", ownerName: WireZoneID.currentUserOwnerName)
    private let zoneJSON = #"{"ownerRecordName":"_abc","zoneName":"Party"}"#

    // MARK: - Helpers

    /// `request` through JSON, checking that its context is not in the body and comes back.
    private func roundTrip<Request: Codable>(_ request: Request, file: StaticString = #filePath, line: UInt = #line) throws -> Request {
        let text = try json(request)
        for part in ["iCloud.com.example.clowns", "device-7", "session-9", "operation-3"] {
            XCTAssertFalse(text.contains(part), "the context is not in the body: \(text)", file: file, line: line)
        }
        return try WireJSON.decode(Request.self, from: Data(text.utf8), context: context)
    }

    private func assertSameDeletes<ID: Equatable>(_ lhs: [WireItemResult<ID, Void>], _ rhs: [WireItemResult<ID, Void>], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(lhs.map(\.id), rhs.map(\.id), file: file, line: line)
        XCTAssertEqual(lhs.map { $0.result.map { true } }, rhs.map { $0.result.map { true } }, file: file, line: line)
    }

    private func assertSameModify(_ lhs: WireRecordsModifyRequest, _ rhs: WireRecordsModifyRequest, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(lhs.context, rhs.context, file: file, line: line)
        XCTAssertEqual(lhs.saves.map(\.record), rhs.saves.map(\.record), file: file, line: line)
        XCTAssertEqual(lhs.saves.map(\.removedKeys), rhs.saves.map(\.removedKeys), file: file, line: line)
        XCTAssertEqual(lhs.saves.map(\.removedEncryptedKeys), rhs.saves.map(\.removedEncryptedKeys), file: file, line: line)
        XCTAssertEqual(lhs.saves.map(\.parentChanged), rhs.saves.map(\.parentChanged), file: file, line: line)
        XCTAssertEqual(lhs.deletes, rhs.deletes, file: file, line: line)
        XCTAssertEqual(lhs.savePolicy, rhs.savePolicy, file: file, line: line)
        XCTAssertEqual(lhs.isAtomic, rhs.isAtomic, file: file, line: line)
        XCTAssertEqual(lhs.clientChangeTokenData, rhs.clientChangeTokenData, file: file, line: line)
    }

    private func note(_ name: String, tag: String? = nil, in zone: WireZoneID? = nil) -> WireRecord {
        WireRecord(recordID: WireRecordID(recordName: name, zoneID: zone ?? self.zone), recordType: "Note", changeTag: tag, fields: ["title": .string("Hi")])
    }

    private func fullRecord() -> WireRecord {
        var record = WireRecord(
            recordID: WireRecordID(recordName: "party", zoneID: zone),
            recordType: "Party",
            changeTag: "3",
            creationDate: Date(timeIntervalSince1970: 1_700_000_000),
            modificationDate: Date(timeIntervalSinceReferenceDate: 7.5e8 + 1.234_567e-3),
            creatorUserRecordName: "_abc",
            lastModifiedUserRecordName: "__defaultOwner__",
            fields: ["title": .string("Clowns"), "attendees": .int64(12), "when": .list([.date(Date(timeIntervalSince1970: 1.5))])],
            encryptedFields: ["secret": .string("balloons")]
        )
        record.parent = WireReference(recordID: WireRecordID(recordName: "calendar", zoneID: zone), action: .none)
        return record
    }

    // MARK: - Save policies

    func testSavePoliciesAreNamedAsAStratusExtension() throws {
        XCTAssertEqual(try json(WireSavePolicy.ifServerRecordUnchanged), #""IF_SERVER_RECORD_UNCHANGED""#)
        XCTAssertEqual(try json(WireSavePolicy.changedKeys), #""CHANGED_KEYS""#)
        XCTAssertEqual(try json(WireSavePolicy.allKeys), #""ALL_KEYS""#)
        for policy in WireSavePolicy.allCases {
            XCTAssertEqual(try WireJSON.decode(WireSavePolicy.self, from: try WireJSON.encode(policy)), policy)
        }
        let unknown = decodeError(WireSavePolicy.self, #""SOMETIMES""#)
        XCTAssertEqual(unknown?.code, .invalidArguments)
        XCTAssertTrue(unknown?.message.contains("SOMETIMES") == true, unknown?.message ?? "")
        XCTAssertEqual(decodeError(WireSavePolicy.self, "0")?.code, .invalidArguments, "not the raw value")
    }

    // MARK: - records/lookup

    func testALookupIsCloudKitWebServicesRecordsWithTheZoneOfEachRecord() throws {
        let request = WireRecordsLookupRequest(context: context, recordIDs: [WireRecordID(recordName: "a", zoneID: zone), WireRecordID(recordName: "b", zoneID: zone)], desiredKeys: ["title"])
        XCTAssertEqual(
            try json(request),
            #"{"desiredKeys":["title"],"records":[{"recordName":"a","zoneID":\#(zoneJSON)},{"recordName":"b","zoneID":\#(zoneJSON)}],"zoneID":\#(zoneJSON)}"#
        )
    }

    func testALookupComesBackExactlyWithItsContext() throws {
        let requests = [
            WireRecordsLookupRequest(context: context, recordIDs: [WireRecordID(recordName: "a", zoneID: zone), WireRecordID(recordName: "Zon\u{E9}", zoneID: otherZone), WireRecordID(recordName: "Zone\u{301}")]),
            WireRecordsLookupRequest(context: context, recordIDs: [WireRecordID(recordName: "a")], desiredKeys: []),
            WireRecordsLookupRequest(context: context, recordIDs: [], desiredKeys: ["x", "y"]),
        ]
        for request in requests {
            let back = try roundTrip(request)
            XCTAssertEqual(back.context, context)
            XCTAssertEqual(back.recordIDs, request.recordIDs)
            XCTAssertEqual(back.desiredKeys, request.desiredKeys)
        }
        let body = try JSONSerialization.jsonObject(with: try WireJSON.encode(requests[0])) as? [String: Any]
        XCTAssertNil(body?["zoneID"], "records in several zones: no top-level zone")
    }

    func testALookupWrittenForCloudKitWebServicesTakesTheRequestZoneAndDesiredKeys() throws {
        let text = #"{"zoneID":{"zoneName":"Party"},"records":[{"recordName":"a"},{"recordName":"b","desiredKeys":["x"]}],"desiredKeys":["x"],"numbersAsStrings":false}"#
        let request = try WireJSON.decode(WireRecordsLookupRequest.self, from: Data(text.utf8), context: context)
        let party = WireZoneID(zoneName: "Party", ownerName: WireZoneID.currentUserOwnerName)
        XCTAssertEqual(request.recordIDs, [WireRecordID(recordName: "a", zoneID: party), WireRecordID(recordName: "b", zoneID: party)])
        XCTAssertEqual(request.desiredKeys, ["x"])
        XCTAssertEqual(request.context, context)
        let noZone = try WireJSON.decode(WireRecordsLookupRequest.self, from: Data(#"{"records":[{"recordName":"a","desiredKeys":["y"]}]}"#.utf8), context: context)
        XCTAssertEqual(noZone.recordIDs, [WireRecordID(recordName: "a")])
        XCTAssertEqual(noZone.desiredKeys, ["y"])
    }

    func testALookupWhoseRecordsAskForDifferentKeysOrIsMalformedIsInvalidArguments() {
        assertInvalid(decodeError(WireRecordsLookupRequest.self, #"{"records":[{"recordName":"a"},{"recordName":"b","desiredKeys":["x"]}]}"#, context: context), naming: "records[1].desiredKeys")
        assertInvalid(decodeError(WireRecordsLookupRequest.self, #"{"desiredKeys":["x"]}"#, context: context), naming: "records")
        assertInvalid(decodeError(WireRecordsLookupRequest.self, #"{"records":[{"zoneID":{}}]}"#, context: context), naming: "records[0].recordName")
        assertInvalid(decodeError(WireRecordsLookupRequest.self, #"{"records":[{"recordName":7}]}"#, context: context), naming: "records[0].recordName")
        assertInvalid(decodeError(WireRecordsLookupRequest.self, #"{"records":{"recordName":"a"}}"#, context: context), naming: "records")
        assertInvalid(decodeError(WireRecordsLookupRequest.self, #"{"records":[],"desiredKeys":"title"}"#, context: context), naming: "desiredKeys")
        XCTAssertEqual(decodeError(WireRecordsLookupRequest.self, #"{"records":"#+String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}", context: context)?.code, .invalidArguments, "nesting too deep")
    }

    func testALookupResponseIsRecordsOrErrorsWithTheRequestedIDBeside() throws {
        let response = WireRecordsLookupResponse(results: [
            WireItemResult(id: WireRecordID(recordName: "a", zoneID: zone), result: .success(WireRecord(recordID: WireRecordID(recordName: "a", zoneID: zone), recordType: "Note", changeTag: "d"))),
            WireItemResult(id: WireRecordID(recordName: "b", zoneID: zone), result: .failure(WireError(.unknownItem, "record 'b' does not exist"))),
        ])
        XCTAssertEqual(try json(response), """
        {"records":[{"fields":{},"recordChangeTag":"d","recordName":"a","recordType":"Note","zoneID":\(zoneJSON)},\
        {"ckErrorCode":11,"reason":"record 'b' does not exist","recordName":"b","serverErrorCode":"NOT_FOUND","zoneID":\(zoneJSON)}]}
        """)
    }

    func testALookupResponseComesBackExactlyEvenWhenARecordIsNamedOtherwiseThanAsked() throws {
        var renamed = fullRecord()
        renamed.recordID = WireRecordID(recordName: "party", zoneID: WireZoneID(zoneName: "Party", ownerName: WireZoneID.currentUserOwnerName))
        let response = WireRecordsLookupResponse(results: [
            WireItemResult(id: fullRecord().recordID, result: .success(fullRecord())),
            WireItemResult(id: fullRecord().recordID, result: .success(renamed)),
            WireItemResult(id: WireRecordID(recordName: "x"), result: .failure(WireError(.permissionFailure, "no", retryAfter: 2))),
            WireItemResult(id: WireRecordID(recordName: "y", zoneID: otherZone), result: .failure(WireError(.zoneBusy, "busy", retryAfter: 0.5))),
        ])
        XCTAssertTrue(try json(response).contains(#""stratusRecordID":{"recordName":"party","zoneID":{"ownerRecordName":"__defaultOwner__","zoneName":"Party"}}"#))
        let back = try WireJSON.decode(WireRecordsLookupResponse.self, from: try WireJSON.encode(response))
        assertSameResults(back.results, response.results)
    }

    // MARK: - records/modify request

    func testAModifyIsCloudKitWebServicesOperationsWithOperationTypes() throws {
        var moved = note("b", tag: "7")
        moved.fields = [:]
        let request = WireRecordsModifyRequest(
            context: context,
            saves: [WireRecordSave(record: note("a"), removedKeys: ["old"]), WireRecordSave(record: moved, parentChanged: true)],
            deletes: [WireRecordID(recordName: "gone", zoneID: zone)],
            savePolicy: .ifServerRecordUnchanged,
            isAtomic: true,
            clientChangeTokenData: Data([1, 2, 3])
        )
        XCTAssertEqual(try json(request), """
        {"atomic":true,"clientChangeTokenData":"AQID","operations":[\
        {"operationType":"create","record":{"fields":{"old":{},"title":{"type":"STRING","value":"Hi"}},"recordName":"a","recordType":"Note","zoneID":\(zoneJSON)}},\
        {"operationType":"update","parentChanged":true,"record":{"fields":{},"recordChangeTag":"7","recordName":"b","recordType":"Note","zoneID":\(zoneJSON)}},\
        {"operationType":"forceDelete","record":{"recordName":"gone","zoneID":\(zoneJSON)}}],\
        "savePolicy":"IF_SERVER_RECORD_UNCHANGED","zoneID":\(zoneJSON)}
        """)
    }

    func testEverySavePolicyMapsToTheOperationTypeOfTheReference() throws {
        let expected: [(WireSavePolicy, String?, String)] = [
            (.ifServerRecordUnchanged, nil, "create"), (.ifServerRecordUnchanged, "1", "update"),
            (.changedKeys, nil, "forceUpdate"), (.changedKeys, "1", "forceUpdate"),
            (.allKeys, nil, "forceUpdate"), (.allKeys, "1", "forceUpdate"),
        ]
        for (policy, tag, type) in expected {
            let request = WireRecordsModifyRequest(context: context, saves: [WireRecordSave(record: note("a", tag: tag))], savePolicy: policy)
            let text = try json(request)
            XCTAssertTrue(text.contains(#""operationType":"\#(type)""#), "\(policy), tag \(tag ?? "none"): \(text)")
            assertSameModify(try roundTrip(request), request)
        }
    }

    func testAModifyComesBackExactlyUnderEveryPolicy() throws {
        var parented = fullRecord()
        parented.parent = nil
        var share = WireRecord(recordID: WireRecordID(recordName: "share", zoneID: zone), recordType: "cloudkit.share", changeTag: "s1")
        share.shareInfo = WireShareInfo(publicPermission: .readWrite, url: "https://www.icloud.com/share/0abc", participants: [])
        let saves = [
            WireRecordSave(record: fullRecord(), removedKeys: ["a", "b"], removedEncryptedKeys: ["hidden"], parentChanged: false),
            WireRecordSave(record: note("new"), removedKeys: [], removedEncryptedKeys: [], parentChanged: true),
            WireRecordSave(record: parented, removedKeys: ["z"], parentChanged: true),
            WireRecordSave(record: note("elsewhere", tag: "t", in: otherZone)),
            WireRecordSave(record: share),
        ]
        let deletes = [WireRecordID(recordName: "d1", zoneID: zone), WireRecordID(recordName: "d2"), WireRecordID(recordName: "d1", zoneID: otherZone)]
        for policy in WireSavePolicy.allCases {
            for atomic in [true, false] {
                for token in [nil, Data(), Data(0..<200)] {
                    let request = WireRecordsModifyRequest(context: context, saves: saves, deletes: deletes, savePolicy: policy, isAtomic: atomic, clientChangeTokenData: token)
                    assertSameModify(try roundTrip(request), request)
                }
            }
            let deletesOnly = WireRecordsModifyRequest(context: context, deletes: deletes, savePolicy: policy)
            assertSameModify(try roundTrip(deletesOnly), deletesOnly)
            let empty = WireRecordsModifyRequest(context: context, savePolicy: policy, isAtomic: false)
            assertSameModify(try roundTrip(empty), empty)
        }
    }

    func testRemovedKeysTheClearedFieldsCannotSpellComeBackThroughTheExtension() throws {
        let odd = [
            WireRecordSave(record: note("a"), removedKeys: ["b", "a"]),
            WireRecordSave(record: note("a"), removedKeys: ["x", "x"]),
            WireRecordSave(record: note("a"), removedKeys: ["title"]),
            WireRecordSave(record: note("a"), removedKeys: ["k"], removedEncryptedKeys: ["k"]),
            WireRecordSave(record: note("a"), removedEncryptedKeys: ["title", "s"]),
            WireRecordSave(record: note("a"), removedKeys: ["Zon\u{E9}", "Zone\u{301}"]),
        ]
        for save in odd {
            let request = WireRecordsModifyRequest(context: context, saves: [save], savePolicy: .changedKeys)
            assertSameModify(try roundTrip(request), request)
        }
        let plain = try json(WireRecordSave(record: note("a"), removedKeys: ["a", "b"], removedEncryptedKeys: ["c"]))
        XCTAssertFalse(plain.contains("removedKeys"), "cleared fields alone when they say it: \(plain)")
        XCTAssertTrue(plain.contains(#""c":{"isEncrypted":true}"#), plain)
        XCTAssertTrue(try json(odd[0]).contains(#""removedKeys":["b","a"]"#))
    }

    func testAModifyWrittenForCloudKitWebServicesDecodes() throws {
        let text = """
        {"operations":[
          {"operationType":"create","record":{"recordName":"a","recordType":"Note","fields":{"title":{"value":"Hi"},"gone":{"value":null}}}},
          {"operationType":"update","record":{"recordName":"b","recordType":"Note","recordChangeTag":"e","fields":{}},"desiredKeys":[]},
          {"operationType":"forceDelete","record":{"recordName":"c"}}],
         "zoneID":{"zoneName":"Party","ownerRecordName":"_abc"},"numbersAsStrings":true}
        """
        let request = try WireJSON.decode(WireRecordsModifyRequest.self, from: Data(text.utf8), context: context)
        XCTAssertEqual(request.context, context)
        XCTAssertEqual(request.savePolicy, .ifServerRecordUnchanged)
        XCTAssertTrue(request.isAtomic, "atomic defaults to true")
        XCTAssertNil(request.clientChangeTokenData)
        XCTAssertEqual(request.saves.map(\.record.recordID), [WireRecordID(recordName: "a", zoneID: zone), WireRecordID(recordName: "b", zoneID: zone)])
        XCTAssertEqual(request.saves[0].record.fields, ["title": .string("Hi")])
        XCTAssertEqual(request.saves[0].removedKeys, ["gone"])
        XCTAssertEqual(request.saves[1].record.changeTag, "e")
        XCTAssertEqual(request.deletes, [WireRecordID(recordName: "c", zoneID: zone)])
        let forced = try WireJSON.decode(WireRecordsModifyRequest.self, from: Data(#"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"a","recordType":"Note"}}],"atomic":false}"#.utf8), context: context)
        XCTAssertEqual(forced.savePolicy, .changedKeys)
        XCTAssertFalse(forced.isAtomic)
    }

    func testAMalformedModifyIsInvalidArgumentsNamingTheKey() {
        let create = #"{"operationType":"create","record":{"recordName":"a","recordType":"Note"}}"#
        let delete = #"{"operationType":"forceDelete","record":{"recordName":"d"}}"#
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"atomic":true}"#, context: context), naming: "operations")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":3}"#, context: context), naming: "operations")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"upsert","record":{"recordName":"a"}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[\#(create),{"operationType":"replace","record":{"recordName":"a","recordType":"N","recordChangeTag":"1"}}]}"#, context: context), naming: "operations[1].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"a","recordType":"N"}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"delete","record":{"recordName":"a","recordChangeTag":"1"}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"record":{"recordName":"a"}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":7,"record":{"recordName":"a"}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[\#(delete),\#(create)]}"#, context: context), naming: "operations[1].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"create","record":{"recordName":"a","recordType":"N","recordChangeTag":"1"}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"update","record":{"recordName":"a","recordType":"N"}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[\#(create)],"savePolicy":"CHANGED_KEYS"}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[\#(create),{"operationType":"forceUpdate","record":{"recordName":"b","recordType":"N"}}]}"#, context: context), naming: "operations[1].operationType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[\#(create)],"savePolicy":"SOMETIMES"}"#, context: context), naming: "savePolicy")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"create","record":{"recordName":"a"}}]}"#, context: context), naming: "operations[0].record.recordType")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"create"}]}"#, context: context), naming: "operations[0].record")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"forceDelete","record":"d"}]}"#, context: context), naming: "operations[0].record")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"create","record":{"recordName":"a","recordType":"N","fields":{"n":{"value":"twelve","type":"INT64"}}}}]}"#, context: context), naming: "operations[0].record.fields.n.value")
        XCTAssertEqual(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"create","record":{"recordName":"a","recordType":"N","fields":{"n":{"value":99999999999999999999,"type":"INT64"}}}}]}"#, context: context)?.code, .invalidArguments, "a number out of range")
        XCTAssertEqual(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"create","record":{"recordName":"a","recordType":"N","fields":{"n":{"value":1e400,"type":"DOUBLE"}}}}]}"#, context: context)?.code, .invalidArguments, "a number JSON cannot hold")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[{"operationType":"create","parentChanged":"yes","record":{"recordName":"a","recordType":"N"}}]}"#, context: context), naming: "operations[0].parentChanged")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[],"clientChangeTokenData":"%%%"}"#, context: context), naming: "clientChangeTokenData")
        assertInvalid(decodeError(WireRecordsModifyRequest.self, #"{"operations":[],"atomic":"yes"}"#, context: context), naming: "atomic")
        XCTAssertEqual(decodeError(WireRecordsModifyRequest.self, #"{"operations":"#+String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}", context: context)?.code, .invalidArguments, "nesting too deep")
        XCTAssertEqual(decodeError(WireRecordsModifyRequest.self, "[]", context: context)?.code, .invalidArguments)
    }

    // MARK: - records/modify response

    func testAModifyResponseIsOneElementPerOperationSavesThenDeletes() throws {
        let response = WireRecordsModifyResponse(
            saveResults: [
                WireItemResult(id: WireRecordID(recordName: "a", zoneID: zone), result: .success(WireRecord(recordID: WireRecordID(recordName: "a", zoneID: zone), recordType: "Note", changeTag: "d"))),
                WireItemResult(id: WireRecordID(recordName: "b", zoneID: zone), result: .failure(WireError(.serverRecordChanged, "changed"))),
            ],
            deleteResults: [
                WireItemResult(id: WireRecordID(recordName: "c", zoneID: zone), result: .success(())),
                WireItemResult(id: WireRecordID(recordName: "e", zoneID: zone), result: .failure(WireError(.batchRequestFailed, "atomic"))),
            ]
        )
        XCTAssertEqual(try json(response), """
        {"records":[{"fields":{},"recordChangeTag":"d","recordName":"a","recordType":"Note","zoneID":\(zoneJSON)},\
        {"ckErrorCode":14,"reason":"changed","recordName":"b","serverErrorCode":"CONFLICT","zoneID":\(zoneJSON)},\
        {"deleted":true,"operationType":"forceDelete","recordName":"c","zoneID":\(zoneJSON)},\
        {"ckErrorCode":22,"operationType":"forceDelete","reason":"atomic","recordName":"e","serverErrorCode":"ATOMIC_ERROR","zoneID":\(zoneJSON)}]}
        """)
    }

    func testAModifyResponseComesBackExactly() throws {
        var renamed = fullRecord()
        renamed.recordID.zoneID = otherZone
        let responses = [
            WireRecordsModifyResponse(
                saveResults: [
                    WireItemResult(id: fullRecord().recordID, result: .success(fullRecord())),
                    WireItemResult(id: fullRecord().recordID, result: .success(renamed)),
                    WireItemResult(id: WireRecordID(recordName: "b"), result: .failure(WireError(.serverRecordChanged, "changed", serverRecord: fullRecord()))),
                    WireItemResult(id: WireRecordID(recordName: "q", zoneID: zone), result: .failure(WireError(.quotaExceeded, "full"))),
                ],
                deleteResults: [
                    WireItemResult(id: WireRecordID(recordName: "c", zoneID: otherZone), result: .failure(WireError(.referenceViolation, "children"))),
                    WireItemResult(id: WireRecordID(recordName: "d"), result: .success(())),
                    WireItemResult(id: WireRecordID(recordName: "f"), result: .failure(WireError(.batchRequestFailed, "atomic"))),
                ]
            ),
            WireRecordsModifyResponse(saveResults: [], deleteResults: [WireItemResult(id: WireRecordID(recordName: "c"), result: .failure(WireError(.unknownItem, "gone")))]),
            WireRecordsModifyResponse(saveResults: [WireItemResult(id: WireRecordID(recordName: "c"), result: .failure(WireError(.unknownItem, "gone")))], deleteResults: []),
            WireRecordsModifyResponse(saveResults: [], deleteResults: []),
        ]
        for response in responses {
            let back = try WireJSON.decode(WireRecordsModifyResponse.self, from: try WireJSON.encode(response))
            assertSameResults(back.saveResults, response.saveResults)
            assertSameDeletes(back.deleteResults, response.deleteResults)
        }
    }

    func testAModifyResponseFromCloudKitWebServicesWithADeletionStubAndAConflictDecodes() throws {
        let text = """
        {"records":[
          {"recordName":"a","recordType":"Note","recordChangeTag":"d","fields":{"title":{"value":"Hi","type":"STRING"}},
           "created":{"timestamp":1446163441548,"userRecordName":"_d1ce","deviceID":"iCloud"},"modified":{"timestamp":1446163441548,"userRecordName":"_d1ce","deviceID":"iCloud"}},
          {"recordName":"b","reason":"record to insert already exists","serverErrorCode":"CONFLICT","uuid":"8c1b"},
          {"recordName":"c","deleted":true},
          {"recordName":"e","reason":"not found","serverErrorCode":"NOT_FOUND","uuid":"8c1c"}]}
        """
        let response = try WireJSON.decode(WireRecordsModifyResponse.self, from: Data(text.utf8))
        XCTAssertEqual(response.saveResults.map(\.id), [WireRecordID(recordName: "a"), WireRecordID(recordName: "b")])
        let saved = try response.saveResults[0].result.get()
        XCTAssertEqual(saved.fields, ["title": .string("Hi")])
        XCTAssertEqual(saved.changeTag, "d")
        XCTAssertEqual(saved.creationDate, Date(timeIntervalSince1970: 1_446_163_441.548))
        XCTAssertEqual(response.saveResults[1].result.map { _ in true }, .failure(WireError(.serverRecordChanged, "record to insert already exists")))
        XCTAssertEqual(response.deleteResults.map(\.id), [WireRecordID(recordName: "c"), WireRecordID(recordName: "e")], "an error after a deletion is a deletion's")
        XCTAssertEqual(response.deleteResults.map { $0.result.map { true } }, [.success(true), .failure(WireError(.unknownItem, "not found"))])
    }

    func testAMalformedModifyResponseIsInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireRecordsModifyResponse.self, "{}"), naming: "records")
        assertInvalid(decodeError(WireRecordsModifyResponse.self, #"{"records":[{"recordName":"c","deleted":true},{"recordName":"a","recordType":"N"}]}"#), naming: "records[1]")
        assertInvalid(decodeError(WireRecordsModifyResponse.self, #"{"records":[{"recordName":"c","deleted":true,"operationType":"purge"}]}"#), naming: "records[0].operationType")
        assertInvalid(decodeError(WireRecordsModifyResponse.self, #"{"records":[{"recordName":"c","deleted":"yes"}]}"#), naming: "records[0].deleted")
        assertInvalid(decodeError(WireRecordsModifyResponse.self, #"{"records":[{"deleted":true}]}"#), naming: "records[0].recordName")
        assertInvalid(decodeError(WireRecordsModifyResponse.self, #"{"records":[{"recordName":"b","serverErrorCode":"NO_SUCH"}]}"#), naming: "records[0].serverErrorCode")
        assertInvalid(decodeError(WireRecordsModifyResponse.self, #"{"records":[{"recordName":"b","serverErrorCode":"THROTTLED","retryAfter":-1}]}"#), naming: "records[0].retryAfter")
        XCTAssertEqual(decodeError(WireRecordsModifyResponse.self, #"{"records":[{"recordName":"b","serverErrorCode":"THROTTLED","retryAfter":1e400}]}"#)?.code, .invalidArguments)
        XCTAssertEqual(decodeError(WireRecordsModifyResponse.self, #"{"records":"#+String(repeating: "[{\"a\":", count: 50_000) + "1" + String(repeating: "}]", count: 50_000) + "}")?.code, .invalidArguments, "nesting too deep")
    }
}
