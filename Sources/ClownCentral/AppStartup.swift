import Foundation
import Stratus
import StratusToolkit
import Synchronization

/// The app start-up of WWDC 2015's "Advanced NSOperations", on CloudKit: settings, then a
/// version check, then news and the schedule, then favourites, feedback and videos, then a
/// save — one graph of operations run as a `GroupOperation`. The favourites save goes through
/// the retry recipe while the server answers `zoneBusy` twice; then 1,000 photos are saved
/// through the batch-splitting recipe.
public enum AppStartup {
    /// What the story observed.
    public struct Report: Sendable {
        /// The steps of the start-up graph, in the order they finished.
        public var finished: [String] = []
        /// The news items fetched (following cursors).
        public var news = 0
        /// The sessions fetched (following cursors).
        public var sessions = 0
        /// The favourites saved.
        public var favouritesSaved = 0
        /// The retries saving the favourites took.
        public var favouriteRetries = 0
        /// The photos saved through the splitting recipe.
        public var photosSaved = 0
        /// The requests saving the photos took.
        public var photoRequests = 0
    }

    /// Runs the story on `server`.
    public static func run(on server: CloudServer, narrate: (String) -> Void = { _ in }) async throws -> Report {
        let staff = server.container(identifier: ClownCentral.containerIdentifier, account: "staff")
        let phone = server.container(identifier: ClownCentral.containerIdentifier, account: "john")
        try await seed(staff.publicCloudDatabase)
        narrate("The staff publish the app version, 5 news items, 12 sessions and 2 videos.")

        let finished = Collected<String>()
        let retries = Atomic(0)
        let tally = Mutex(Report())
        // Each retry waits on the device's clock (the server's, as the embedded wiring gives it); a manual clock is moved on by the wait.
        var policy = RetryPolicy(seed: 2015)
        policy.onRetry = { event in
            retries.add(1, ordering: .relaxed)
            if case .seconds(let seconds) = event.wait, let clock = server.clock as? ManualClock { clock.advance(by: seconds) }
        }

        // Each step notes that it is done in its own final block, which runs before the step
        // finishes, so the notes follow the graph's order.
        let settings = BlockOperation { finished.append("settings") }
        let versionCheck = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "app-version")])
        versionCheck.database = phone.publicCloudDatabase
        versionCheck.fetchRecordsResultBlock = { _ in finished.append("version check") }
        let news = QueryAllOperation(database: phone.publicCloudDatabase, query: CKQuery(recordType: "News", predicate: NSPredicate(value: true)))
        news.resultsLimit = 2
        news.recordMatchedBlock = { _, _ in tally.withLock { $0.news += 1 } }
        news.queryResultBlock = { _ in finished.append("news") }
        let schedule = QueryAllOperation(database: phone.publicCloudDatabase, query: CKQuery(recordType: "Session", predicate: NSPredicate(value: true)))
        schedule.resultsLimit = 5
        schedule.recordMatchedBlock = { _, _ in tally.withLock { $0.sessions += 1 } }
        schedule.queryResultBlock = { _ in finished.append("schedule") }
        let favouriteRecords = ["juggling", "unicycles", "tiny-cars"].map { name -> CKRecord in
            let favourite = CKRecord(recordType: "Favourite", recordID: CKRecord.ID(recordName: "favourite-\(name)"))
            favourite["session"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "session-\(name)"), action: .none)
            return favourite
        }
        let favourites = RetryModifyRecordsOperation(database: phone.privateCloudDatabase, recordsToSave: favouriteRecords, policy: policy)
        favourites.perRecordSaveBlock = { _, result in if case .success = result { tally.withLock { $0.favouritesSaved += 1 } } }
        favourites.modifyRecordsResultBlock = { _ in finished.append("favourites") }
        // The server is busy just as the favourites go up: the first attempt's request and the
        // next one meet `zoneBusy`.
        let attempts = Atomic(0)
        favourites.makeOperation = { records, recordIDs in
            if attempts.add(1, ordering: .relaxed).newValue == 1 { server.failNextRequests(2, with: .zoneBusy, retryAfter: 1) }
            return CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: recordIDs)
        }
        let feedback = CKModifyRecordsOperation(recordsToSave: [CKRecord(recordType: "Feedback")])
        feedback.database = phone.publicCloudDatabase
        feedback.modifyRecordsResultBlock = { _ in finished.append("feedback") }
        let videos = CKQueryOperation(query: CKQuery(recordType: "Video", predicate: NSPredicate(value: true)))
        videos.database = phone.publicCloudDatabase
        videos.queryResultBlock = { _ in finished.append("videos") }
        let save = BlockOperation { finished.append("save") }

        versionCheck.addDependency(settings)
        news.addDependency(versionCheck)
        schedule.addDependency(versionCheck)
        for operation in [favourites, feedback, videos] as [Operation] {
            operation.addDependency(news)
            operation.addDependency(schedule)
            save.addDependency(operation)
        }

        let startup = GroupOperation()
        // One at a time, so the two injected failures reach the favourites save and nothing else.
        startup.maxConcurrentOperationCount = 1
        startup.addOperations([settings, versionCheck, news, schedule, feedback, videos, save])
        startup.addOperation(favourites, conditions: [AccountAvailable(container: phone)])
        let queue = OperationQueue()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.addOperation(startup, observers: [BlockObserver(finishHandler: { _, _ in continuation.resume() })])
        }
        var report = tally.withLock { $0 }
        report.finished = finished.values
        report.favouriteRetries = retries.load(ordering: .relaxed)
        narrate("Start-up ran \(report.finished.count) steps as one group: \(report.finished.joined(separator: " → ")).")
        narrate("News and schedule followed their cursors: \(report.news) news items, \(report.sessions) sessions.")
        narrate("The favourites save met zoneBusy twice and retried after each retry-after: \(report.favouritesSaved) saved after \(report.favouriteRetries) retries.")

        let photos = (0..<1_000).map { index -> CKRecord in
            let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: String(format: "photo-%04d", index)))
            photo["caption"] = "Clown \(index)"
            photo["thumbnail"] = Data(repeating: UInt8(index % 251), count: 4_000)
            return photo
        }
        let before = server.requestCount
        let saved = try await phone.privateCloudDatabase.modifyRecordsInBatches(saving: photos)
        report.photosSaved = saved.saveResults.values.filter { (try? $0.get()) != nil }.count
        report.photoRequests = server.requestCount - before
        narrate("\(report.photosSaved) photos went up through the splitting recipe in \(report.photoRequests) requests (at most 400 records and 2 MB each).")
        return report
    }

    private static func seed(_ database: CKDatabase) async throws {
        let version = CKRecord(recordType: "AppVersion", recordID: CKRecord.ID(recordName: "app-version"))
        version["current"] = "2.0"
        var records = [version]
        records += (0..<5).map { index in
            let item = CKRecord(recordType: "News", recordID: CKRecord.ID(recordName: "news-\(index)"))
            item["headline"] = "Clown news \(index)"
            return item
        }
        records += (0..<12).map { index in
            let session = CKRecord(recordType: "Session", recordID: CKRecord.ID(recordName: "session-\(index)"))
            session["title"] = "Session \(index)"
            return session
        }
        records += (0..<2).map { index in CKRecord(recordType: "Video", recordID: CKRecord.ID(recordName: "video-\(index)")) }
        _ = try await database.modifyRecords(saving: records, deleting: [])
    }
}
