import Foundation
import Stratus

/// Finding clown parties near you: parties saved with a `CLLocation`, a query for those within
/// a few kilometres, nearest first, and a subscription that tells a clown about new parties
/// near home.
public enum NearbyParties {
    /// What the step observed.
    public struct Report: Sendable {
        /// The parties within the radius of the park, nearest first.
        public var nearby: [String] = []
        /// Their distances from the park, in kilometres, rounded to one decimal.
        public var kilometres: [Double] = []
        /// The parties the subscription told Bozo about.
        public var notified: [String] = []
    }

    /// The parties and where they are.
    static let parties: [(name: String, latitude: Double, longitude: Double)] = [
        ("golden-gate-park", 37.7694, -122.4862), ("mission-dolores", 37.7596, -122.4269),
        ("berkeley-marina", 37.8663, -122.3147), ("oakland-zoo", 37.7500, -122.1461),
        ("santa-cruz-boardwalk", 36.9643, -122.0177), ("big-top-paris", 48.8566, 2.3522),
    ]

    /// Saves the parties and looks for the ones near the park on `server`.
    public static func run(on server: CloudServer, narrate: (String) -> Void = { _ in }) async throws -> Report {
        let bozo = server.container(identifier: ClownCentral.containerIdentifier, account: "bozo")
        let laptop = server.container(identifier: ClownCentral.containerIdentifier, account: "bozo")
        let organizer = server.container(identifier: ClownCentral.containerIdentifier, account: "john")
        let park = CLLocation(latitude: 37.7694, longitude: -122.4862)
        let radius = 25.0

        let notified = Collected<String>()
        laptop.registerForPushNotifications { notification in
            if let name = (notification as? CKQueryNotification)?.recordID?.recordName { notified.append(name) }
        }
        let nearHome = CKQuerySubscription(
            recordType: "Party",
            predicate: NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", park, radius),
            subscriptionID: "parties-near-the-park", options: [.firesOnRecordCreation]
        )
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "A clown party near the park!"
        nearHome.notificationInfo = info
        _ = try await bozo.publicCloudDatabase.save(nearHome)
        narrate("Bozo subscribes to new parties within \(Int(radius)) km of the park.")

        let records = parties.map { party -> CKRecord in
            let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: party.name))
            record["location"] = CLLocation(latitude: party.latitude, longitude: party.longitude)
            return record
        }
        _ = try await organizer.publicCloudDatabase.modifyRecords(saving: records, deleting: [])
        await server.deliverPendingPushes()
        var report = Report()
        report.notified = notified.values.sorted()
        narrate("John plans \(records.count) parties; Bozo's laptop hears of \(report.notified.count): \(report.notified.joined(separator: ", ")).")

        let query = CKQuery(recordType: "Party", predicate: NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", park, radius))
        query.sortDescriptors = [CKLocationSortDescriptor(key: "location", relativeLocation: park)]
        let (matches, _) = try await bozo.publicCloudDatabase.records(matching: query, resultsLimit: 10)
        for (recordID, result) in matches {
            guard let location = try result.get()["location"] as? CLLocation else { continue }
            report.nearby.append(recordID.recordName)
            report.kilometres.append((location.distance(from: park) / 100).rounded() / 10)
        }
        narrate("Parties within \(Int(radius)) km of the park, nearest first: \(zip(report.nearby, report.kilometres).map { "\($0) (\($1) km)" }.joined(separator: ", ")).")
        return report
    }
}
