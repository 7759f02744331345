import Foundation
import Stratus

/// The notes story: a private `Notes` zone that a second device of the same user caches from
/// zone changes, keeping each record's system fields as CloudKit's documentation advises;
/// offline, the second device edits one note from its cached system fields and saves only
/// that key with `.ifServerRecordUnchanged`, then catches up through zone changes.
public enum NotesSync {
    /// What the story observed.
    public struct Report: Sendable {
        /// The notes the laptop cached from its first fetch, by name.
        public var firstFetch: [String: String] = [:]
        /// The keys the laptop's offline edit sent.
        public var editedKeys: [String] = []
        /// The fields of the edited note as the server has it after the laptop's save.
        public var afterEdit: [String: String] = [:]
        /// What the laptop's cache holds after catching up.
        public var cacheAfterCatchUp: [String: String] = [:]
        /// The requests the laptop's catch-up cost.
        public var catchUpRequests = 0
    }

    /// A device's cache: each note's text and archived system fields, and the zone's token.
    private final class Cache: @unchecked Sendable {
        var texts: [String: String] = [:]
        var systemFields: [String: Data] = [:]
        var token: CKServerChangeToken?

        func keep(_ record: CKRecord) {
            let coder = NSKeyedArchiver(requiringSecureCoding: true)
            record.encodeSystemFields(with: coder)
            coder.finishEncoding()
            texts[record.recordID.recordName] = record["text"] as? String
            systemFields[record.recordID.recordName] = coder.encodedData
        }

        func cachedRecord(named name: String) -> CKRecord? {
            guard let data = systemFields[name], let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
            coder.requiresSecureCoding = true
            return CKRecord(coder: coder)
        }
    }

    /// Runs the story on `server`.
    public static func run(on server: CloudServer, narrate: (String) -> Void = { _ in }) async throws -> Report {
        let phone = server.container(identifier: ClownCentral.containerIdentifier, account: "john").privateCloudDatabase
        let laptop = server.container(identifier: ClownCentral.containerIdentifier, account: "john").privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Notes")
        _ = try await phone.save(CKRecordZone(zoneID: zoneID))
        let notes = [("props", "red noses, big shoes"), ("acts", "juggling, then the tiny car")].map { name, text -> CKRecord in
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
            note["text"] = text
            note["author"] = "John"
            return note
        }
        _ = try await phone.modifyRecords(saving: notes, deleting: [])
        narrate("John's phone saves \(notes.count) notes in his private Notes zone.")

        var report = Report()
        let cache = Cache()
        func catchUp() async throws {
            var moreComing = true
            while moreComing {
                let changes = try await laptop.recordZoneChanges(inZoneWith: zoneID, since: cache.token)
                for result in changes.modificationResultsByID.values { cache.keep(try result.get().record) }
                for deletion in changes.deletions {
                    cache.texts[deletion.recordID.recordName] = nil
                    cache.systemFields[deletion.recordID.recordName] = nil
                }
                cache.token = changes.changeToken
                moreComing = changes.moreComing
            }
        }
        try await catchUp()
        report.firstFetch = cache.texts
        narrate("His laptop fetches the zone's changes from a nil token and caches \(cache.texts.count) notes with their system fields.")

        guard let edited = cache.cachedRecord(named: "props") else { return report }
        edited["text"] = "red noses, big shoes, a seltzer bottle"
        report.editedKeys = edited.changedKeys()
        let saved = try await laptop.save(edited)
        report.afterEdit = ["text": saved["text"] as? String ?? "", "author": saved["author"] as? String ?? ""]
        narrate("Offline, the laptop edits 'props' from its cached system fields and saves only \(report.editedKeys) with .ifServerRecordUnchanged; the server keeps the author, \(report.afterEdit["author"] ?? "?").")

        _ = try await phone.deleteRecord(withID: CKRecord.ID(recordName: "acts", zoneID: zoneID))
        let before = server.requestCount
        try await catchUp()
        report.catchUpRequests = server.requestCount - before
        report.cacheAfterCatchUp = cache.texts
        narrate("The phone deletes 'acts'; the laptop catches up with \(report.catchUpRequests) request: it now holds \(cache.texts.keys.sorted()).")
        return report
    }
}
