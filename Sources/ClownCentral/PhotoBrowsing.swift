import Foundation
import Stratus

/// The photo browsing of WWDC 2014's "Advanced CloudKit": the 20 newest photos of a party,
/// fetching only their thumbnails, then the next page through the cursor.
public enum PhotoBrowsing {
    /// What the step observed.
    public struct Report: Sendable {
        /// The names of the first page's photos, newest first.
        public var firstPage: [String] = []
        /// The keys the first page's records hold.
        public var fetchedKeys: Set<String> = []
        /// The names of the second page's photos.
        public var secondPage: [String] = []
        /// Whether a third page remains after the second.
        public var moreAfterSecondPage = false
    }

    /// Saves `count` photos of the WWDC Bash, one per minute, then browses them on `server`.
    public static func run(on server: CloudServer, count: Int = 45, narrate: (String) -> Void = { _ in }) async throws -> Report {
        let database = server.container(identifier: ClownCentral.containerIdentifier, account: "alice").publicCloudDatabase
        let bash = CKRecord.ID(recordName: "wwdc-bash")
        let photos = (0..<count).map { index -> CKRecord in
            let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: String(format: "bash-photo-%02d", index)))
            photo["party"] = CKRecord.Reference(recordID: bash, action: .none)
            photo["taken"] = Date(timeIntervalSince1970: 1_401_753_600 + Double(index) * 60)
            photo["thumbnail"] = Data(repeating: UInt8(index), count: 32)
            photo["fullImage"] = Data(repeating: UInt8(index), count: 4_096)
            return photo
        }
        _ = try await database.modifyRecords(saving: photos, deleting: [])
        narrate("Alice saves \(count) photos of the WWDC Bash.")

        let query = CKQuery(recordType: "Photo", predicate: NSPredicate(format: "party == %@", bash))
        query.sortDescriptors = [NSSortDescriptor(key: "taken", ascending: false)]
        var report = Report()
        let first = try await database.records(matching: query, desiredKeys: ["thumbnail"], resultsLimit: 20)
        let firstRecords = first.matchResults.compactMap { try? $0.1.get() }
        report.firstPage = firstRecords.map(\.recordID.recordName)
        report.fetchedKeys = Set(firstRecords.flatMap { $0.allKeys() })
        narrate("The 20 newest photos, thumbnails only: \(report.firstPage.first ?? "?") … \(report.firstPage.last ?? "?"), keys \(report.fetchedKeys.sorted()).")

        if let cursor = first.queryCursor {
            let second = try await database.records(continuingMatchFrom: cursor, desiredKeys: ["thumbnail"], resultsLimit: 20)
            report.secondPage = second.matchResults.compactMap { try? $0.1.get().recordID.recordName }
            report.moreAfterSecondPage = second.queryCursor != nil
            narrate("The next page through the cursor: \(report.secondPage.first ?? "?") … \(report.secondPage.last ?? "?")\(report.moreAfterSecondPage ? ", and more to come" : "").")
        }
        return report
    }
}
