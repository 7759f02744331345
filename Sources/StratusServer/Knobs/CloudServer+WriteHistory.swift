import StratusWire
import Synchronization

extension CloudServer {
    /// One record write the server applied: a save that changed the stored record, or a
    /// deletion (cascades included).
    @_spi(Testing)
    public struct RecordWrite: Hashable, Sendable {
        /// The record, with its zone's owner as the writer's request named it normalised to
        /// `__defaultOwner__` in private databases.
        public var recordID: WireRecordID
        /// The database written to.
        public var databaseScope: WireDatabaseScope
        /// The user record name of the account that wrote it.
        public var userRecordName: String?
        /// The change tag the record has after the write; nil for a deletion.
        public var changeTag: String?
        /// Whether the record was deleted.
        public var isDeletion: Bool
        /// The `CKOperation.operationID` of the operation whose request wrote it, if any.
        public var operationID: String?
        /// The device that sent the request.
        public var deviceID: String
    }

    /// Whether the server keeps ``recordedWrites``: false unless set, so the write path pays
    /// nothing for it otherwise. Setting it clears what was recorded.
    @_spi(Testing)
    public var isRecordingWrites: Bool {
        get { writeHistory.withLock { $0 != nil } }
        set { writeHistory.withLock { $0 = newValue ? [] : nil } }
    }

    /// Every record write applied since ``isRecordingWrites`` was set, in the order the server
    /// applied them: what a test checks to show that a client never reported a record saved
    /// that the server does not hold, and never wrote one record twice.
    @_spi(Testing)
    public var recordedWrites: [RecordWrite] {
        writeHistory.withLock { $0 ?? [] }
    }

    /// Records the writes of one request, when recording.
    func noteWrites(_ events: DatabaseEvents, database: DatabaseStore, scope: RequestScope, operationID: String?) {
        writeHistory.withLock { history in
            guard history != nil else { return }
            for (_, changes) in events.recordChanges {
                for change in changes {
                    guard let record = change.new ?? change.old else { continue }
                    history?.append(RecordWrite(
                        recordID: record.recordID, databaseScope: database.scope, userRecordName: scope.userRecordName,
                        changeTag: change.new?.changeTag, isDeletion: change.new == nil,
                        operationID: operationID, deviceID: scope.deviceID
                    ))
                }
            }
        }
    }
}
