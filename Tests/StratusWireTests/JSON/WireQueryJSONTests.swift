import Foundation
@testable import StratusWire
import XCTest

/// The JSON of queries: CloudKit Web Services' `{recordType, filterBy, sortBy}` wherever its
/// filters say the predicate exactly, the Stratus predicate tree under `stratusPredicate`
/// otherwise; `records/query` requests and responses; every predicate comes back exactly, and
/// anything else (however deep) is `invalidArguments` naming the key.
final class WireQueryJSONTests: XCTestCase {
    private let zone = WireZoneID(zoneName: "Party", ownerName: "_abc")
    private let context = WireRequestContext(containerIdentifier: "iCloud.com.example.clowns", database: .private, deviceID: "device-1", sessionToken: "session-9", operationID: "op-3", qualityOfService: .userInitiated)
    private let paris = WireLocation(latitude: 48.85, longitude: 2.35, altitude: 35, horizontalAccuracy: 5, verticalAccuracy: 3, course: 90, speed: 1.5, timestamp: Date(timeIntervalSince1970: 1_700_000_000))

    private func reference(_ name: String) -> WireFieldValue {
        .reference(WireReference(recordID: WireRecordID(recordName: name, zoneID: zone), action: .none))
    }

    /// A radius whose kilometres do not survive `* 1000 / 1000`.
    private func inexactKilometres() throws -> Double {
        let kilometres = 0.150_700_001
        XCTAssertNotEqual(kilometres * 1000 / 1000, kilometres)
        return kilometres
    }

    /// One predicate of every case, alone and combined, CKWS-expressible or not.
    private func everyPredicate() throws -> [WirePredicate] {
        let title = WireQueryField.field("title")
        let inexactDate = Date(timeIntervalSinceReferenceDate: 7.5e8 + 1.234_567e-3)
        var predicates: [WirePredicate] = [.constant(true), .constant(false)]
        predicates += [
            .compare(title, .equal, .value(.string("Clowns"))), .compare(.field("n"), .notEqual, .value(.int64(.max))),
            .compare(.field("d"), .less, .value(.double(-0.5))), .compare(.creationDate, .lessOrEqual, .value(.date(inexactDate))),
            .compare(.modificationDate, .greater, .now), .compare(.field("b"), .greaterOrEqual, .value(.bytes(Data([0, 255])))),
        ]
        predicates += [
            .compare(.recordID, .equal, .value(reference("party"))), .compare(.creatorUserRecordID, .equal, .value(reference("_abc"))),
            .compare(.lastModifiedUserRecordID, .notEqual, .value(reference("_def"))), .compare(.parent, .equal, .value(reference("calendar"))),
            .compare(.share, .equal, .value(reference("share"))), .compare(.field("tags"), .equal, .value(.list([.string("a"), .string("b")]))),
            .compare(.field("recordName"), .equal, .value(.string("a field that only looks like a system one"))),
        ]
        predicates += [
            .between(.field("n"), .value(.int64(1)), .value(.int64(9))), .between(.creationDate, .value(.date(inexactDate)), .now),
            .isIn(title, [.string("a"), .string("b")]), .isIn(title, []), .isIn(.field("likes"), [.int64(1), .double(2.5)]),
        ]
        predicates += [
            .listContains(.field("tags"), .string("red")), .listContains(.field("refs"), reference("r")),
            .listContainsAny(.field("tags"), [.string("red"), .string("blue")]), .listContainsAny(.field("n"), [.int64(1), .double(1)]),
            .beginsWith(title, "Clo"), .listMemberBeginsWith(.field("tags"), "re"),
        ]
        predicates += [
            .tokens(.all, ["clown", "party"]), .tokens(.any, ["clown"]), .tokens(.all, []), .tokens(.any, ["Not Normalized", ""]),
            .near(.field("where"), center: paris, kilometres: 5, inclusive: false),
            .near(.field("where"), center: paris, kilometres: 5, inclusive: true),
            .near(.field("where"), center: paris, kilometres: try inexactKilometres(), inclusive: false),
        ]
        let leaves = predicates
        for leaf in leaves where !(leaf == .constant(true) || leaf == .constant(false)) {
            predicates.append(.not(leaf))
        }
        let (a, b, c) = (leaves[2], leaves[3], leaves[4])
        predicates += [.not(.constant(true)), .not(.not(.isIn(title, [.string("a")]))), .not(.and([a, b]))]
        predicates += [.and([a, b]), .and([a, .not(leaves[17]), leaves[24]]), .and([a]), .and([])]
        predicates += [.and([.and([a, b]), c]), .and([a, .constant(true)]), .and([a, .not(a)])]
        predicates.append(.and(leaves.filter { $0 != .constant(true) && $0 != .constant(false) }))
        return predicates
    }

    // MARK: - Round trips

    func testEveryPredicateComesBackExactlyInAQueryAndAlone() throws {
        for predicate in try everyPredicate() {
            let query = WireQuery(recordType: "Party", predicate: predicate, sortDescriptors: [WireSortDescriptor(field: .field("start"), ascending: false)])
            let text = try json(query)
            XCTAssertEqual(try WireJSON.decode(WireQuery.self, from: Data(text.utf8)), query, text)
            XCTAssertEqual(try WireJSON.decode(WirePredicate.self, from: try WireJSON.encode(predicate)), predicate, "\(predicate)")
            // One encoding: filterBy exactly when CKWS can say it, the tree otherwise.
            XCTAssertNotEqual(text.contains(#""filterBy""#), text.contains(#""stratusPredicate""#), text)
            XCTAssertEqual(text.contains(#""filterBy""#), predicate.isExpressibleAsCloudKitWebServicesFilters, text)
        }
    }

    func testWhatCloudKitWebServicesCanSayTravelsAsFilterByAndTheRestAsTheStratusTree() throws {
        let title = WireQueryField.field("title")
        let expressible: [WirePredicate] = [
            .constant(true), .compare(title, .equal, .value(.string("a"))), .not(.isIn(title, [.string("a")])),
            .not(.beginsWith(title, "a")), .not(.listContains(title, .string("a"))), .not(.listContainsAny(title, [.string("a")])),
            .not(.listMemberBeginsWith(title, "a")), .tokens(.all, ["clown"]), .near(title, center: paris, kilometres: 2, inclusive: false),
            .and([.compare(title, .equal, .value(.string("a"))), .beginsWith(title, "b")]),
        ]
        for predicate in expressible {
            XCTAssertTrue(predicate.isExpressibleAsCloudKitWebServicesFilters, "\(predicate)")
        }
        let notExpressible: [WirePredicate] = [
            .constant(false), .and([]), .and([.beginsWith(title, "a")]), .not(.compare(title, .equal, .value(.string("a")))),
            .not(.not(.beginsWith(title, "a"))), .between(title, .value(.int64(1)), .value(.int64(2))), .compare(title, .less, .now),
            .isIn(title, [.int64(1), .double(2)]), .tokens(.all, ["Clown"]), .near(title, center: paris, kilometres: 2, inclusive: true),
            .near(title, center: paris, kilometres: try inexactKilometres(), inclusive: false),
            .and([.and([.beginsWith(title, "a"), .beginsWith(title, "b")]), .beginsWith(title, "c")]),
        ]
        for predicate in notExpressible {
            XCTAssertFalse(predicate.isExpressibleAsCloudKitWebServicesFilters, "\(predicate)")
        }
    }

    func testSortDescriptorsComeBackExactly() throws {
        let descriptors = [
            WireSortDescriptor(field: .field("start"), ascending: true),
            WireSortDescriptor(field: .creationDate, ascending: false),
            WireSortDescriptor(field: .field("where"), ascending: true, relativeLocation: paris),
        ]
        let query = WireQuery(recordType: "Party", predicate: .constant(true), sortDescriptors: descriptors)
        XCTAssertEqual(try WireJSON.decode(WireQuery.self, from: try WireJSON.encode(query)), query)
    }

    func testAPredicateAtTheDepthLimitComesBackAndOneDeeperIsNotEncoded() throws {
        var predicate = WirePredicate.compare(.field("a"), .equal, .value(.int64(1)))
        for _ in 0..<WirePredicate.maximumDepth { predicate = .not(predicate) }
        XCTAssertEqual(try WireJSON.decode(WirePredicate.self, from: try WireJSON.encode(predicate)), predicate)
        XCTAssertThrowsError(try WireJSON.encode(WirePredicate.not(predicate)))
        XCTAssertThrowsError(try WireJSON.encode(WireQuery(recordType: "Party", predicate: .not(predicate))))
    }

    func testAValueNoFieldValueJSONCanCarryIsNotEncoded() {
        let nested = WirePredicate.compare(.field("a"), .equal, .value(.list([.list([.int64(1)])])))
        XCTAssertThrowsError(try WireJSON.encode(WireQuery(recordType: "Party", predicate: nested)))
        let mixed = WirePredicate.listContains(.field("a"), .list([.int64(1), .string("x")]))
        XCTAssertThrowsError(try WireJSON.encode(mixed))
    }

    // MARK: - Golden JSON

    func testAQueryIsCloudKitWebServicesQueryDictionary() throws {
        let query = WireQuery(
            recordType: "Party",
            predicate: .and([
                .compare(.field("title"), .equal, .value(.string("Clowns"))),
                .compare(.creationDate, .greater, .value(.date(Date(timeIntervalSince1970: 1_700_000_000)))),
                .not(.isIn(.field("city"), [.string("Paris"), .string("Rome")])),
                .tokens(.all, ["red", "nose"]),
                .compare(.recordID, .equal, .value(reference("party"))),
            ]),
            sortDescriptors: [WireSortDescriptor(field: .field("start"), ascending: false), WireSortDescriptor(field: .modificationDate, ascending: true)]
        )
        let expected = #"{"filterBy":["#
            + #"{"comparator":"EQUALS","fieldName":"title","fieldValue":{"type":"STRING","value":"Clowns"}},"#
            + #"{"comparator":"GREATER_THAN","fieldValue":{"type":"TIMESTAMP","value":1700000000000},"systemFieldName":"createdTimestamp"},"#
            + #"{"comparator":"NOT_IN","fieldName":"city","fieldValue":{"type":"STRING_LIST","value":["Paris","Rome"]}},"#
            + #"{"comparator":"CONTAINS_ALL_TOKENS","fieldName":"allTokens","fieldValue":{"type":"STRING","value":"red nose"}},"#
            + #"{"comparator":"EQUALS","fieldValue":{"type":"REFERENCE","value":{"action":"NONE","recordName":"party","zoneID":{"ownerRecordName":"_abc","zoneName":"Party"}}},"systemFieldName":"recordName"}"#
            + #"],"recordType":"Party","sortBy":[{"ascending":false,"fieldName":"start"},{"ascending":true,"systemFieldName":"modifiedTimestamp"}]}"#
        XCTAssertEqual(try json(query), expected)
        XCTAssertEqual(try json(WireQuery(recordType: "Party", predicate: .constant(true))), #"{"filterBy":[],"recordType":"Party","sortBy":[]}"#)
    }

    func testNearIsCloudKitWebServicesNearFilterWithItsDistanceInMetres() throws {
        let center = WireLocation(latitude: 48.5, longitude: 2.25, timestamp: Date(timeIntervalSince1970: 0))
        let query = WireQuery(
            recordType: "Party",
            predicate: .near(.field("where"), center: center, kilometres: 1.5, inclusive: false),
            sortDescriptors: [WireSortDescriptor(field: .field("where"), ascending: true, relativeLocation: center)]
        )
        let location = #"{"altitude":0,"course":-1,"horizontalAccuracy":0,"latitude":48.5,"longitude":2.25,"speed":-1,"timestamp":0,"verticalAccuracy":-1}"#
        XCTAssertEqual(try json(query), #"{"filterBy":[{"comparator":"NEAR","distance":1500,"fieldName":"where","fieldValue":{"type":"LOCATION","value":\#(location)}}],"#
            + #""recordType":"Party","sortBy":[{"ascending":true,"fieldName":"where","relativeLocation":{"type":"LOCATION","value":\#(location)}}]}"#)
    }

    func testWhatCloudKitWebServicesCannotSayIsTheStratusPredicateTree() throws {
        let predicate = WirePredicate.not(.and([
            .between(.field("n"), .value(.int64(1)), .now),
            .isIn(.field("likes"), [.int64(1), .double(2.5)]),
            .near(.field("where"), center: WireLocation(latitude: 1, longitude: 2, timestamp: Date(timeIntervalSince1970: 0)), kilometres: 0.25, inclusive: true),
            .constant(false),
            .not(.compare(.field("a"), .equal, .value(.int64(1)))),
        ]))
        let location = #"{"altitude":0,"course":-1,"horizontalAccuracy":0,"latitude":1,"longitude":2,"speed":-1,"timestamp":0,"verticalAccuracy":-1}"#
        let expected = #"{"recordType":"Party","sortBy":[],"stratusPredicate":{"comparator":"NOT","filter":{"comparator":"AND","filters":["#
            + #"{"comparator":"BETWEEN","fieldName":"n","lowerBound":{"type":"INT64","value":1},"upperBound":{"function":"NOW"}},"#
            + #"{"comparator":"IN","fieldName":"likes","fieldValues":[{"type":"INT64","value":1},{"type":"DOUBLE","value":2.5}]},"#
            + #"{"comparator":"NEAR","distance":250,"fieldName":"where","fieldValue":{"type":"LOCATION","value":\#(location)},"inclusive":true},"#
            + #"{"comparator":"FALSE"},"#
            + #"{"comparator":"NOT","filter":{"comparator":"EQUALS","fieldName":"a","fieldValue":{"type":"INT64","value":1}}}"#
            + #"]}}}"#
        XCTAssertEqual(try json(WireQuery(recordType: "Party", predicate: predicate)), expected)
    }

    func testAQueryRequestIsTheRecordsQueryBodyWithoutItsContext() throws {
        let request = WireQueryRequest(
            context: context,
            query: WireQuery(recordType: "Party", predicate: .beginsWith(.field("title"), "Clo")),
            zoneID: zone, cursor: [1, 2, 3, 250], resultsLimit: 50, desiredKeys: ["title"]
        )
        let text = try json(request)
        XCTAssertEqual(text, #"{"continuationMarker":"AQID+g==","desiredKeys":["title"],"#
            + #""query":{"filterBy":[{"comparator":"BEGINS_WITH","fieldName":"title","fieldValue":{"type":"STRING","value":"Clo"}}],"recordType":"Party","sortBy":[]},"#
            + #""resultsLimit":50,"zoneID":{"ownerRecordName":"_abc","zoneName":"Party"}}"#)
        for contextPart in ["iCloud.com.example.clowns", "device-1", "session-9", "op-3"] {
            XCTAssertFalse(text.contains(contextPart), "the context is not in the body: \(text)")
        }
        let back = try WireJSON.decode(WireQueryRequest.self, from: Data(text.utf8), context: context)
        XCTAssertEqual(back.context, context)
        XCTAssertEqual(back.query, request.query)
        XCTAssertEqual(back.zoneID, zone)
        XCTAssertEqual(back.cursor, [1, 2, 3, 250])
        XCTAssertEqual(back.resultsLimit, 50)
        XCTAssertEqual(back.desiredKeys, ["title"])
    }

    func testAQueryRequestOverEveryZoneIsZoneWideAndDefaultsAreLeftOut() throws {
        let request = WireQueryRequest(context: context, query: nil, zoneID: nil, cursor: [9], resultsLimit: 0, desiredKeys: [])
        let text = try json(request)
        XCTAssertEqual(text, #"{"continuationMarker":"CQ==","desiredKeys":[],"zoneWide":true}"#)
        let back = try WireJSON.decode(WireQueryRequest.self, from: Data(text.utf8), context: context)
        XCTAssertNil(back.zoneID)
        XCTAssertNil(back.query)
        XCTAssertEqual(back.resultsLimit, 0)
        XCTAssertEqual(back.desiredKeys, [])
        let defaults = try WireJSON.decode(WireQueryRequest.self, from: Data("{}".utf8), context: context)
        XCTAssertEqual(defaults.zoneID, .defaultZone, "no zoneID and no zoneWide is CKWS's default zone")
        XCTAssertNil(defaults.desiredKeys)
        XCTAssertNil(defaults.cursor)
    }

    func testAQueryResponseIsRecordsAndAContinuationMarkerOnlyWhileMoreMatch() throws {
        let record = WireRecord(recordID: WireRecordID(recordName: "party", zoneID: zone), recordType: "Party", changeTag: "3", fields: ["title": .string("Clowns")])
        let last = WireQueryResponse(records: [record], cursor: nil)
        XCTAssertEqual(try json(last), #"{"records":[{"fields":{"title":{"type":"STRING","value":"Clowns"}},"recordChangeTag":"3","recordName":"party","recordType":"Party","zoneID":{"ownerRecordName":"_abc","zoneName":"Party"}}]}"#)
        let more = WireQueryResponse(records: [record, record], cursor: Array(0...255))
        let back = try WireJSON.decode(WireQueryResponse.self, from: try WireJSON.encode(more))
        XCTAssertEqual(back.records, more.records)
        XCTAssertEqual(back.cursor, more.cursor)
        XCTAssertNil(try WireJSON.decode(WireQueryResponse.self, from: try WireJSON.encode(last)).cursor)
    }

    // MARK: - CloudKit Web Services input

    func testARecordsQueryBodyWrittenForCloudKitWebServicesDecodes() throws {
        let text = #"""
        {"zoneID": {"zoneName": "_defaultZone"}, "resultsLimit": 10, "numbersAsStrings": false, "desiredKeys": ["title", "price"],
         "query": {"recordType": "Artwork",
           "filterBy": [
             {"comparator": "EQUALS", "fieldName": "artist", "fieldValue": {"value": {"recordName": "Mei", "action": "NONE"}, "type": "REFERENCE"}},
             {"systemFieldName": "createdTimestamp", "comparator": "GREATER_THAN", "fieldValue": {"value": 1446163441548, "type": "TIMESTAMP"}},
             {"comparator": "IN", "fieldName": "medium", "fieldValue": {"value": ["oil", "acrylic"], "type": "STRING_LIST"}},
             {"comparator": "NEAR", "fieldName": "location", "fieldValue": {"value": {"latitude": 37.5, "longitude": -122.25}}, "distance": 1500},
             {"comparator": "CONTAINS_ALL_TOKENS", "fieldName": "allTokens", "fieldValue": {"value": "The Starry Night"}},
             {"comparator": "LIST_CONTAINS_ALL", "fieldName": "tags", "fieldValue": {"value": ["blue", "night"], "type": "STRING_LIST"}},
             {"comparator": "NOT_LIST_MEMBER_BEGINS_WITH", "fieldName": "tags", "fieldValue": {"value": "dra"}}
           ],
           "sortBy": [{"fieldName": "price", "ascending": false},
                      {"fieldName": "location", "relativeLocation": {"value": {"latitude": 37.5, "longitude": -122.25}, "type": "LOCATION"}}]},
         "continuationMarker": "AQID"}
        """#
        let request = try WireJSON.decode(WireQueryRequest.self, from: Data(text.utf8), context: context)
        let center = WireLocation(latitude: 37.5, longitude: -122.25)
        XCTAssertEqual(request.zoneID, .defaultZone)
        XCTAssertEqual(request.resultsLimit, 10)
        XCTAssertEqual(request.desiredKeys, ["title", "price"])
        XCTAssertEqual(request.cursor, [1, 2, 3])
        XCTAssertEqual(request.query, WireQuery(
            recordType: "Artwork",
            predicate: .and([
                .compare(.field("artist"), .equal, .value(.reference(WireReference(recordID: WireRecordID(recordName: "Mei"), action: .none)))),
                .compare(.creationDate, .greater, .value(.date(Date(timeIntervalSince1970: 1_446_163_441.548)))),
                .isIn(.field("medium"), [.string("oil"), .string("acrylic")]),
                .near(.field("location"), center: center, kilometres: 1.5, inclusive: false),
                .tokens(.all, ["starry", "night"]),
                .and([.listContains(.field("tags"), .string("blue")), .listContains(.field("tags"), .string("night"))]),
                .not(.listMemberBeginsWith(.field("tags"), "dra")),
            ]),
            sortDescriptors: [
                WireSortDescriptor(field: .field("price"), ascending: false),
                WireSortDescriptor(field: .field("location"), ascending: true, relativeLocation: center),
            ]
        ))
    }

    func testAQueryWithoutFiltersOrOrderMatchesEveryRecordOfTheType() throws {
        let query = try WireJSON.decode(WireQuery.self, from: Data(#"{"recordType":"Party"}"#.utf8))
        XCTAssertEqual(query, WireQuery(recordType: "Party", predicate: .constant(true)))
        let single = try WireJSON.decode(WireQuery.self, from: Data(#"{"recordType":"Party","filterBy":[{"comparator":"NOT_EQUALS","systemFieldName":"___recordId","fieldValue":{"value":{"recordName":"x"},"type":"REFERENCE"}}]}"#.utf8))
        XCTAssertEqual(single.predicate, .compare(.recordID, .notEqual, .value(.reference(WireReference(recordID: WireRecordID(recordName: "x"), action: .none)))))
    }

    func testTheStratusTreeWinsOverFilterByWhenBothAreSent() throws {
        let text = #"{"recordType":"Party","filterBy":[],"stratusPredicate":{"comparator":"FALSE"}}"#
        XCTAssertEqual(try WireJSON.decode(WireQuery.self, from: Data(text.utf8)).predicate, .constant(false))
    }

    // MARK: - Malformed input

    func testMalformedQueriesAreInvalidArgumentsNamingTheKey() {
        let body = { (filter: String) in #"{"query":{"recordType":"Party","filterBy":[\#(filter)]}}"# }
        assertInvalid(decodeError(WireQueryRequest.self, #"{"query":{"filterBy":[]}}"#, context: context), naming: "query.recordType")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"LIKE","fieldName":"a","fieldValue":{"value":1}}"#), context: context), naming: "query.filterBy[0].comparator")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"fieldName":"a","fieldValue":{"value":1}}"#), context: context), naming: "query.filterBy[0].comparator")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"EQUALS","fieldValue":{"value":1}}"#), context: context), naming: "query.filterBy[0].fieldName")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"EQUALS","fieldName":"a"}"#), context: context), naming: "query.filterBy[0].fieldValue")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"EQUALS","systemFieldName":"owner","fieldValue":{"value":1}}"#), context: context), naming: "query.filterBy[0].systemFieldName")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"EQUALS","fieldName":"a","systemFieldName":"parent","fieldValue":{"value":1}}"#), context: context), naming: "systemFieldName")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"IN","fieldName":"a","fieldValue":{"value":1}}"#), context: context), naming: "query.filterBy[0].fieldValue")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"BEGINS_WITH","fieldName":"a","fieldValue":{"value":1}}"#), context: context), naming: "query.filterBy[0].fieldValue")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"NEAR","fieldName":"a","fieldValue":{"value":{"latitude":1,"longitude":2}}}"#), context: context), naming: "query.filterBy[0].distance")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"NEAR","fieldName":"a","fieldValue":{"value":"here"},"distance":1}"#), context: context), naming: "query.filterBy[0].fieldValue")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"CONTAINS_ANY_TOKENS","fieldName":"title","fieldValue":{"value":"a"}}"#), context: context), naming: "query.filterBy[0].fieldName")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"EQUALS","fieldName":"a","fieldValue":{"function":"TOMORROW"}}"#), context: context), naming: "query.filterBy[0].fieldValue.function")
        assertInvalid(decodeError(WireQueryRequest.self, body(#"{"comparator":"EQUALS","fieldName":"a","fieldValue":{"value":"x","type":"BOOLEAN"}}"#), context: context), naming: "query.filterBy[0].fieldValue.type")
        assertInvalid(decodeError(WireQueryRequest.self, body(#""EQUALS""#), context: context), naming: "query.filterBy[0]")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"query":{"recordType":"Party","filterBy":{}}}"#, context: context), naming: "query.filterBy")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"query":{"recordType":"Party","sortBy":[{"ascending":true}]}}"#, context: context), naming: "query.sortBy[0].fieldName")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"query":{"recordType":"Party","sortBy":[{"fieldName":"a","ascending":"yes"}]}}"#, context: context), naming: "query.sortBy[0].ascending")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"query":{"recordType":"Party","sortBy":[{"fieldName":"a","relativeLocation":{"value":"x"}}]}}"#, context: context), naming: "query.sortBy[0].relativeLocation")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"query":{"recordType":"Party","stratusPredicate":{"comparator":"NOT"}}}"#, context: context), naming: "query.stratusPredicate.filter")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"query":{"recordType":"Party","stratusPredicate":{"comparator":"AND","filters":[{"comparator":"MAYBE"}]}}}"#, context: context), naming: "query.stratusPredicate.filters[0].comparator")
    }

    func testMalformedQueryRequestsAreInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireQueryRequest.self, #"{"resultsLimit":"ten"}"#, context: context), naming: "resultsLimit")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"resultsLimit":1e30}"#, context: context), naming: "resultsLimit")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"resultsLimit":2.5}"#, context: context), naming: "resultsLimit")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"resultsLimit":99999999999999999999999}"#, context: context), naming: "resultsLimit")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"continuationMarker":"not base64!"}"#, context: context), naming: "continuationMarker")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"continuationMarker":12}"#, context: context), naming: "continuationMarker")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"zoneID":"Party"}"#, context: context), naming: "zoneID")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"zoneWide":"yes"}"#, context: context), naming: "zoneWide")
        assertInvalid(decodeError(WireQueryRequest.self, #"{"desiredKeys":[1]}"#, context: context), naming: "desiredKeys[0]")
        assertInvalid(decodeError(WireQueryRequest.self, "[]", context: context), naming: "top level")
        assertInvalid(decodeError(WireQueryResponse.self, #"{"records":[{"recordType":"Party"}]}"#, context: context), naming: "records[0].recordName")
        assertInvalid(decodeError(WireQueryResponse.self, #"{}"#, context: context), naming: "records")
        XCTAssertEqual(decodeError(WireQueryRequest.self, "{}")?.code, .invalidArguments, "a request decodes only with its context")
    }

    func testMangledQueryBodiesDecodeOrAreInvalidArgumentsNeverACrash() throws {
        let predicate = WirePredicate.and([
            .compare(.field("title"), .equal, .value(.string("Clowns"))), .not(.isIn(.creationDate, [.date(Date(timeIntervalSince1970: 1))])),
            .near(.field("where"), center: paris, kilometres: 1, inclusive: false), .tokens(.any, ["red"]),
        ])
        let requests = [
            WireQueryRequest(context: context, query: WireQuery(recordType: "Party", predicate: predicate, sortDescriptors: [WireSortDescriptor(field: .field("where"), ascending: true, relativeLocation: paris)]), zoneID: zone, cursor: [1, 2], resultsLimit: 5, desiredKeys: ["a"]),
            WireQueryRequest(context: context, query: WireQuery(recordType: "Party", predicate: .not(.and([predicate, .between(.field("n"), .now, .value(.int64(3)))])))),
        ]
        for request in requests {
            assertMangledCopiesDecodeOrAreInvalid(WireQueryRequest.self, try json(request), context: context)
        }
    }

    // MARK: - Depth

    private func nots(_ count: Int, around leaf: String = #"{"comparator":"TRUE"}"#) -> String {
        String(repeating: #"{"comparator":"NOT","filter":"#, count: count) + leaf + String(repeating: "}", count: count)
    }

    func testATreeAtTheDepthLimitDecodesAndOneLevelDeeperIsInvalidArguments() throws {
        let limit = WirePredicate.maximumDepth
        let atLimit = try WireJSON.decode(WireQuery.self, from: Data(#"{"recordType":"P","stratusPredicate":\#(nots(limit))}"#.utf8))
        XCTAssertEqual(atLimit.predicate.depth(), limit)
        assertInvalid(decodeError(WireQuery.self, #"{"recordType":"P","stratusPredicate":\#(nots(limit + 1))}"#), naming: "stratusPredicate")
        // The list of an IN aggregate is a level too, though the decoder did not descend into it.
        let inside = #"{"comparator":"IN","fieldName":"a","fieldValue":{"value":[1],"type":"INT64_LIST"}}"#
        XCTAssertNoThrow(try WireJSON.decode(WireQuery.self, from: Data(#"{"recordType":"P","stratusPredicate":\#(nots(limit - 1, around: inside))}"#.utf8)))
        assertInvalid(decodeError(WireQuery.self, #"{"recordType":"P","stratusPredicate":\#(nots(limit, around: inside))}"#), naming: "more than \(limit) levels")
        assertInvalid(decodeError(WireQuery.self, #"{"recordType":"P","filterBy":[\#(nots(limit + 1))]}"#), naming: "filterBy")
    }

    func testJSONThousandsOfLevelsDeepIsInvalidArgumentsNotACrash() {
        for depth in [500, 10_000] {
            let tree = nots(depth)
            XCTAssertEqual(decodeError(WireQuery.self, #"{"recordType":"P","stratusPredicate":\#(tree)}"#)?.code, .invalidArguments, "\(depth)")
            XCTAssertEqual(decodeError(WireQuery.self, #"{"recordType":"P","filterBy":[\#(tree)]}"#)?.code, .invalidArguments, "\(depth)")
            XCTAssertEqual(decodeError(WirePredicate.self, tree)?.code, .invalidArguments, "\(depth)")
            let ands = String(repeating: #"{"comparator":"AND","filters":["#, count: depth) + String(repeating: "]}", count: depth)
            XCTAssertEqual(decodeError(WirePredicate.self, ands)?.code, .invalidArguments, "\(depth)")
            let requestTree = #"{"query":{"recordType":"P","stratusPredicate":\#(tree)}}"#
            XCTAssertEqual(decodeError(WireQueryRequest.self, requestTree, context: context)?.code, .invalidArguments, "\(depth)")
        }
    }
}
