import Stratus
import Synchronization
import XCTest

/// A fresh server per test with a clock that moves only when the test advances it, and a
/// private database of John's to run operations on.
class OperationTestCase: XCTestCase {
    let identifier = "iCloud.com.example.clowns"
    var clock: ManualClock!
    var server: CloudServer!
    var database: CKDatabase!

    override func setUp() {
        super.setUp()
        clock = ManualClock()
        server = CloudServer(clock: clock)
        database = server.container(identifier: identifier, account: "john").privateCloudDatabase
    }

    override func tearDown() {
        database = nil
        server = nil
        clock = nil
        super.tearDown()
    }

    func note(_ name: String, _ text: String = "text") -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name))
        record["text"] = text
        return record
    }

    /// Saves `records` through the convenience API.
    func seed(_ records: [CKRecord]) async throws {
        _ = try await database.modifyRecords(saving: records, deleting: [])
    }
}

/// A thread-safe log of events, for checking callback order from any thread.
final class EventLog: Sendable {
    private let events = Mutex<[String]>([])
    private let inFlight = Atomic<Int>(0)
    private let overlaps = Atomic<Int>(0)

    func append(_ event: String) {
        events.withLock { $0.append(event) }
    }

    var all: [String] { events.withLock { $0 } }

    /// Records `event` as a callback, and notes it if another callback of the same operation
    /// was running at the same time or it runs on the main thread.
    func callback(_ event: String) {
        if inFlight.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlaps.add(1, ordering: .relaxed) }
        if Thread.isMainThread { append("main thread: \(event)") }
        append(event)
        inFlight.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// How many callbacks overlapped another.
    var overlapCount: Int { overlaps.load(ordering: .relaxed) }
}

extension Result {
    var failureCode: CKError.Code? {
        guard case .failure(let error) = self else { return nil }
        return (error as? CKError)?.code
    }
}
