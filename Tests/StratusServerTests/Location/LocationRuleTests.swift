@_spi(Testing) import Stratus
import XCTest
import _StratusTestSupport

/// The server's rules for location values, queries and sorts, enforced whatever the client
/// checked: a request through the `CloudService` boundary gets the same answers.
final class LocationRuleTests: ServerTestCase {
    private var database: CKDatabase { device("john").privateCloudDatabase }

    private let full = WireLocation(
        latitude: 52.52, longitude: 13.405, altitude: 34, horizontalAccuracy: 5, verticalAccuracy: 3,
        course: 270, speed: 1.5, timestamp: Date(timeIntervalSinceReferenceDate: 800_000_000)
    )

    private func wirePlace(_ name: String, _ value: WireFieldValue?, field: String = "location") -> WireRecord {
        WireRecord(recordID: WireRecordID(recordName: name), recordType: "Place", fields: value.map { [field: $0] } ?? [:])
    }

    private func assertLocation(_ location: CLLocation?, equals wire: WireLocation, file: StaticString = #filePath, line: UInt = #line) {
        guard let location else { return XCTFail("no location", file: file, line: line) }
        XCTAssertEqual(location.coordinate.latitude, wire.latitude, file: file, line: line)
        XCTAssertEqual(location.coordinate.longitude, wire.longitude, file: file, line: line)
        XCTAssertEqual(location.altitude, wire.altitude, file: file, line: line)
        XCTAssertEqual(location.horizontalAccuracy, wire.horizontalAccuracy, file: file, line: line)
        XCTAssertEqual(location.verticalAccuracy, wire.verticalAccuracy, file: file, line: line)
        XCTAssertEqual(location.course, wire.course, file: file, line: line)
        XCTAssertEqual(location.speed, wire.speed, file: file, line: line)
        XCTAssertEqual(location.timestamp, wire.timestamp, file: file, line: line)
    }

    func testTheServerRefusesLocationsThatAreNotOnEarthAndKeepsWhatItHad() async throws {
        _ = try await rawSave(wirePlace("kept", .location(full)), to: database).get()
        let invalid = [
            WireLocation(latitude: 90.0001, longitude: 0), WireLocation(latitude: -91, longitude: 0),
            WireLocation(latitude: 0, longitude: 180.5), WireLocation(latitude: .nan, longitude: 0),
            WireLocation(latitude: 0, longitude: .infinity), WireLocation(latitude: 1, longitude: 1, altitude: .nan),
            WireLocation(latitude: 1, longitude: 1, speed: -.infinity),
        ]
        for location in invalid {
            for value in [WireFieldValue.location(location), .list([.location(full), .location(location)])] {
                let result = try await rawSave(wirePlace("kept", value), to: database, policy: .allKeys)
                guard case .failure(let error) = result else { XCTFail("\(location) accepted"); continue }
                XCTAssertEqual(error.code, .invalidArguments, error.message)
                XCTAssertTrue(error.message.contains("location"), error.message)
            }
        }
        let kept = try await database.record(for: CKRecord.ID(recordName: "kept"))
        assertLocation(kept["location"] as? CLLocation, equals: full)
    }

    func testEveryComponentCloudKitKeepsComesBackFromFetchesChangesAndArchives() async throws {
        let zone = CKRecordZone(zoneName: "Trips")
        _ = try await database.modifyRecordZones(saving: [zone], deleting: [])
        let record = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "berlin", zoneID: zone.zoneID))
        let sent = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: full.latitude, longitude: full.longitude), altitude: full.altitude,
            horizontalAccuracy: full.horizontalAccuracy, verticalAccuracy: full.verticalAccuracy,
            course: full.course, courseAccuracy: 4, speed: full.speed, speedAccuracy: 0.5, timestamp: full.timestamp
        )
        record["location"] = sent
        record["route"] = [sent, CLLocation(latitude: -33.86, longitude: 151.21)]
        record.encryptedValues["secret"] = sent
        let saved = try await database.save(record)
        assertLocation(saved["location"] as? CLLocation, equals: full)

        let fetched = try await device("john").privateCloudDatabase.record(for: record.recordID)
        assertLocation(fetched["location"] as? CLLocation, equals: full)
        XCTAssertEqual((fetched["location"] as? CLLocation)?.courseAccuracy, -1, "CloudKit's location type keeps no course accuracy")
        XCTAssertEqual((fetched["location"] as? CLLocation)?.speedAccuracy, -1)
        let route = try XCTUnwrap(fetched["route"] as? [CLLocation])
        XCTAssertEqual(route.count, 2)
        assertLocation(route.first, equals: full)
        XCTAssertEqual(route.last?.coordinate.latitude, -33.86)
        assertLocation(fetched.encryptedValues["secret"] as? CLLocation, equals: full)

        let changes = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: nil)
        let changed = try XCTUnwrap(changes.modificationResultsByID[record.recordID]).get().record
        assertLocation(changed["location"] as? CLLocation, equals: full)

        let archive = try NSKeyedArchiver.archivedData(withRootObject: fetched, requiringSecureCoding: true)
        let unarchived = try XCTUnwrap(NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: archive))
        assertLocation(unarchived["location"] as? CLLocation, equals: full)
        XCTAssertEqual((unarchived["route"] as? [CLLocation])?.count, 2)
    }

    func testALocationFieldHoldsOnlyLocationsAndCountsSixtyFourBytes() async throws {
        _ = try await rawSave(wirePlace("a", .location(full)), to: database).get()
        let text = try await rawSave(wirePlace("b", .string("Berlin")), to: database)
        XCTAssertEqual(text.failure?.code, .invalidArguments)
        XCTAssertTrue(text.failure?.message.contains("Location") == true, text.failure?.message ?? "")
        let other = try await rawSave(wirePlace("c", .location(full), field: "name"), to: database)
        XCTAssertNoThrow(try other.get())
        let intoString = try await rawSave(wirePlace("d", .string("x"), field: "name"), to: database)
        XCTAssertEqual(intoString.failure?.code, .invalidArguments)

        XCTAssertEqual(WireFieldValue.location(full).byteSize, 64)
        let fits = (1_048_576 - 8) / 64
        _ = try await rawSave(wirePlace("many", .list(Array(repeating: .location(full), count: fits)), field: "route"), to: database).get()
        let tooMany = try await rawSave(wirePlace("more", .list(Array(repeating: .location(full), count: fits + 1)), field: "route"), to: database)
        XCTAssertEqual(tooMany.failure?.code, .limitExceeded, tooMany.failure?.message ?? "")
    }

    func testRawQueriesWithLocationsTheClientWouldRefuseAreRefusedToo() async throws {
        let database = device("john").privateCloudDatabase
        _ = try await database.save(CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "a")))
        let invalid = WireLocation(latitude: 95, longitude: 0)
        let refused: [(String, WireQuery)] = [
            ("invalid centre", WireQuery(recordType: "Place", predicate: .near(.field("location"), center: invalid, kilometres: 5, inclusive: false))),
            ("infinite radius", WireQuery(recordType: "Place", predicate: .near(.field("location"), center: full, kilometres: .infinity, inclusive: false))),
            ("NaN radius", WireQuery(recordType: "Place", predicate: .near(.field("location"), center: full, kilometres: .nan, inclusive: true))),
            ("location equality", WireQuery(recordType: "Place", predicate: .compare(.field("location"), .equal, .value(.location(full))))),
            ("location IN", WireQuery(recordType: "Place", predicate: .isIn(.field("location"), [.location(full)]))),
            ("invalid sort point", WireQuery(recordType: "Place", predicate: .constant(true), sortDescriptors: [WireSortDescriptor(field: .field("location"), ascending: true, relativeLocation: invalid)])),
        ]
        for (label, query) in refused {
            do {
                _ = try await server.queryRecords(WireQueryRequest(context: rawContext(database), query: query))
                XCTFail("\(label): accepted")
            } catch {
                XCTAssertEqual(error.code, .invalidArguments, "\(label): \(error.message)")
            }
        }
    }

    func testDistancesAndLocationSortsApplyToLocationFieldsAndLocationFieldsSortOnlyByDistance() async throws {
        let database = device("john").privateCloudDatabase
        let record = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "a"))
        record["location"] = CLLocation(latitude: 1, longitude: 2)
        record["name"] = "Anchorage"
        _ = try await database.save(record)
        let here = CLLocation(latitude: 0, longitude: 0)
        func query(_ format: String?, sort: NSSortDescriptor? = nil) -> CKQuery {
            let query = CKQuery(recordType: "Place", predicate: format.map { NSPredicate(format: $0, here, 100.0) } ?? NSPredicate(value: true))
            query.sortDescriptors = sort.map { [$0] }
            return query
        }
        let misuses: [(CKQuery, String)] = [
            (query("distanceToLocation:fromLocation:(name, %@) < %f"), "String"),
            (query("distanceToLocation:fromLocation:(creationDate, %@) < %f"), "system field"),
            (query(nil, sort: CKLocationSortDescriptor(key: "name", relativeLocation: here)), "String"),
            (query(nil, sort: NSSortDescriptor(key: "location", ascending: true)), "CKLocationSortDescriptor"),
        ]
        for (misuse, named) in misuses {
            let error = await assertThrowsCKError(.invalidArguments) { try await database.records(matching: misuse) }
            XCTAssertTrue(error?.localizedDescription.contains(named) == true, error?.localizedDescription ?? "")
        }
        let unset = try await database.records(matching: query("distanceToLocation:fromLocation:(somewhere, %@) < %f"))
        XCTAssertTrue(unset.matchResults.isEmpty, "a field no record has set matches nothing")

        let subscription = CKQuerySubscription(recordType: "Place", predicate: NSPredicate(format: "distanceToLocation:fromLocation:(name, %@) < %f", here, 5.0), subscriptionID: "by-name", options: [.firesOnRecordCreation])
        await assertThrowsCKError(.invalidArguments) { try await database.save(subscription) }
    }

    func testProductionNeedsAQueryableFieldForDistancesAndASortableOneForLocationSorts() async throws {
        _ = try await rawSave(wirePlace("a", .location(full)), to: database).get()
        server.deployDevelopmentSchema(containerIdentifier: identifier)
        server.setEnvironment(.production, containerIdentifier: identifier)
        let here = CLLocation(latitude: 52.5, longitude: 13.4)
        let circle = CKQuery(recordType: "Place", predicate: NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", here, 10.0))
        let nearest = CKQuery(recordType: "Place", predicate: NSPredicate(value: true))
        nearest.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: here)]

        var error = await assertThrowsCKError(.invalidArguments) { try await self.database.records(matching: circle) }
        XCTAssertTrue(error?.localizedDescription.contains("queryable") == true, error?.localizedDescription ?? "")
        error = await assertThrowsCKError(.invalidArguments) { try await self.database.records(matching: nearest) }
        XCTAssertTrue(error?.localizedDescription.contains("sortable") == true, error?.localizedDescription ?? "")

        server.markIndexes([.queryable, .sortable], field: "location", recordType: "Place", containerIdentifier: identifier)
        let inside = try await database.records(matching: circle)
        XCTAssertEqual(inside.matchResults.map(\.0.recordName), ["a"])
        let ordered = try await database.records(matching: nearest)
        XCTAssertEqual(ordered.matchResults.map(\.0.recordName), ["a"])
    }

    func testAQuerySubscriptionOnADistanceFiresInsideTheCircleAndCarriesTheLocation() async throws {
        let john = device("john"), laptop = device("john")
        let inbox = PushInbox(laptop)
        let here = CLLocation(latitude: 48.8566, longitude: 2.3522)
        let subscription = CKQuerySubscription(
            recordType: "Place",
            predicate: NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", here, 50.0),
            subscriptionID: "near-paris", options: [.firesOnRecordCreation, .firesOnRecordUpdate]
        )
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "A place near Paris"
        info.desiredKeys = ["location"]
        subscription.notificationInfo = info
        _ = try await john.publicCloudDatabase.save(subscription)

        let versailles = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "versailles"))
        versailles["location"] = CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: 48.8049, longitude: 2.1204), altitude: 130,
            horizontalAccuracy: 10, verticalAccuracy: 4, course: 90, speed: 2, timestamp: Date(timeIntervalSinceReferenceDate: 1_000)
        )
        let lyon = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "lyon"))
        lyon["location"] = CLLocation(latitude: 45.764, longitude: 4.8357)
        _ = try await john.publicCloudDatabase.modifyRecords(saving: [versailles, lyon], deleting: [])
        await server.deliverPendingPushes()

        XCTAssertEqual(inbox.queryNotifications.compactMap(\.recordID?.recordName), ["versailles"])
        let pushed = try XCTUnwrap(inbox.queryNotifications.first?.recordFields?["location"] as? CLLocation)
        XCTAssertEqual(pushed.coordinate.latitude, 48.8049)
        XCTAssertEqual(pushed.coordinate.longitude, 2.1204)
        XCTAssertEqual(pushed.altitude, 130)
        XCTAssertEqual(pushed.verticalAccuracy, 4)
        XCTAssertEqual(pushed.course, 90)
        XCTAssertEqual(pushed.timestamp, Date(timeIntervalSinceReferenceDate: 1_000))
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
