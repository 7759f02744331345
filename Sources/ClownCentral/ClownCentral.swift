import Foundation
import Stratus

/// The Clown Central story of WWDC 2014's "Advanced CloudKit", told against an embedded server.
///
/// John and Alice both fetch the WWDC Bash party from the public database. John adds himself
/// and saves; Alice's save of her stale copy fails with `serverRecordChanged`; she applies her
/// change to the server record the error carries and saves that. Then they save photos that
/// reference the party, and the party's change tag does not move: referencing a record never
/// conflicts with its editors.
///
/// The demo prints the story; a test runs it and checks every step.
public enum ClownCentral {
    /// The container the story uses.
    public static let containerIdentifier = "iCloud.com.example.clowncentral"

    /// What the story observed, step by step, for a test to check.
    public struct Report: Sendable {
        /// The party's change tag when John and Alice fetched it.
        public var fetchedTag: String?
        /// The tag after John's save.
        public var tagAfterJohn: String?
        /// The code of the error Alice's first save got.
        public var aliceConflict: CKError.Code?
        /// The attendees of the server record in Alice's error.
        public var serverAttendeesInConflict: [String] = []
        /// Alice's ancestor record's attendees: the version she edited.
        public var ancestorAttendees: [String] = []
        /// The tag after Alice's merged save.
        public var tagAfterAlice: String?
        /// The attendees after Alice's merged save.
        public var attendees: [String] = []
        /// The names of the photos saved.
        public var photos: [String] = []
        /// The party's tag after the photos were saved.
        public var tagAfterPhotos: String?
        /// The requests the server handled.
        public var requestCount = 0
    }

    /// Runs the story on `server`, telling each step to `narrate`.
    ///
    /// - Throws: Any error the story did not expect; the conflict it expects is part of the report.
    public static func run(on server: CloudServer, narrate: (String) -> Void = { _ in }) async throws -> Report {
        var report = Report()
        var partyRoles = RecordPermissions.default
        partyRoles.authenticated.insert(.write)
        server.setPermissions(partyRoles, forRecordType: "Party", containerIdentifier: containerIdentifier)
        narrate("Clown Central: Party records in the public database are writable by signed-in users.")

        let organizer = server.container(identifier: containerIdentifier, account: "organizer")
        let partyID = CKRecord.ID(recordName: "wwdc-bash")
        let bash = CKRecord(recordType: "Party", recordID: partyID)
        bash["name"] = "WWDC Bash"
        bash["attendees"] = [String]()
        _ = try await organizer.publicCloudDatabase.save(bash)
        narrate("The organizer creates the WWDC Bash party.")

        let john = server.container(identifier: containerIdentifier, account: "john").publicCloudDatabase
        let alice = server.container(identifier: containerIdentifier, account: "alice").publicCloudDatabase
        let johnsParty = try await john.record(for: partyID)
        let alicesParty = try await alice.record(for: partyID)
        report.fetchedTag = johnsParty.recordChangeTag
        narrate("John and Alice fetch the party (change tag \(johnsParty.recordChangeTag ?? "?")).")

        johnsParty["attendees"] = (johnsParty["attendees"] as? [String] ?? []) + ["John"]
        let afterJohn = try await john.save(johnsParty)
        report.tagAfterJohn = afterJohn.recordChangeTag
        narrate("John adds himself and saves (change tag \(afterJohn.recordChangeTag ?? "?")).")

        alicesParty["attendees"] = (alicesParty["attendees"] as? [String] ?? []) + ["Alice"]
        var merged: CKRecord?
        do {
            _ = try await alice.save(alicesParty)
        } catch let error as CKError where error.code == .serverRecordChanged {
            report.aliceConflict = error.code
            report.serverAttendeesInConflict = error.serverRecord?["attendees"] as? [String] ?? []
            report.ancestorAttendees = error.ancestorRecord?["attendees"] as? [String] ?? []
            narrate("Alice saves her copy: serverRecordChanged. The server has \(report.serverAttendeesInConflict); she edited \(report.ancestorAttendees).")
            if let serverRecord = error.serverRecord {
                serverRecord["attendees"] = (serverRecord["attendees"] as? [String] ?? []) + ["Alice"]
                merged = serverRecord
            }
        }
        if let merged {
            let afterAlice = try await alice.save(merged)
            report.tagAfterAlice = afterAlice.recordChangeTag
            report.attendees = afterAlice["attendees"] as? [String] ?? []
            narrate("Alice adds herself to the server's record and saves: attendees \(report.attendees).")
        }

        let reference = CKRecord.Reference(recordID: partyID, action: .deleteSelf)
        var photos: [CKRecord] = []
        for (index, photographer) in ["John", "Alice"].enumerated() {
            let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "photo-\(index + 1)"))
            photo["party"] = reference
            photo["photographer"] = photographer
            photo["thumbnail"] = Data(repeating: UInt8(index), count: 64)
            photos.append(photo)
        }
        _ = try await john.modifyRecords(saving: [photos[0]], deleting: [])
        _ = try await alice.modifyRecords(saving: [photos[1]], deleting: [])
        report.photos = photos.map(\.recordID.recordName)
        let partyNow = try await john.record(for: partyID)
        report.tagAfterPhotos = partyNow.recordChangeTag
        narrate("John and Alice save \(photos.count) photos that reference the party; its change tag stays \(partyNow.recordChangeTag ?? "?").")

        report.requestCount = server.requestCount
        narrate("The server handled \(report.requestCount) requests.")
        return report
    }
}
