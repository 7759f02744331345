import Foundation
import Stratus

/// The photos step of WWDC 2015's "CloudKit Tips and Tricks": save 100 photos one at a time,
/// then as one `CKModifyRecordsOperation`, and count the requests each way; then fetch two
/// records with operations chained by `addDependency` across two queues.
public enum PhotoUpload {
    /// What the step observed.
    public struct Report: Sendable {
        /// Requests for 100 single saves.
        public var singleSaveRequests = 0
        /// Requests for one modify operation with 100 records.
        public var batchRequests = 0
        /// The records the chained fetches returned, in the order their final blocks ran.
        public var chainedFetches: [String] = []
    }

    /// Runs the step on `server`, telling each part to `narrate`.
    public static func run(on server: CloudServer, count: Int = 100, narrate: (String) -> Void = { _ in }) async throws -> Report {
        var report = Report()
        let database = server.container(identifier: ClownCentral.containerIdentifier, account: "john").privateCloudDatabase

        let before = server.requestCount
        for index in 0..<count {
            _ = try await database.save(photo("single-\(index)"))
        }
        report.singleSaveRequests = server.requestCount - before
        narrate("\(count) photos saved one at a time: \(report.singleSaveRequests) requests.")

        let batchStart = server.requestCount
        report.batchRequests = try await withCheckedThrowingContinuation { continuation in
            let operation = CKModifyRecordsOperation(recordsToSave: (0..<count).map { photo("batch-\($0)") })
            operation.modifyRecordsResultBlock = { result in
                switch result {
                case .success: continuation.resume(returning: server.requestCount - batchStart)
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
            database.add(operation)
        }
        narrate("\(count) photos saved as one CKModifyRecordsOperation: \(report.batchRequests) request.")

        // Two queues of our own, held until both fetches are done.
        let queues = (OperationQueue(), OperationQueue())
        report.chainedFetches = await withCheckedContinuation { continuation in
            let order = Order()
            let first = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "batch-0")])
            first.database = database
            first.fetchRecordsResultBlock = { _ in order.append("batch-0") }
            let second = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "batch-1")])
            second.database = database
            second.fetchRecordsResultBlock = { _ in
                order.append("batch-1")
                continuation.resume(returning: order.names)
            }
            second.addDependency(first)
            queues.0.addOperation(second)
            queues.1.addOperation(first)
        }
        withExtendedLifetime(queues) {}
        narrate("Two fetches on two queues, the second depending on the first, finished in order: \(report.chainedFetches.joined(separator: ", ")).")
        return report
    }

    private static func photo(_ name: String) -> CKRecord {
        let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: name))
        photo["thumbnail"] = Data(repeating: 0xAB, count: 256)
        photo["title"] = name
        return photo
    }

    /// The order final blocks ran in; they run on different operations' queues.
    private final class Order: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []

        func append(_ name: String) {
            lock.withLock { stored.append(name) }
        }

        var names: [String] { lock.withLock { stored } }
    }
}
