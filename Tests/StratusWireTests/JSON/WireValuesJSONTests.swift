import Foundation
@testable import StratusWire
import XCTest

/// The JSON of wire values: CloudKit Web Services' record dictionary, field values typed as
/// CKWS types them, zone IDs, references, locations and the error envelope; every value comes
/// back exactly; anything else is `invalidArguments` naming the key.
final class WireValuesJSONTests: XCTestCase {
    private let zone = WireZoneID(zoneName: "Party", ownerName: "_abc")

    private func roundTrip<Value: Codable & Equatable>(_ value: Value, file: StaticString = #filePath, line: UInt = #line) throws {
        let back = try WireJSON.decode(Value.self, from: try WireJSON.encode(value))
        XCTAssertEqual(back, value, file: file, line: line)
    }

    // MARK: - Field values

    func testFieldValuesAreTypedAsCloudKitWebServicesTypesThem() throws {
        XCTAssertEqual(try json(WireFieldValue.string("hi")), #"{"type":"STRING","value":"hi"}"#)
        XCTAssertEqual(try json(WireFieldValue.int64(12)), #"{"type":"INT64","value":12}"#)
        XCTAssertEqual(try json(WireFieldValue.double(2.5)), #"{"type":"DOUBLE","value":2.5}"#)
        XCTAssertEqual(try json(WireFieldValue.bytes(Data([1, 2, 3]))), #"{"type":"BYTES","value":"AQID"}"#)
        XCTAssertEqual(try json(WireFieldValue.date(Date(timeIntervalSince1970: 1_700_000_000.5))), #"{"type":"TIMESTAMP","value":1700000000500}"#)
        XCTAssertEqual(try json(WireFieldValue.list([.string("a"), .string("b")])), #"{"type":"STRING_LIST","value":["a","b"]}"#)
        XCTAssertEqual(try json(WireFieldValue.list([])), #"{"type":"UNKNOWN_LIST","value":[]}"#)
        let reference = WireFieldValue.reference(WireReference(recordID: WireRecordID(recordName: "party", zoneID: zone), action: .deleteSelf))
        XCTAssertEqual(try json(reference), #"{"type":"REFERENCE","value":{"action":"DELETE_SELF","recordName":"party","zoneID":{"ownerRecordName":"_abc","zoneName":"Party"}}}"#)
    }

    func testEveryKindOfFieldValueComesBackExactly() throws {
        let dates = (0..<200).map { Date(timeIntervalSinceReferenceDate: 7.5e8 + Double($0) * 1.000_001e-6) }
        var values: [WireFieldValue] = [
            .string("naïve 🎈"), .int64(.max), .int64(.min), .double(-0.1), .double(.nan), .double(.infinity), .double(2),
            .bytes(Data()), .bytes(Data(0..<255)),
            .location(WireLocation(latitude: 48.85, longitude: 2.35, altitude: 35, horizontalAccuracy: 5, verticalAccuracy: 3, course: 90, speed: 1.5, timestamp: dates[3])),
            .reference(WireReference(recordID: WireRecordID(recordName: "r"), action: .none)),
            .asset(WireAsset(fileChecksum: "c0ffee", size: 12, receipt: "r-1")), .asset(WireAsset(fileChecksum: "c0ffee", size: 12, downloadURL: "https://cvws.icloud-content.com/B/c0ffee/${f}")),
            .list(dates.map(WireFieldValue.date)), .list([.int64(1), .int64(2)]), .list([.double(1), .double(2.5)]),
        ]
        values += dates.map(WireFieldValue.date)
        for value in values {
            let back = try WireJSON.decode(WireFieldValue.self, from: try WireJSON.encode(value))
            if case .double(let number) = value, number.isNaN {
                guard case .double(let decoded) = back, decoded.isNaN else { return XCTFail("NaN came back as \(back)") }
                continue
            }
            XCTAssertEqual(back, value, "\(value)")
        }
    }

    func testAValueWithoutATypeIsTypedFromItsValueAsCloudKitWebServicesDoes() throws {
        XCTAssertEqual(try WireJSON.decode(WireFieldValue.self, from: Data(#"{"value":"x"}"#.utf8)), .string("x"))
        XCTAssertEqual(try WireJSON.decode(WireFieldValue.self, from: Data(#"{"value":3}"#.utf8)), .int64(3))
        XCTAssertEqual(try WireJSON.decode(WireFieldValue.self, from: Data(#"{"value":3.5}"#.utf8)), .double(3.5))
        XCTAssertEqual(try WireJSON.decode(WireFieldValue.self, from: Data(#"{"value":["a"]}"#.utf8)), .list([.string("a")]))
        XCTAssertEqual(try WireJSON.decode(WireFieldValue.self, from: Data(#"{"value":{"recordName":"p"}}"#.utf8)), .reference(WireReference(recordID: WireRecordID(recordName: "p"), action: .none)))
        XCTAssertEqual(try WireJSON.decode(WireFieldValue.self, from: Data(#"{"value":"42","type":"INT64"}"#.utf8)), .int64(42), "numbersAsStrings")
    }

    func testMalformedFieldValuesAreInvalidArgumentsNamingTheKey() {
        let unknownType = decodeError(WireFieldValue.self, #"{"value":1,"type":"BOOLEAN"}"#)
        XCTAssertEqual(unknownType?.code, .invalidArguments)
        XCTAssertTrue(unknownType?.message.contains("'type'") == true, unknownType?.message ?? "")
        XCTAssertTrue(unknownType?.message.contains("BOOLEAN") == true, unknownType?.message ?? "")
        let wrongType = decodeError(WireFieldValue.self, #"{"value":"twelve","type":"INT64"}"#)
        XCTAssertEqual(wrongType?.code, .invalidArguments)
        XCTAssertTrue(wrongType?.message.contains("'value'") == true, wrongType?.message ?? "")
        XCTAssertEqual(decodeError(WireFieldValue.self, #"{"value":1e400,"type":"INT64"}"#)?.code, .invalidArguments, "a number out of range")
        XCTAssertEqual(decodeError(WireFieldValue.self, #"{"value":99999999999999999999,"type":"INT64"}"#)?.code, .invalidArguments)
        XCTAssertEqual(decodeError(WireFieldValue.self, #"{"value":[["a"]],"type":"STRING_LIST_LIST"}"#)?.code, .invalidArguments, "no lists of lists")
        XCTAssertEqual(decodeError(WireFieldValue.self, #"{"value":["a"],"type":"UNKNOWN_LIST"}"#)?.code, .invalidArguments)
        XCTAssertEqual(decodeError(WireFieldValue.self, #"{"value":"%%%","type":"BYTES"}"#)?.code, .invalidArguments)
        XCTAssertEqual(decodeError(WireFieldValue.self, #"{"value":{"recordName":"p","action":"VALIDATE"},"type":"REFERENCE"}"#)?.code, .invalidArguments)
        XCTAssertEqual(decodeError(WireFieldValue.self, #"{"value":1,"type":"TIMESTAMP","stratusDate":9e9}"#)?.code, .invalidArguments, "an exact date that disagrees")
        XCTAssertEqual(decodeError(WireFieldValue.self, "{")?.code, .invalidArguments)
        XCTAssertEqual(decodeError(WireFieldValue.self, String(repeating: "[", count: 100_000))?.code, .invalidArguments, "nesting too deep")
    }

    // MARK: - Records

    private func party() -> WireRecord {
        var record = WireRecord(
            recordID: WireRecordID(recordName: "party", zoneID: zone),
            recordType: "Party",
            changeTag: "3",
            creationDate: Date(timeIntervalSince1970: 1_700_000_000),
            modificationDate: Date(timeIntervalSinceReferenceDate: 7.5e8 + 1.234_567e-3),
            creatorUserRecordName: "_abc",
            lastModifiedUserRecordName: "_def",
            fields: ["title": .string("Clowns"), "attendees": .int64(12)],
            encryptedFields: ["secret": .string("balloons")]
        )
        record.parent = WireReference(recordID: WireRecordID(recordName: "calendar", zoneID: zone), action: .none)
        return record
    }

    func testARecordIsCloudKitWebServicesRecordDictionary() throws {
        let text = try json(party())
        for expected in [
            #""recordName":"party""#, #""recordType":"Party""#, #""recordChangeTag":"3""#,
            #""title":{"type":"STRING","value":"Clowns"}"#, #""secret":{"isEncrypted":true,"type":"STRING","value":"balloons"}"#,
            #""created":{"timestamp":1700000000000,"userRecordName":"_abc"}"#,
            #""parent":{"action":"NONE","recordName":"calendar","zoneID":{"ownerRecordName":"_abc","zoneName":"Party"}}"#,
        ] {
            XCTAssertTrue(text.contains(expected), "\(expected) not in \(text)")
        }
        try roundTrip(party())
    }

    func testAShareRecordCarriesItsPermissionAndParticipants() throws {
        var share = WireRecord(recordID: WireRecordID(recordName: "share", zoneID: zone), recordType: "cloudkit.share")
        share.shareInfo = WireShareInfo(publicPermission: .readOnly, url: "https://stratus.invalid/share/abc", participants: [
            WireShareParticipant(
                participantID: "p1",
                identity: WireUserIdentity(userRecordName: "_abc", lookupInfo: WireUserLookupInfo(emailAddress: "john@example.com"), nameComponents: WireNameComponents(givenName: "John")),
                role: .owner, acceptanceStatus: .accepted, permission: .readWrite
            ),
        ])
        let text = try json(share)
        XCTAssertTrue(text.contains(#""publicPermission":"READ_ONLY""#), text)
        XCTAssertTrue(text.contains(#""type":"OWNER""#), text)
        XCTAssertTrue(text.contains(#""acceptanceStatus":"ACCEPTED""#), text)
        try roundTrip(share)
    }

    func testARecordFromCloudKitWebServicesDecodes() throws {
        let text = #"""
        {"recordName":"E621E1F8","recordType":"Artist","recordChangeTag":"ib8tqdbr","deleted":false,
         "fields":{"firstName":{"value":"Mei","type":"STRING"},"born":{"value":1311292800000,"type":"TIMESTAMP"},
                   "photo":{"value":{"fileChecksum":"AX9ae","size":5232,"downloadURL":"https://cvws.icloud-content.com/B/x/${f}?o=1"},"type":"ASSETID"}},
         "created":{"timestamp":1446163441548,"userRecordName":"_d1ce","deviceID":"iCloud"},
         "modified":{"timestamp":1446163441548,"userRecordName":"_d1ce","deviceID":"iCloud"},"pluginFields":{}}
        """#
        let record = try WireJSON.decode(WireRecord.self, from: Data(text.utf8))
        XCTAssertEqual(record.recordID, WireRecordID(recordName: "E621E1F8"))
        XCTAssertEqual(record.fields["firstName"], .string("Mei"))
        XCTAssertEqual(record.fields["born"], .date(Date(timeIntervalSince1970: 1_311_292_800)))
        XCTAssertEqual(record.creatorUserRecordName, "_d1ce")
        XCTAssertEqual(record.creationDate, Date(timeIntervalSince1970: 1_446_163_441.548))
    }

    func testFieldsSentEmptyOrNullAreTheFieldsASaveClears() throws {
        let text = #"{"recordName":"a","recordType":"Note","fields":{"gone":{},"alsoGone":{"value":null},"secret":{"isEncrypted":true},"kept":{"value":"x"}}}"#
        let body = try WireJSON.decode(JSONRecordBody.self, from: Data(text.utf8))
        XCTAssertEqual(body.removedKeys.sorted(), ["alsoGone", "gone"])
        XCTAssertEqual(body.removedEncryptedKeys, ["secret"])
        XCTAssertEqual(body.record.fields, ["kept": .string("x")])
    }

    func testARecordWithoutANameOrTypeIsInvalidArgumentsNamingTheKey() {
        let error = decodeError(WireRecord.self, #"{"recordType":"Note"}"#)
        XCTAssertEqual(error?.code, .invalidArguments)
        XCTAssertTrue(error?.message.contains("'recordName'") == true, error?.message ?? "")
        let nested = decodeError(WireRecord.self, #"{"recordName":"a","recordType":"Note","fields":{"n":{"value":true,"type":"INT64"}}}"#)
        XCTAssertTrue(nested?.message.contains("fields.n.value") == true, nested?.message ?? "")
    }

    // MARK: - Zones and errors

    func testAZoneIsCloudKitWebServicesZoneDictionaryWithItsCapabilities() throws {
        let zone = WireZone(zoneID: self.zone, capabilities: [.fetchChanges, .atomic, .sharing])
        XCTAssertEqual(try json(zone), #"{"atomic":true,"capabilities":["FETCH_CHANGES","ATOMIC","SHARING"],"zoneID":{"ownerRecordName":"_abc","zoneName":"Party"}}"#)
        try roundTrip(zone)
        let fromApple = try WireJSON.decode(WireZone.self, from: Data(#"{"zoneID":{"zoneName":"Party","ownerRecordName":"_abc","zoneType":"REGULAR_CUSTOM_ZONE"},"atomic":true}"#.utf8))
        XCTAssertEqual(fromApple.capabilities, .atomic)
        XCTAssertEqual(try WireJSON.decode(WireZoneID.self, from: Data("{}".utf8)), .defaultZone)
    }

    func testAnErrorIsCloudKitWebServicesEnvelopeWithItsExactCode() throws {
        let conflict = WireError(.serverRecordChanged, "the record changed", serverRecord: party())
        let text = try json(conflict)
        XCTAssertTrue(text.contains(#""serverErrorCode":"CONFLICT""#), text)
        XCTAssertTrue(text.contains(#""reason":"the record changed""#), text)
        XCTAssertTrue(text.contains(#""ckErrorCode":14"#), text)
        XCTAssertEqual(try WireJSON.decode(WireError.self, from: Data(text.utf8)), conflict)

        let zoneBusy = WireError(.zoneBusy, "busy", retryAfter: 2.5)
        XCTAssertTrue(try json(zoneBusy).contains(#""serverErrorCode":"TRY_AGAIN_LATER""#))
        XCTAssertEqual(try WireJSON.decode(WireError.self, from: try WireJSON.encode(zoneBusy)), zoneBusy, "the exact code survives")
    }

    func testAnErrorFromAppleMapsToTheCloudKitCodeTheReferenceNames() throws {
        let cases: [(String, CKErrorCode)] = [
            ("ACCESS_DENIED", .permissionFailure), ("ATOMIC_ERROR", .batchRequestFailed), ("AUTHENTICATION_FAILED", .notAuthenticated),
            ("AUTHENTICATION_REQUIRED", .notAuthenticated), ("BAD_REQUEST", .invalidArguments), ("CONFLICT", .serverRecordChanged),
            ("EXISTS", .serverRecordChanged), ("INTERNAL_ERROR", .internalError), ("NOT_FOUND", .unknownItem),
            ("QUOTA_EXCEEDED", .quotaExceeded), ("THROTTLED", .requestRateLimited), ("TRY_AGAIN_LATER", .serviceUnavailable),
            ("VALIDATING_REFERENCE_ERROR", .referenceViolation), ("ZONE_NOT_FOUND", .zoneNotFound), ("UNIQUE_FIELD_ERROR", .constraintViolation),
        ]
        for (name, code) in cases {
            let error = try WireJSON.decode(WireError.self, from: Data(#"{"uuid":"u","serverErrorCode":"\#(name)","reason":"r"}"#.utf8))
            XCTAssertEqual(error.code, code, name)
        }
        let throttled = try WireJSON.decode(WireError.self, from: Data(#"{"serverErrorCode":"THROTTLED","reason":"slow down","retryAfter":3}"#.utf8))
        XCTAssertEqual(throttled.retryAfter, 3)
        XCTAssertEqual(decodeError(WireError.self, #"{"serverErrorCode":"NO_SUCH_CODE","reason":"r"}"#)?.code, .invalidArguments)
        XCTAssertEqual(decodeError(WireError.self, #"{"serverErrorCode":"THROTTLED","retryAfter":-1}"#)?.code, .invalidArguments)
    }
}
