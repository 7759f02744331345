import Foundation
import Stratus
import XCTest

/// Location queries in a participant's shared database read the owner's spatial index but
/// return only what the participant's shares cover.
final class SharedLocationQueryTests: SharedDatabaseTestCase {
    func testNearestFirstAndCircleQueriesInTheSharedDatabaseReturnOnlySharedRecords() async throws {
        try await seedParty(attendees: ["ann", "ben", "cat"])
        try await seedPicnic()
        // Everyone at a place: the shared attendees, and the picnic's cake (not shared) nearest of all.
        let places = ["ann": (48.86, 2.35), "ben": (48.87, 2.36), "cat": (45.76, 4.84), "cake": (48.8601, 2.3501), "diary": (48.86, 2.35)]
        var records: [CKRecord] = []
        for (name, (latitude, longitude)) in places {
            let record = try await john.privateCloudDatabase.record(for: recordID(name))
            record["location"] = CLLocation(latitude: latitude, longitude: longitude)
            records.append(record)
        }
        _ = try await john.privateCloudDatabase.modifyRecords(saving: records, deleting: [])
        let share = try await share(with: ["mary@example.com"], permission: .readOnly)
        try await accept(share.url, as: mary)
        let sharedZoneID = try await sharedZoneID()
        let paris = CLLocation(latitude: 48.86, longitude: 2.35)

        let nearest = CKQuery(recordType: "Attendee", predicate: NSPredicate(value: true))
        nearest.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: paris)]
        var page = try await mary.sharedCloudDatabase.records(matching: nearest, inZoneWith: sharedZoneID, resultsLimit: 1)
        var names = page.matchResults.map(\.0.recordName)
        while let cursor = page.queryCursor {
            page = try await mary.sharedCloudDatabase.records(continuingMatchFrom: cursor, resultsLimit: 1)
            names += page.matchResults.map(\.0.recordName)
        }
        XCTAssertEqual(names, ["ann", "ben", "cat"], "the cake is nearer than ben but not shared")

        let circle = CKQuery(recordType: "Attendee", predicate: NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", paris, 10.0))
        let inside = try await mary.sharedCloudDatabase.records(matching: circle, inZoneWith: sharedZoneID, resultsLimit: 10)
        XCTAssertEqual(inside.matchResults.map(\.0.recordName), ["ann", "ben"])
        let everyone = try await john.privateCloudDatabase.records(matching: circle, inZoneWith: zoneID, resultsLimit: 10)
        XCTAssertEqual(everyone.matchResults.map(\.0.recordName), ["ann", "ben", "cake"], "the owner sees every attendee in the circle")
    }
}
