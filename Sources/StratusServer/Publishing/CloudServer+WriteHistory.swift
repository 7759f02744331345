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

    /// Records the writes of one request, when recording; the server's own writes (user
    /// records) are no request's and are not recorded.
    func noteWrites(_ events: DatabaseEvents, database: DatabaseStore, origin: WriteOrigin) {
        guard let deviceID = origin.deviceID else { return }
        writeHistory.withLock { history in
            guard history != nil else { return }
            for (_, changes) in events.recordChanges {
                for change in changes {
                    guard let record = change.new ?? change.old else { continue }
                    history?.append(RecordWrite(
                        recordID: record.recordID, databaseScope: database.scope, userRecordName: origin.userRecordName,
                        changeTag: change.new?.changeTag, isDeletion: change.new == nil,
                        operationID: origin.operationID, deviceID: deviceID
                    ))
                }
            }
        }
    }
}
