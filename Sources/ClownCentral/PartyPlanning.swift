import Foundation
import Stratus

/// The party-planning story, on sharing: the organizer shares a party, with its attendee list
/// as child records, with two friends by email. Coco accepts with read-write permission and
/// adds an attendee; Pippo accepts read-only and is refused when he tries to add one. Then
/// the organizer stops sharing, and the party leaves both friends' shared databases.
public enum PartyPlanning {
    /// What the story observed.
    public struct Report: Sendable {
        /// The share's URL, as the server assigned it.
        public var shareURL: URL?
        /// The attendees each friend read through their shared database after accepting.
        public var attendeesSeen: (coco: [String], pippo: [String]) = ([], [])
        /// The attendees the organizer's own database holds after Coco's addition.
        public var organizerAttendees: [String] = []
        /// The error code Pippo's write met.
        public var pippoWriteError: CKError.Code?
        /// The participants' acceptance, as the organizer's share shows it once both accepted.
        public var acceptedParticipants = 0
        /// The zones each friend's shared database holds after the organizer stopped sharing.
        public var zonesAfterUnsharing: (coco: Int, pippo: Int) = (0, 0)
    }

    /// The organizer's zone.
    public static let zoneID = CKRecordZone.ID(zoneName: "Parties")

    /// Runs the story on `server`.
    public static func run(on server: CloudServer, narrate: (String) -> Void = { _ in }) async throws -> Report {
        var report = Report()
        let identifier = ClownCentral.containerIdentifier
        for account in ["organizer", "coco", "pippo"] { server.setEmailAddress("\(account)@clowns.example", forAccount: account) }
        let organizer = server.container(identifier: identifier, account: "organizer")
        let coco = server.container(identifier: identifier, account: "coco")
        let pippo = server.container(identifier: identifier, account: "pippo")
        let database = organizer.privateCloudDatabase

        // The party and its attendee list, in a zone of the organizer's.
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "circus-night", zoneID: zoneID))
        party["title"] = "Circus Night"
        let attendees = ["Bozo", "Krusty"].map { name -> CKRecord in
            let attendee = CKRecord(recordType: "Attendee", recordID: CKRecord.ID(recordName: name.lowercased(), zoneID: zoneID))
            attendee["name"] = name
            attendee.parent = CKRecord.Reference(record: party, action: .none)
            return attendee
        }

        // Shared in the same request as its root, with the friends the organizer looked up.
        let share = CKShare(rootRecord: party)
        share[CKShare.SystemFieldKey.title] = "Circus Night"
        let cocoParticipant = try await organizer.shareParticipant(forEmailAddress: "coco@clowns.example")
        cocoParticipant.permission = .readWrite
        let pippoParticipant = try await organizer.shareParticipant(forEmailAddress: "pippo@clowns.example")
        pippoParticipant.permission = .readOnly
        share.addParticipant(cocoParticipant)
        share.addParticipant(pippoParticipant)
        let (saved, _) = try await database.modifyRecords(saving: [party] + attendees + [share], deleting: [])
        let savedShare = try saved[share.recordID]?.get() as? CKShare
        report.shareURL = savedShare?.url
        narrate("The organizer shares \"Circus Night\" and its \(attendees.count) attendees with Coco (read-write) and Pippo (read-only): \(report.shareURL?.absoluteString ?? "no URL").")

        // Each friend opens the link and accepts.
        guard let url = report.shareURL else { return report }
        for friend in [coco, pippo] {
            let metadata = try await friend.shareMetadata(for: url)
            _ = try await friend.accept(metadata)
        }
        let sharedZoneID = CKRecordZone.ID(zoneName: zoneID.zoneName, ownerName: try await organizer.userRecordID().recordName)
        report.attendeesSeen.coco = try await attendeeNames(in: coco.sharedCloudDatabase, zoneID: sharedZoneID)
        report.attendeesSeen.pippo = try await attendeeNames(in: pippo.sharedCloudDatabase, zoneID: sharedZoneID)
        let ownersShare = try await database.record(for: share.recordID) as? CKShare
        report.acceptedParticipants = ownersShare?.participants.filter { $0.role != .owner && $0.acceptanceStatus == .accepted }.count ?? 0
        narrate("Both accept; in their shared databases Coco sees \(report.attendeesSeen.coco.joined(separator: ", ")) and Pippo sees \(report.attendeesSeen.pippo.joined(separator: ", ")).")

        // Coco adds an attendee under the shared party; Pippo may not.
        let sharedParty = CKRecord.Reference(recordID: CKRecord.ID(recordName: party.recordID.recordName, zoneID: sharedZoneID), action: .none)
        let cocoAdds = CKRecord(recordType: "Attendee", recordID: CKRecord.ID(recordName: "coco", zoneID: sharedZoneID))
        cocoAdds["name"] = "Coco"
        cocoAdds.parent = sharedParty
        _ = try await coco.sharedCloudDatabase.modifyRecords(saving: [cocoAdds], deleting: [])
        let pippoAdds = CKRecord(recordType: "Attendee", recordID: CKRecord.ID(recordName: "pippo", zoneID: sharedZoneID))
        pippoAdds["name"] = "Pippo"
        pippoAdds.parent = sharedParty
        let (pippoResults, _) = try await pippo.sharedCloudDatabase.modifyRecords(saving: [pippoAdds], deleting: [], atomically: false)
        if case .failure(let error)? = pippoResults[pippoAdds.recordID] { report.pippoWriteError = (error as? CKError)?.code }
        report.organizerAttendees = try await attendeeNames(in: database, zoneID: zoneID)
        narrate("Coco adds herself; Pippo's addition is refused (\(report.pippoWriteError?.title ?? "no error")). The organizer's list: \(report.organizerAttendees.joined(separator: ", ")).")

        // The organizer stops sharing: the party leaves both friends' shared databases.
        _ = try await database.modifyRecords(saving: [], deleting: [share.recordID])
        report.zonesAfterUnsharing.coco = try await coco.sharedCloudDatabase.allRecordZones().count
        report.zonesAfterUnsharing.pippo = try await pippo.sharedCloudDatabase.allRecordZones().count
        narrate("The organizer stops sharing; the friends' shared databases now hold \(report.zonesAfterUnsharing.coco) and \(report.zonesAfterUnsharing.pippo) zones.")
        return report
    }

    /// The attendees of the party in `zoneID` of `database`, by name.
    private static func attendeeNames(in database: CKDatabase, zoneID: CKRecordZone.ID) async throws -> [String] {
        let (matches, _) = try await database.records(matching: CKQuery(recordType: "Attendee", predicate: NSPredicate(value: true)), inZoneWith: zoneID, desiredKeys: nil)
        return matches.compactMap { try? $0.1.get()["name"] as? String }.sorted()
    }
}
