import Foundation
import Stratus

/// The dropped-push story of the CloudKit talks: pushes are best effort. John's laptop watches
/// his Notes zone with a zone subscription and silent pushes; it is offline while his phone
/// saves ten notes, and when it comes back APNs hands it only the last push. The laptop does
/// not trust the push to say what changed: it reads the notification collection, which kept all
/// ten notifications, marks them read, and fetches the zone's changes once.
public enum DroppedPushes {
    /// What the story observed.
    public struct Report: Sendable {
        /// The notes the phone saved, one request each.
        public var notesSaved = 0
        /// The pushes the laptop received after coming back online.
        public var pushesReceived = 0
        /// The notifications the laptop read from the collection.
        public var notificationsInCollection = 0
        /// The notifications it marked read.
        public var notificationsMarkedRead = 0
        /// The notes the laptop has after fetching the zone's changes.
        public var notesAfterCatchUp: [String] = []
        /// The zone-change requests the catch-up cost.
        public var catchUpRequests = 0
    }

    /// Runs the story on `server`.
    public static func run(on server: CloudServer, narrate: (String) -> Void = { _ in }) async throws -> Report {
        let phone = server.container(identifier: ClownCentral.containerIdentifier, account: "john")
        let laptop = server.container(identifier: ClownCentral.containerIdentifier, account: "john")
        let zoneID = CKRecordZone.ID(zoneName: "Sketchbook")
        _ = try await phone.privateCloudDatabase.save(CKRecordZone(zoneID: zoneID))
        let subscription = CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "sketchbook-changed")
        subscription.notificationInfo = CKSubscription.NotificationInfo(shouldSendContentAvailable: true)
        _ = try await laptop.privateCloudDatabase.save(subscription)
        let pushes = Collected<Int>()
        laptop.registerForPushNotifications { _ in pushes.append(1) }
        narrate("John's laptop subscribes to his Sketchbook zone with silent pushes.")

        var report = Report()
        server.setOffline(true, for: laptop)
        for index in 1...10 {
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "sketch-\(index)", zoneID: zoneID))
            note["text"] = "idea \(index)"
            _ = try await phone.privateCloudDatabase.save(note)
            report.notesSaved += 1
        }
        narrate("The laptop is offline while the phone saves \(report.notesSaved) notes, one request each.")

        server.setOffline(false, for: laptop)
        await server.deliverPendingPushes()
        report.pushesReceived = pushes.values.count
        narrate("Back online, the laptop gets \(report.pushesReceived) push: APNs kept only the last.")

        let recovery = try await (Self.self as any CollectionReading.Type).readCollection(on: laptop)
        report.notificationsInCollection = recovery.read
        report.notificationsMarkedRead = recovery.markedRead
        narrate("It reads \(recovery.read) notifications from the notification collection and marks them read.")

        var token: CKServerChangeToken?
        var more = true
        while more {
            let changes = try await laptop.privateCloudDatabase.recordZoneChanges(inZoneWith: zoneID, since: token)
            report.notesAfterCatchUp += changes.modificationResultsByID.keys.map(\.recordName)
            report.catchUpRequests += 1
            token = changes.changeToken
            more = changes.moreComing
        }
        report.notesAfterCatchUp.sort { $0.localizedStandardCompare($1) == .orderedAscending }
        narrate("One zone-change fetch brings all \(report.notesAfterCatchUp.count) notes to the laptop.")
        return report
    }
}

/// Reads the notification collection with CloudKit's deprecated operations, which the talks
/// use: reached through this protocol so the story's public entry point is not deprecated.
private protocol CollectionReading {
    static func readCollection(on container: CKContainer) async throws -> (read: Int, markedRead: Int)
}

extension DroppedPushes: CollectionReading {
    @available(*, deprecated, message: "uses CloudKit's deprecated notification collection, as the talks do")
    fileprivate static func readCollection(on container: CKContainer) async throws -> (read: Int, markedRead: Int) {
        var token: CKServerChangeToken?
        var ids: [CKNotification.ID] = []
        var more = true
        while more {
            let fetch = CKFetchNotificationChangesOperation(previousServerChangeToken: token)
            let collected = Collected<CKNotification.ID>()
            fetch.notificationChangedBlock = { notification in
                if notification.notificationType != .readNotification, let id = notification.notificationID { collected.append(id) }
            }
            token = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CKServerChangeToken?, any Error>) in
                fetch.fetchNotificationChangesCompletionBlock = { token, error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: token) }
                }
                container.add(fetch)
            }
            ids += collected.values
            more = fetch.moreComing
        }
        let mark = CKMarkNotificationsReadOperation(notificationIDsToMarkRead: ids)
        let marked = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            mark.markNotificationsReadCompletionBlock = { marked, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: marked?.count ?? 0) }
            }
            container.add(mark)
        }
        return (ids.count, marked)
    }
}
