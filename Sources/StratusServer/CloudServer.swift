import Foundation
import StratusWire
import Synchronization

/// An embedded, in-memory CloudKit server: the default ``CloudService`` behind every Stratus
/// container.
///
/// Where iCloud is a remote service you cannot control, a `CloudServer` lives in your process
/// and does exactly what you tell it: its clock moves when you advance it, change tags come
/// from a counter, and failures happen when you inject them. It keeps containers by
/// identifier, with one public database per container shared by every account, one private
/// database per account, and an empty shared database. Each call to
/// `container(identifier:account:)` is a new device; devices of one account share its private
/// database, as a user's phone and laptop do.
///
/// ```swift
/// let server = CloudServer(clock: ManualClock())
/// let phone = server.container(identifier: "iCloud.com.example.clowns", account: "john")
/// let laptop = server.container(identifier: "iCloud.com.example.clowns", account: "john")
/// try await phone.privateCloudDatabase.save(CKRecord(recordType: "Note"))
/// server.requestCount                                   // 1
/// server.failNextRequests(1, with: .zoneBusy, retryAfter: 2)
/// ```
///
/// It behaves as CloudKit's server does: change tags and `serverRecordChanged` conflicts with
/// server, client and ancestor records, the three save policies, atomic zones, `deleteSelf`
/// cascades, the owner's side of sharing (a share saved with its root, zone-wide shares,
/// participants; `ShareRules`), request and record limits, security roles in the public
/// database, quotas, the development schema, change histories, and subscriptions that fire into each account's
/// notification collection and push to its devices (see ``holdsPushes`` and the other push
/// settings for best-effort delivery). Locks are per zone, so devices working on different zones never wait
/// for each other.
///
/// - Warning: Not modelled: the production environment and deploying (a later part), accepting
///   shares and the shared database, persistence across process restarts, and the network (requests are in-process calls).
public final class CloudServer: CloudService, Sendable {
    /// The server every `CKContainer(identifier:)` and `CKContainer.default()` talks to.
    public static let shared = CloudServer()

    /// The clock behind server dates and the server's retry-after windows. The devices the
    /// embedded wiring makes (`container(identifier:account:)`) keep their timeouts, holds and
    /// retry-after waits on this same clock, so a test that advances it moves both sides; a
    /// client of a service in another process keeps a clock of its own.
    public let clock: any CloudClock

    let registry: Mutex<Registry>
    let storeSettings = StoreSettings(tombstoneLimit: StoreSettings.defaultTombstoneLimit)
    let accountStorage = Mutex<[String: (used: Int, quota: Int?)]>([:])
    let assets = AssetStore()
    private let tagCounter = Atomic<UInt64>(0)
    let notificationSerial = Atomic<UInt64>(0)
    /// Who receives pushes, what waits for delivery, and the push log.
    let pushes = Mutex(PushRouter())
    /// The record writes applied, while a test records them (nil otherwise).
    let writeHistory = Mutex<[RecordWrite]?>(nil)
    private let pageSize = Mutex(100)

    /// The key that seals this server's cursors: derived from the server's seed and its
    /// serial number in the process, so another server's cursors are refused.
    let sealingKey: [UInt8]
    private static let serials = Atomic<UInt64>(0)
    private static let processSeed = UInt64.random(in: .min ... .max)

    /// Creates an empty server.
    ///
    /// - Parameters:
    ///   - clock: The server's time; pass a ``ManualClock`` to decide in tests when time
    ///     passes. A ``SystemClock`` by default.
    ///   - seed: What the server's sealing key is derived from, with its serial number in the
    ///     process. By default a seed drawn once per process, so cursors from an earlier run
    ///     are refused; pass one to make every byte the server hands out repeat across runs.
    public init(clock: any CloudClock = SystemClock(), seed: UInt64? = nil) {
        self.clock = clock
        registry = Mutex(Registry(settings: storeSettings))
        let serial = Self.serials.add(1, ordering: .relaxed).newValue
        sealingKey = SHA256.digest(Array("stratus-sealing-key-\(seed ?? Self.processSeed)-\(serial)".utf8))
    }

    /// How many records a query page holds when its `resultsLimit` leaves the choice to the
    /// server (`CKQueryOperation.maximumResults`): 100 unless set.
    public var defaultQueryResultsLimit: Int {
        get { pageSize.withLock { $0 } }
        set { pageSize.withLock { $0 = max(1, newValue) } }
    }

    /// A new change tag: a counter in base 36, so tags are short, unique and repeatable.
    func nextChangeTag() -> String {
        String(tagCounter.add(1, ordering: .relaxed).newValue, radix: 36)
    }

    /// The container with `identifier`, created on first use.
    func containerStore(_ identifier: String) -> ContainerStore {
        registry.withLock { $0.container(identifier) }
    }
}
