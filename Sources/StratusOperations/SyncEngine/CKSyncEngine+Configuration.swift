import Foundation
import StratusCore

extension CKSyncEngine {
    /// How to set up an engine: its database, the state it saved last time, and its delegate.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// The database to sync with: a container's private or shared database. An engine on
        /// the public database refuses every fetch and send with `invalidArguments`, as
        /// CloudKit has no change tracking there.
        public var database: CKDatabase
        /// What the last ``CKSyncEngine/Event/stateUpdate(_:)`` handed over, or nil the first
        /// time the app runs (the engine then starts with a `signIn` account change).
        public var stateSerialization: State.Serialization?
        /// Receives the engine's events and provides its record batches. The engine holds it
        /// weakly, as CloudKit does: keep it alive for as long as the engine.
        public var delegate: any CKSyncEngineDelegate
        /// Whether the engine syncs on its own: sends soon after pending changes are added,
        /// fetches when a push for its subscription arrives, and retries transient errors
        /// later. True by default. With false it does nothing unless asked, so a test decides
        /// the order of every event. Times are read from the container's device clock: under
        /// a `ManualClock`, nothing happens until the test advances it.
        public var automaticallySync = true
        /// The ID of the database subscription the engine creates and listens to; nil for the
        /// engine's own (`CKSyncEngineDatabaseSubscription-Private` or `-Shared`). Set it to
        /// keep using a subscription an app made before it moved to `CKSyncEngine`.
        public var subscriptionID: CKSubscription.ID?

        /// A configuration with `automaticallySync` on and the engine's own subscription.
        public init(database: CKDatabase, stateSerialization: State.Serialization?, delegate: any CKSyncEngineDelegate) {
            self.database = database
            self.stateSerialization = stateSerialization
            self.delegate = delegate
        }

        /// The database, whether a serialization was given, and the sync settings.
        public var description: String {
            "<CKSyncEngine.Configuration database=\(database) hasStateSerialization=\(stateSerialization != nil) automaticallySync=\(automaticallySync) subscriptionID=\(subscriptionID ?? "nil")>"
        }
    }
}

/// What a ``CKSyncEngine`` asks of the app: to handle its events, to provide the next batch of
/// record changes to send, and, optionally, to adjust each fetch.
///
/// The engine calls these one at a time: no event is delivered while another is being
/// handled or while a batch is being built. Do not call ``CKSyncEngine/fetchChanges(_:)`` or
/// ``CKSyncEngine/sendChanges(_:)`` and wait for it from inside these methods: the call waits
/// for the engine, which waits for the method to return.
public protocol CKSyncEngineDelegate: AnyObject, Sendable {
    /// Handles one event; the engine delivers the next only after this returns.
    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async

    /// The next record changes to send, or nil when there is nothing more. Return only
    /// changes that `context.options.scope` contains; see
    /// ``CKSyncEngine/RecordZoneChangeBatch/init(pendingChanges:recordProvider:)``.
    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch?

    /// The options for the next request of a fetch; called before every zone-changes request,
    /// so the app can narrow the scope or reorder zones as it goes. By default, `context.options`.
    func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions
}

extension CKSyncEngineDelegate {
    /// Returns `context.options` unchanged.
    public func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions {
        context.options
    }
}
