import Stratus
import XCTest

/// The rules the server enforces on subscriptions, checked by calling the `CloudService`
/// directly, as a network transport or a forged client would, without the client's checks.
final class SubscriptionRulesTests: ServerTestCase {
    private let info = WireNotificationInfo(shouldSendContentAvailable: true)

    private func query(_ id: String, options: WireSubscription.QueryOptions = [.firesOnRecordCreation], predicate: WirePredicate = .constant(true), recordType: String? = "Party", info: WireNotificationInfo? = WireNotificationInfo(alertBody: "Party!")) -> WireSubscription {
        WireSubscription(subscriptionID: id, kind: .query, recordType: recordType, predicate: predicate, queryOptions: options, notificationInfo: info)
    }

    private func zone(_ id: String, _ zoneName: String) -> WireSubscription {
        WireSubscription(subscriptionID: id, kind: .recordZone, zoneID: WireZoneID(zoneName: zoneName, ownerName: WireZoneID.currentUserOwnerName), notificationInfo: info)
    }

    private func databaseSubscription(_ id: String) -> WireSubscription {
        WireSubscription(subscriptionID: id, kind: .database, notificationInfo: info)
    }

    private func modify(_ database: CKDatabase, saves: [WireSubscription] = [], deletes: [String] = []) async throws -> WireSubscriptionsModifyResponse {
        try await server.modifySubscriptions(WireSubscriptionsModifyRequest(context: rawContext(database), saves: saves, deletes: deletes))
    }

    private func saveCode(_ subscription: WireSubscription, in database: CKDatabase) async throws -> CKErrorCode? {
        let response = try await modify(database, saves: [subscription])
        guard case .failure(let error)? = response.saveResults.first?.result else { return nil }
        return error.code
    }

    func testSavedSubscriptionsAreListedAndLookedUpAndAnUnknownIDIsUnknownItem() async throws {
        let database = device("john").privateCloudDatabase
        let saved = try await modify(database, saves: [query("b"), query("a")])
        XCTAssertEqual(saved.saveResults.map(\.id), ["b", "a"])
        let list = try await server.listSubscriptions(rawContext(database))
        XCTAssertEqual(list.subscriptions.map(\.subscriptionID), ["a", "b"])
        let lookup = try await server.lookupSubscriptions(WireSubscriptionsLookupRequest(context: rawContext(database), ids: ["a", "missing"]))
        XCTAssertEqual(try lookup.results[0].result.get(), query("a"))
        guard case .failure(let error) = lookup.results[1].result else { return XCTFail("expected unknownItem") }
        XCTAssertEqual(error.code, .unknownItem)
    }

    func testSavingAnExistingIDReplacesItAndDeletingAnUnknownIDIsUnknownItem() async throws {
        let database = device("john").privateCloudDatabase
        _ = try await modify(database, saves: [query("parties")])
        _ = try await modify(database, saves: [query("parties", options: [.firesOnRecordDeletion], recordType: "Clown")])
        let list = try await server.listSubscriptions(rawContext(database))
        XCTAssertEqual(list.subscriptions, [query("parties", options: [.firesOnRecordDeletion], recordType: "Clown")])
        let deleted = try await modify(database, deletes: ["parties", "never"])
        XCTAssertNoThrow(try deleted.deleteResults[0].result.get())
        guard case .failure(let error) = deleted.deleteResults[1].result else { return XCTFail("expected unknownItem") }
        XCTAssertEqual(error.code, .unknownItem)
        let after = try await server.listSubscriptions(rawContext(database))
        XCTAssertTrue(after.subscriptions.isEmpty)
    }

    func testANilNotificationInfoIsInvalidArguments() async throws {
        let code = try await saveCode(query("x", info: nil), in: device("john").privateCloudDatabase)
        XCTAssertEqual(code, .invalidArguments)
    }

    func testAQuerySubscriptionThatFiresOnNothingIsInvalidArguments() async throws {
        let database = device("john").privateCloudDatabase
        let none = try await saveCode(query("x", options: []), in: database)
        XCTAssertEqual(none, .invalidArguments)
        let onlyOnce = try await saveCode(query("y", options: [.firesOnce]), in: database)
        XCTAssertEqual(onlyOnce, .invalidArguments)
        let missingType = try await saveCode(query("z", recordType: nil), in: database)
        XCTAssertEqual(missingType, .invalidArguments)
    }

    func testEachDatabaseAllowsOnlyItsSubscriptionTypes() async throws {
        let john = device("john")
        _ = try await john.privateCloudDatabase.save(CKRecordZone(zoneName: "Notes"))
        let publicQuery = try await saveCode(query("q"), in: john.publicCloudDatabase)
        XCTAssertNil(publicQuery)
        let publicZone = try await saveCode(zone("z", "Notes"), in: john.publicCloudDatabase)
        XCTAssertEqual(publicZone, .badDatabase)
        let publicDatabase = try await saveCode(databaseSubscription("d"), in: john.publicCloudDatabase)
        XCTAssertEqual(publicDatabase, .badDatabase)
        let sharedQuery = try await saveCode(query("q"), in: john.sharedCloudDatabase)
        XCTAssertEqual(sharedQuery, .badDatabase)
        let sharedZone = try await saveCode(zone("z", "Notes"), in: john.sharedCloudDatabase)
        XCTAssertEqual(sharedZone, .badDatabase)
        let sharedDatabase = try await saveCode(databaseSubscription("d"), in: john.sharedCloudDatabase)
        XCTAssertNil(sharedDatabase)
        for subscription in [query("q"), zone("z", "Notes"), databaseSubscription("d")] {
            let code = try await saveCode(subscription, in: john.privateCloudDatabase)
            XCTAssertNil(code, subscription.subscriptionID)
        }
    }

    func testAZoneSubscriptionNeedsAnExistingZoneWithFetchChanges() async throws {
        let database = device("john").privateCloudDatabase
        let defaultZone = try await saveCode(zone("z", WireZoneID.defaultZoneName), in: database)
        XCTAssertEqual(defaultZone, .invalidArguments)
        let missing = try await saveCode(zone("z", "Nowhere"), in: database)
        XCTAssertEqual(missing, .zoneNotFound)
        let queryInMissingZone = try await saveCode(
            WireSubscription(subscriptionID: "q", kind: .query, recordType: "Party", predicate: .constant(true), zoneID: WireZoneID(zoneName: "Nowhere", ownerName: WireZoneID.currentUserOwnerName), queryOptions: [.firesOnRecordCreation], notificationInfo: info),
            in: database
        )
        XCTAssertEqual(queryInMissingZone, .zoneNotFound)
    }

    func testAPredicateTooDeepOrWithAValueNoQueryCanUseIsInvalidArguments() async throws {
        let database = device("john").privateCloudDatabase
        var deep = WirePredicate.compare(.field("a"), .equal, .value(.int64(1)))
        for _ in 0...WirePredicate.maximumDepth { deep = .not(deep) }
        let tooDeep = try await saveCode(query("deep", predicate: deep), in: database)
        XCTAssertEqual(tooDeep, .invalidArguments)
        let infinite = try await saveCode(query("inf", predicate: .compare(.field("a"), .equal, .value(.double(.infinity)))), in: database)
        XCTAssertEqual(infinite, .invalidArguments)
    }

    func testInProductionAQuerySubscriptionsPredicateFieldsMustBeQueryable() async throws {
        let john = device("john")
        let party = CKRecord(recordType: "Party")
        party["town"] = "Springfield"
        _ = try await john.publicCloudDatabase.save(party)
        server.deployDevelopmentSchema(containerIdentifier: identifier)
        server.setEnvironment(.production, containerIdentifier: identifier)
        let byTown = query("town", predicate: .compare(.field("town"), .equal, .value(.string("Springfield"))))
        let unindexed = try await saveCode(byTown, in: john.publicCloudDatabase)
        XCTAssertEqual(unindexed, .invalidArguments)
        server.markIndexes(.queryable, field: "town", recordType: "Party", containerIdentifier: identifier)
        let indexed = try await saveCode(byTown, in: john.publicCloudDatabase)
        XCTAssertNil(indexed)
    }

    func testASilentPushWithUIKeysIsInvalidArgumentsUnlessTheServerAllowsIt() async throws {
        let database = device("john").privateCloudDatabase
        let mixed = query("mixed", info: WireNotificationInfo(alertBody: "Hi", shouldSendContentAvailable: true))
        let refused = try await saveCode(mixed, in: database)
        XCTAssertEqual(refused, .invalidArguments)
        for ui in [WireNotificationInfo(soundName: "ding", shouldSendContentAvailable: true), WireNotificationInfo(shouldBadge: true, shouldSendContentAvailable: true)] {
            let code = try await saveCode(query("ui", info: ui), in: database)
            XCTAssertEqual(code, .invalidArguments)
        }
        let silent = try await saveCode(query("silent", info: WireNotificationInfo(desiredKeys: ["title"], shouldSendContentAvailable: true)), in: database)
        XCTAssertNil(silent)
        server.allowsSilentPushesWithUIKeys = true
        let accepted = try await saveCode(mixed, in: database)
        XCTAssertNil(accepted)
    }

    func testSubscriptionRequestsNeedAnAccountEvenInThePublicDatabase() async throws {
        let guest = device(nil)
        for database in [guest.publicCloudDatabase, guest.privateCloudDatabase] {
            do {
                _ = try await server.listSubscriptions(rawContext(database))
                XCTFail("expected notAuthenticated")
            } catch {
                XCTAssertEqual(error.code, .notAuthenticated)
            }
            do {
                _ = try await modify(database, saves: [query("q")])
                XCTFail("expected notAuthenticated")
            } catch {
                XCTAssertEqual((error as? WireError)?.code, .notAuthenticated)
            }
        }
    }

    func testMoreThan400ItemsInOneRequestIsLimitExceeded() async throws {
        let database = device("john").privateCloudDatabase
        do {
            _ = try await modify(database, saves: (0..<300).map { query("s\($0)") }, deletes: (0..<101).map { "d\($0)" })
            XCTFail("expected limitExceeded")
        } catch {
            XCTAssertEqual((error as? WireError)?.code, .limitExceeded)
        }
        let atLimit = try await modify(database, saves: (0..<400).map { query("s\($0)") })
        XCTAssertEqual(atLimit.saveResults.count, 400)
    }

    func testAnIDNamedTwiceInOneRequestFailsEachTimeAndAnEmptyIDIsInvalidArguments() async throws {
        let database = device("john").privateCloudDatabase
        let response = try await modify(database, saves: [query("twice"), query("once")], deletes: ["twice"])
        XCTAssertNoThrow(try response.saveResults[1].result.get())
        guard case .failure(let first) = response.saveResults[0].result, case .failure(let second) = response.deleteResults[0].result else {
            return XCTFail("expected failures")
        }
        XCTAssertEqual(first.code, .invalidArguments)
        XCTAssertEqual(second.code, .invalidArguments)
        let empty = try await saveCode(query(""), in: database)
        XCTAssertEqual(empty, .invalidArguments)
    }

    func testSubscriptionsBelongToTheUserWhoSavedThemInEveryDatabase() async throws {
        let john = device("john")
        let alice = device("alice")
        _ = try await modify(john.publicCloudDatabase, saves: [query("mine")])
        _ = try await modify(john.privateCloudDatabase, saves: [query("private")])
        let aliceList = try await server.listSubscriptions(rawContext(alice.publicCloudDatabase))
        XCTAssertTrue(aliceList.subscriptions.isEmpty)
        let aliceDelete = try await modify(alice.publicCloudDatabase, deletes: ["mine"])
        guard case .failure(let error) = aliceDelete.deleteResults[0].result else { return XCTFail("expected unknownItem") }
        XCTAssertEqual(error.code, .unknownItem)
        let phone = device("john")
        let johnPublic = try await server.listSubscriptions(rawContext(phone.publicCloudDatabase))
        XCTAssertEqual(johnPublic.subscriptions.map(\.subscriptionID), ["mine"])
        let johnPrivate = try await server.listSubscriptions(rawContext(phone.privateCloudDatabase))
        XCTAssertEqual(johnPrivate.subscriptions.map(\.subscriptionID), ["private"])
    }

    func testEachSubscriptionRequestIsLoggedUnderItsEndpoint() async throws {
        let database = device("john").privateCloudDatabase
        _ = try await modify(database, saves: [query("q")])
        _ = try await server.lookupSubscriptions(WireSubscriptionsLookupRequest(context: rawContext(database), ids: ["q"]))
        _ = try await server.listSubscriptions(rawContext(database))
        XCTAssertEqual(server.requestLog.suffix(3).map(\.endpoint), [.modifySubscriptions, .lookupSubscriptions, .listSubscriptions])
    }
}
