import Foundation
@testable import StratusWire
import XCTest

/// The JSON of subscriptions: CloudKit Web Services' subscription dictionary (with `database`
/// subscriptions and the native-only properties as Stratus extensions), its notification info,
/// and the `subscriptions/list`, `lookup` and `modify` bodies; every subscription comes back
/// exactly, and anything else is `invalidArguments` naming the key.
final class WireSubscriptionJSONTests: XCTestCase {
    private let zone = WireZoneID(zoneName: "Party", ownerName: "_abc")
    private let context = WireRequestContext(containerIdentifier: "iCloud.com.example.clowns", database: .public, deviceID: "device-1", sessionToken: "session-9")

    private func roundTrip<Value: Codable & Equatable>(_ value: Value, file: StaticString = #filePath, line: UInt = #line) throws {
        let back = try WireJSON.decode(Value.self, from: try WireJSON.encode(value))
        XCTAssertEqual(back, value, file: file, line: line)
    }

    private let fullInfo = WireNotificationInfo(
        alertBody: "A new party", alertLocalizationKey: "NEW_PARTY", alertLocalizationArgs: ["title", "city"],
        title: "Parties", titleLocalizationKey: "PARTIES", titleLocalizationArgs: [],
        subtitle: "Nearby", subtitleLocalizationKey: "NEARBY", subtitleLocalizationArgs: ["city"],
        alertActionLocalizationKey: "OPEN", alertLaunchImage: "launch.png", soundName: "honk.caf",
        desiredKeys: ["title", "start"], shouldBadge: true, shouldSendContentAvailable: true,
        shouldSendMutableContent: true, category: "PARTY", collapseIDKey: "title"
    )

    private func partySubscription() -> WireSubscription {
        WireSubscription(
            subscriptionID: "parties",
            kind: .query,
            recordType: "Party",
            predicate: .and([.compare(.field("city"), .equal, .value(.string("Paris"))), .beginsWith(.field("title"), "Clo")]),
            zoneID: zone,
            queryOptions: [.firesOnRecordCreation, .firesOnRecordDeletion, .firesOnce],
            notificationInfo: WireNotificationInfo(alertBody: "A new party", desiredKeys: ["title"], shouldBadge: true, category: "PARTY")
        )
    }

    // MARK: - Round trips

    func testEveryKindOfSubscriptionComesBackExactly() throws {
        let subscriptions = [
            partySubscription(),
            WireSubscription(subscriptionID: "all", kind: .query, recordType: "Party", predicate: .constant(true), queryOptions: [.firesOnRecordUpdate]),
            WireSubscription(subscriptionID: "tree", kind: .query, recordType: "Party", predicate: .between(.field("n"), .value(.int64(1)), .now), queryOptions: .all, notificationInfo: fullInfo),
            WireSubscription(subscriptionID: "false", kind: .query, recordType: "Party", predicate: .constant(false)),
            WireSubscription(subscriptionID: "no predicate", kind: .query, recordType: "Party"),
            WireSubscription(subscriptionID: "bare query", kind: .query),
            WireSubscription(subscriptionID: "predicate, no type", kind: .query, predicate: .beginsWith(.field("t"), "a")),
            WireSubscription(subscriptionID: "zone", kind: .recordZone, zoneID: zone, notificationInfo: WireNotificationInfo(shouldSendContentAvailable: true)),
            WireSubscription(subscriptionID: "zone of parties", kind: .recordZone, recordType: "Party", zoneID: zone),
            WireSubscription(subscriptionID: "bare zone", kind: .recordZone),
            WireSubscription(subscriptionID: "database", kind: .database, notificationInfo: WireNotificationInfo()),
            WireSubscription(subscriptionID: "database of parties", kind: .database, recordType: "Party", queryOptions: [.firesOnce]),
            WireSubscription(subscriptionID: "odd zone", kind: .recordZone, predicate: .constant(true), queryOptions: [.firesOnRecordUpdate]),
            WireSubscription(subscriptionID: "", kind: .database, recordType: ""),
        ]
        for subscription in subscriptions {
            try roundTrip(subscription)
        }
        let list = try WireJSON.decode(WireSubscriptionsListResponse.self, from: try WireJSON.encode(WireSubscriptionsListResponse(subscriptions: subscriptions)))
        XCTAssertEqual(list.subscriptions, subscriptions)
    }

    func testNotificationInfoComesBackExactlyWithNilAndEmptyListsApart() throws {
        try roundTrip(fullInfo)
        try roundTrip(WireNotificationInfo())
        try roundTrip(WireNotificationInfo(alertLocalizationArgs: [], titleLocalizationArgs: nil, subtitleLocalizationArgs: [], desiredKeys: []))
        XCTAssertEqual(try json(WireNotificationInfo()), #"{"shouldBadge":false,"shouldSendContentAvailable":false,"shouldSendMutableContent":false}"#)
    }

    func testQueryOptionsCloudKitDoesNotDefineAreNotWritten() throws {
        let subscription = WireSubscription(subscriptionID: "s", kind: .query, recordType: "Party", predicate: .constant(true), queryOptions: WireSubscription.QueryOptions(rawValue: 0b1_0000_0001))
        let back = try WireJSON.decode(WireSubscription.self, from: try WireJSON.encode(subscription))
        XCTAssertEqual(back.queryOptions, .firesOnRecordCreation)
    }

    // MARK: - Golden JSON

    func testAQuerySubscriptionIsCloudKitWebServicesSubscriptionDictionary() throws {
        XCTAssertEqual(try json(partySubscription()), #"{"firesOn":["create","delete"],"firesOnce":true,"#
            + #""notificationInfo":{"additionalFields":["title"],"alertBody":"A new party","category":"PARTY","shouldBadge":true,"shouldSendContentAvailable":false,"shouldSendMutableContent":false},"#
            + #""query":{"filterBy":[{"comparator":"EQUALS","fieldName":"city","fieldValue":{"type":"STRING","value":"Paris"}},"#
            + #"{"comparator":"BEGINS_WITH","fieldName":"title","fieldValue":{"type":"STRING","value":"Clo"}}],"recordType":"Party"},"#
            + #""subscriptionID":"parties","subscriptionType":"query","zoneID":{"ownerRecordName":"_abc","zoneName":"Party"}}"#)
        let everyZone = WireSubscription(subscriptionID: "s", kind: .query, recordType: "Party", predicate: .constant(false), queryOptions: [.firesOnRecordUpdate])
        XCTAssertEqual(try json(everyZone), #"{"firesOn":["update"],"firesOnce":false,"query":{"recordType":"Party","stratusPredicate":{"comparator":"FALSE"}},"#
            + #""subscriptionID":"s","subscriptionType":"query","zoneWide":true}"#)
    }

    func testZoneAndDatabaseSubscriptionsCarryOnlyTheirKeys() throws {
        let zoneSubscription = WireSubscription(subscriptionID: "z", kind: .recordZone, zoneID: zone, notificationInfo: WireNotificationInfo(shouldSendContentAvailable: true))
        XCTAssertEqual(try json(zoneSubscription), #"{"notificationInfo":{"shouldBadge":false,"shouldSendContentAvailable":true,"shouldSendMutableContent":false},"#
            + #""subscriptionID":"z","subscriptionType":"zone","zoneID":{"ownerRecordName":"_abc","zoneName":"Party"}}"#)
        let database = WireSubscription(subscriptionID: "d", kind: .database, recordType: "Party")
        XCTAssertEqual(try json(database), #"{"recordType":"Party","subscriptionID":"d","subscriptionType":"database"}"#)
    }

    func testSubscriptionRequestsAreTheCloudKitWebServicesBodiesWithoutTheirContext() throws {
        let lookup = WireSubscriptionsLookupRequest(context: context, ids: ["a", "b"])
        let lookupText = try json(lookup)
        XCTAssertEqual(lookupText, #"{"subscriptions":[{"subscriptionID":"a"},{"subscriptionID":"b"}]}"#)
        let lookupBack = try WireJSON.decode(WireSubscriptionsLookupRequest.self, from: Data(lookupText.utf8), context: context)
        XCTAssertEqual(lookupBack.ids, ["a", "b"])
        XCTAssertEqual(lookupBack.context, context)

        let database = WireSubscription(subscriptionID: "d", kind: .database)
        let modify = WireSubscriptionsModifyRequest(context: context, saves: [database], deletes: ["old", "older"])
        let modifyText = try json(modify)
        XCTAssertEqual(modifyText, #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"d","subscriptionType":"database"}},"#
            + #"{"operationType":"delete","subscription":{"subscriptionID":"old"}},{"operationType":"delete","subscription":{"subscriptionID":"older"}}]}"#)
        let modifyBack = try WireJSON.decode(WireSubscriptionsModifyRequest.self, from: Data(modifyText.utf8), context: context)
        XCTAssertEqual(modifyBack.saves, [database])
        XCTAssertEqual(modifyBack.deletes, ["old", "older"])
        XCTAssertEqual(modifyBack.context, context)
        for text in [lookupText, modifyText] {
            XCTAssertFalse(text.contains("device-1") || text.contains("session-9") || text.contains("iCloud.com"), text)
        }
    }

    func testSubscriptionResultsAreTheSubscriptionOrAnErrorBesideItsID() throws {
        let missing = WireError(.unknownItem, "no subscription 'gone'")
        let lookup = WireSubscriptionsLookupResponse(results: [
            WireItemResult(id: "parties", result: .success(partySubscription())),
            WireItemResult(id: "gone", result: .failure(missing)),
        ])
        let text = try json(lookup)
        XCTAssertTrue(text.hasSuffix(#"{"ckErrorCode":11,"reason":"no subscription 'gone'","serverErrorCode":"NOT_FOUND","subscriptionID":"gone"}]}"#), text)
        let back = try WireJSON.decode(WireSubscriptionsLookupResponse.self, from: Data(text.utf8))
        XCTAssertEqual(back.results.map(\.id), ["parties", "gone"])
        XCTAssertEqual(back.results.map(\.result), lookup.results.map(\.result))

        let list = WireSubscriptionsListResponse(subscriptions: [partySubscription()])
        XCTAssertEqual(try WireJSON.decode(WireSubscriptionsListResponse.self, from: try WireJSON.encode(list)).subscriptions, list.subscriptions)
    }

    func testAModifyAnswerTellsSavesFromDeletesEvenWhenTheyFail() throws {
        let database = WireSubscription(subscriptionID: "d", kind: .database)
        let response = WireSubscriptionsModifyResponse(
            saveResults: [
                WireItemResult(id: "d", result: .success(database)),
                WireItemResult(id: "bad", result: .failure(WireError(.invalidArguments, "no notification info"))),
            ],
            deleteResults: [
                WireItemResult(id: "old", result: .success(())),
                WireItemResult(id: "gone", result: .failure(WireError(.unknownItem, "no such subscription"))),
            ]
        )
        let text = try json(response)
        XCTAssertEqual(text, #"{"subscriptions":[{"operationType":"create","subscriptionID":"d","subscriptionType":"database"},"#
            + #"{"ckErrorCode":12,"operationType":"create","reason":"no notification info","serverErrorCode":"BAD_REQUEST","subscriptionID":"bad"},"#
            + #"{"deleted":true,"operationType":"delete","subscriptionID":"old"},"#
            + #"{"ckErrorCode":11,"operationType":"delete","reason":"no such subscription","serverErrorCode":"NOT_FOUND","subscriptionID":"gone"}]}"#)
        let back = try WireJSON.decode(WireSubscriptionsModifyResponse.self, from: Data(text.utf8))
        XCTAssertEqual(back.saveResults.map(\.id), ["d", "bad"])
        XCTAssertEqual(back.saveResults.map(\.result), response.saveResults.map(\.result))
        XCTAssertEqual(back.deleteResults.map(\.id), ["old", "gone"])
        XCTAssertEqual(back.deleteResults.map { $0.result.map { _ in true } }, response.deleteResults.map { $0.result.map { _ in true } })
    }

    // MARK: - CloudKit Web Services input

    func testASubscriptionWrittenForCloudKitWebServicesDecodes() throws {
        let text = #"""
        {"subscriptionID": "new-art", "subscriptionType": "query", "zoneWide": true,
         "query": {"recordType": "Artwork", "filterBy": [{"comparator": "GREATER_THAN", "fieldName": "price", "fieldValue": {"value": 100}}]},
         "firesOn": ["create", "update"], "firesOnce": false,
         "notificationInfo": {"alertBody": "New art", "alertLocalizationArgs": ["title"], "soundName": "default",
                              "shouldBadge": true, "shouldSendContentAvailable": false, "additionalFields": ["title", "price"], "category": "ART"}}
        """#
        let subscription = try WireJSON.decode(WireSubscription.self, from: Data(text.utf8))
        XCTAssertEqual(subscription, WireSubscription(
            subscriptionID: "new-art", kind: .query, recordType: "Artwork",
            predicate: .compare(.field("price"), .greater, .value(.int64(100))),
            queryOptions: [.firesOnRecordCreation, .firesOnRecordUpdate],
            notificationInfo: WireNotificationInfo(alertBody: "New art", alertLocalizationArgs: ["title"], soundName: "default", desiredKeys: ["title", "price"], shouldBadge: true, category: "ART")
        ))
        let zone = try WireJSON.decode(WireSubscription.self, from: Data(#"{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"Party"}}"#.utf8))
        XCTAssertEqual(zone, WireSubscription(subscriptionID: "z", kind: .recordZone, zoneID: WireZoneID(zoneName: "Party")))
        let everything = try WireJSON.decode(WireSubscription.self, from: Data(#"{"subscriptionID":"q","subscriptionType":"query","query":{"recordType":"Party"},"firesOn":["delete"]}"#.utf8))
        XCTAssertEqual(everything.predicate, .constant(true), "a query without filters matches every record")
    }

    func testAModifyBodyWrittenForCloudKitWebServicesDecodesUpdatesAsSaves() throws {
        let text = #"""
        {"operations": [
          {"operationType": "update", "subscription": {"subscriptionID": "z", "subscriptionType": "zone", "zoneID": {"zoneName": "Party"}}},
          {"operationType": "delete", "subscription": {"subscriptionID": "old", "subscriptionType": "zone"}},
          {"operationType": "create", "subscription": {"subscriptionID": "y", "subscriptionType": "zone", "zoneID": {"zoneName": "Other"}}}
        ]}
        """#
        let request = try WireJSON.decode(WireSubscriptionsModifyRequest.self, from: Data(text.utf8), context: context)
        XCTAssertEqual(request.saves.map(\.subscriptionID), ["z", "y"])
        XCTAssertEqual(request.deletes, ["old"])
        let apple = #"{"subscriptions":[{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"Party"}},{"subscriptionID":"old","deleted":true},{"subscriptionID":"x","serverErrorCode":"EXISTS","reason":"exists"}]}"#
        let response = try WireJSON.decode(WireSubscriptionsModifyResponse.self, from: Data(apple.utf8))
        XCTAssertEqual(response.saveResults.map(\.id), ["z", "x"])
        XCTAssertEqual(response.deleteResults.map(\.id), ["old"])
    }

    // MARK: - Malformed input

    func testMangledSubscriptionBodiesDecodeOrAreInvalidArgumentsNeverACrash() throws {
        let modify = WireSubscriptionsModifyRequest(context: context, saves: [partySubscription(), WireSubscription(subscriptionID: "z", kind: .recordZone, zoneID: zone, notificationInfo: fullInfo)], deletes: ["old"])
        assertMangledCopiesDecodeOrAreInvalid(WireSubscriptionsModifyRequest.self, try json(modify), context: context)
        let response = WireSubscriptionsModifyResponse(saveResults: [WireItemResult(id: "parties", result: .success(partySubscription()))], deleteResults: [WireItemResult(id: "gone", result: .failure(WireError(.unknownItem, "gone")))])
        assertMangledCopiesDecodeOrAreInvalid(WireSubscriptionsModifyResponse.self, try json(response))
    }

    func testMalformedSubscriptionsAreInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionType":"zone"}"#), naming: "subscriptionID")
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":"s"}"#), naming: "subscriptionType")
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":"s","subscriptionType":"record"}"#), naming: "subscriptionType")
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":"s","subscriptionType":"query","firesOn":["edit"]}"#), naming: "firesOn")
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":"s","subscriptionType":"query","firesOn":"create"}"#), naming: "firesOn")
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":"s","subscriptionType":"query","firesOnce":1}"#), naming: "firesOnce")
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":7,"subscriptionType":"query"}"#), naming: "subscriptionID")
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":"s","subscriptionType":"query","query":{"recordType":"P","filterBy":[{"comparator":"SOON"}]}}"#), naming: "query.filterBy[0].comparator")
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":"s","subscriptionType":"zone","zoneID":{"zoneName":3}}"#), naming: "zoneID.zoneName")
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":"s","subscriptionType":"zone","notificationInfo":{"shouldBadge":"yes"}}"#), naming: "notificationInfo.shouldBadge")
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":"s","subscriptionType":"zone","notificationInfo":{"additionalFields":"title"}}"#), naming: "notificationInfo.additionalFields")
        let deep = String(repeating: #"{"comparator":"NOT","filter":"#, count: 10_000) + #"{"comparator":"TRUE"}"# + String(repeating: "}", count: 10_000)
        XCTAssertEqual(decodeError(WireSubscription.self, #"{"subscriptionID":"s","subscriptionType":"query","query":{"recordType":"P","stratusPredicate":\#(deep)}}"#)?.code, .invalidArguments)
        let tooDeep = String(repeating: #"{"comparator":"NOT","filter":"#, count: 100) + #"{"comparator":"TRUE"}"# + String(repeating: "}", count: 100)
        assertInvalid(decodeError(WireSubscription.self, #"{"subscriptionID":"s","subscriptionType":"query","query":{"recordType":"P","stratusPredicate":\#(tooDeep)}}"#), naming: "query.stratusPredicate")
    }

    func testMalformedSubscriptionRequestsAreInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireSubscriptionsLookupRequest.self, #"{"subscriptions":[{"id":"a"}]}"#, context: context), naming: "subscriptions[0].subscriptionID")
        assertInvalid(decodeError(WireSubscriptionsLookupRequest.self, #"{"subscriptions":["a"]}"#, context: context), naming: "subscriptions[0]")
        assertInvalid(decodeError(WireSubscriptionsLookupRequest.self, #"{}"#, context: context), naming: "subscriptions")
        assertInvalid(decodeError(WireSubscriptionsModifyRequest.self, #"{"operations":[{"operationType":"replace","subscription":{"subscriptionID":"a"}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireSubscriptionsModifyRequest.self, #"{"operations":[{"subscription":{"subscriptionID":"a"}}]}"#, context: context), naming: "operations[0].operationType")
        assertInvalid(decodeError(WireSubscriptionsModifyRequest.self, #"{"operations":[{"operationType":"delete"}]}"#, context: context), naming: "operations[0].subscription")
        assertInvalid(decodeError(WireSubscriptionsModifyRequest.self, #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"a","subscriptionType":"weekly"}}]}"#, context: context), naming: "operations[0].subscription.subscriptionType")
        assertInvalid(decodeError(WireSubscriptionsModifyResponse.self, #"{"subscriptions":[{"subscriptionID":"a","operationType":"merge"}]}"#), naming: "subscriptions[0].operationType")
        assertInvalid(decodeError(WireSubscriptionsLookupResponse.self, #"{"subscriptions":[{"subscriptionID":"a","serverErrorCode":"OOPS"}]}"#), naming: "subscriptions[0].serverErrorCode")
        XCTAssertEqual(decodeError(WireSubscriptionsLookupRequest.self, #"{"subscriptions":[]}"#)?.code, .invalidArguments, "a request decodes only with its context")
    }
}
