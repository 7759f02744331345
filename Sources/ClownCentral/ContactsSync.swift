import Foundation
import Stratus

/// The contacts story, on `CKSyncEngine`: Alice's phone and laptop each keep her troupe's
/// contacts in a local store whose delegate is written as Apple's sample app writes it. The
/// phone adds 444 contacts and sends them (the engine asks for batches: 400, then 44); the
/// laptop fetches them. Both rename the same contact; the laptop's send, the later one, meets
/// `serverRecordChanged`, and its delegate merges its newer name into the server's record and
/// adds the save again. The laptop sends again, both fetch, and both hold the same contacts.
///
/// Every sync is explicit (`automaticallySync` false), so the story runs the same every time.
public enum ContactsSync {
    /// What the story observed.
    public struct Report: Sendable {
        /// The events of the phone's first send, `stateUpdate`s left out.
        public var firstSendEvents: [String] = []
        /// The records each `sentRecordZoneChanges` of that send saved.
        public var firstSendBatches: [Int] = []
        /// The contacts the laptop holds after its first fetch.
        public var laptopContactsAfterFetch = 0
        /// The events of the laptop's first fetch, `stateUpdate`s left out.
        public var laptopFetchEvents: [String] = []
        /// The events of the laptop's conflicting send, `stateUpdate`s left out.
        public var conflictingSendEvents: [String] = []
        /// The events of the laptop's send after it resolved the conflict.
        public var resendEvents: [String] = []
        /// The code of the error the laptop's conflicting `sendChanges()` threw.
        public var conflictingSendError: CKError.Code?
        /// The code of the failed save inside it.
        public var conflictItemError: CKError.Code?
        /// The `serverRecordChanged` conflicts each delegate resolved: phone, laptop.
        public var conflictsResolved: (phone: Int, laptop: Int) = (0, 0)
        /// The name the server's record had in the conflict.
        public var serverNameInConflict: String?
        /// The renamed contact's name on each device at the end: phone, laptop.
        public var finalNames: (phone: String?, laptop: String?) = (nil, nil)
        /// The contacts on each device at the end.
        public var contactCounts: (phone: Int, laptop: Int) = (0, 0)
        /// Whether both devices end with the same names and the same server change tags.
        public var storesEqual = false
    }

    /// The contact both devices rename.
    public static let renamedContact = "contact-042"

    /// Runs the story on `server`.
    public static func run(on server: CloudServer, narrate: (String) -> Void = { _ in }) async throws -> Report {
        var report = Report()
        let phone = ContactBook(database: server.container(identifier: ClownCentral.containerIdentifier, account: "alice").privateCloudDatabase)
        let laptop = ContactBook(database: server.container(identifier: ClownCentral.containerIdentifier, account: "alice").privateCloudDatabase)

        let start = server.clock.now
        phone.saveContacts((0..<444).map { index in
            Contact(id: String(format: "contact-%03d", index), name: "Clown \(index)", userModificationDate: start)
        })
        try await phone.syncEngine.sendChanges()
        report.firstSendEvents = phone.takeEvents()
        report.firstSendBatches = phone.takeSavedPerBatch()
        narrate("Alice's phone adds 444 contacts and sends them: \(report.firstSendEvents.joined(separator: ", ")).")

        try await laptop.syncEngine.fetchChanges()
        report.laptopFetchEvents = laptop.takeEvents()
        report.laptopContactsAfterFetch = laptop.contacts.count
        let batches = report.laptopFetchEvents.filter { $0 == "fetchedRecordZoneChanges" }.count
        narrate("Her laptop's engine fetches them: \(report.laptopContactsAfterFetch) contacts in \(batches) fetchedRecordZoneChanges events.")

        advance(server, by: 60)
        phone.rename(renamedContact, to: "Coco the Clown", at: server.clock.now)
        try await phone.syncEngine.sendChanges()
        advance(server, by: 240)
        laptop.rename(renamedContact, to: "Coco the Great", at: server.clock.now)
        _ = phone.takeEvents()
        _ = laptop.takeEvents()
        narrate("The phone renames \(renamedContact) to 'Coco the Clown' and sends it; four minutes later the laptop, which has not fetched since, renames it to 'Coco the Great'.")

        do {
            try await laptop.syncEngine.sendChanges()
        } catch let error as CKError {
            report.conflictingSendError = error.code
            report.conflictItemError = error.partialErrorsByItemID?.values.compactMap { ($0 as? CKError)?.code }.first
        }
        report.conflictingSendEvents = laptop.takeEvents()
        report.serverNameInConflict = laptop.conflicts.serverNames.first
        narrate("The laptop's send meets \(report.conflictItemError?.title ?? "no error"): its delegate merges its newer name into the server's record ('\(report.serverNameInConflict ?? "?")') and adds the save again; sendChanges() throws \(report.conflictingSendError?.title ?? "nothing").")

        try await laptop.syncEngine.sendChanges()
        report.resendEvents = laptop.takeEvents()
        try await phone.syncEngine.fetchChanges()
        try await laptop.syncEngine.fetchChanges()
        narrate("The laptop sends again (\(report.resendEvents.filter { $0.hasPrefix("sentRecordZoneChanges") }.joined(separator: ", "))); then both fetch.")

        let phoneContacts = phone.contacts
        let laptopContacts = laptop.contacts
        report.conflictsResolved = (phone.conflicts.resolved, laptop.conflicts.resolved)
        report.finalNames = (phoneContacts[renamedContact]?.name, laptopContacts[renamedContact]?.name)
        report.contactCounts = (phoneContacts.count, laptopContacts.count)
        report.storesEqual = summary(of: phoneContacts) == summary(of: laptopContacts)
        narrate("Phone and laptop hold \(report.contactCounts.phone) and \(report.contactCounts.laptop) contacts, \(report.storesEqual ? "the same" : "not the same") names and change tags; \(renamedContact) is \(report.finalNames.phone == report.finalNames.laptop ? "'\(report.finalNames.phone ?? "?")' on both" : "'\(report.finalNames.phone ?? "?")' and '\(report.finalNames.laptop ?? "?")'").")
        return report
    }

    /// Each contact's name and last known change tag.
    private static func summary(of contacts: [String: Contact]) -> [String: [String?]] {
        contacts.mapValues { [$0.name, $0.lastKnownChangeTag] }
    }

    /// Moves a manual clock on, so the edits and saves have distinct dates.
    private static func advance(_ server: CloudServer, by seconds: TimeInterval) {
        (server.clock as? ManualClock)?.advance(by: seconds)
    }
}
