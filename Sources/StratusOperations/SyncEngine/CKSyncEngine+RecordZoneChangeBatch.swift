import Foundation
import StratusCore
import StratusWire

extension CKSyncEngine {
    /// The record changes of one send request, returned by the delegate's
    /// ``CKSyncEngineDelegate/nextRecordZoneChangeBatch(_:syncEngine:)``.
    ///
    /// The engine saves with `.ifServerRecordUnchanged`, so a record saved with the system
    /// fields of an older version fails with `serverRecordChanged`.
    public struct RecordZoneChangeBatch: Sendable, CustomStringConvertible {
        /// The records to save.
        public var recordsToSave: [CKRecord]
        /// The records to delete.
        public var recordIDsToDelete: [CKRecord.ID]
        /// Whether the changes of each zone succeed or fail together (in zones that support
        /// atomic changes); false by default, so each record succeeds or fails alone.
        public var atomicByZone: Bool

        /// Fills a batch from `pendingChanges`, in order, up to CloudKit's limits for one
        /// request (400 records, 2 MB of record data): deletes as they are, saves with the
        /// record `recordProvider` returns. A save whose provider returns nil is skipped (it
        /// stays pending in the engine's state until the app removes it). A single record too
        /// large for any request still goes alone, so the server can say why it fails.
        ///
        /// - Returns: nil when there is nothing to send.
        public init?(pendingChanges: [PendingRecordZoneChange], recordProvider: @Sendable (CKRecord.ID) async -> CKRecord?) async {
            var saves: [CKRecord] = []
            var deletes: [CKRecord.ID] = []
            var bytes = 0
            filling: for change in pendingChanges {
                if saves.count + deletes.count >= WireLimits.maximumItemsPerRequest { break }
                switch change {
                case .deleteRecord(let recordID):
                    let size = recordID.wireValue.byteSize
                    if bytes + size > WireLimits.maximumRequestBytes, !(saves.isEmpty && deletes.isEmpty) { break filling }
                    deletes.append(recordID)
                    bytes += size
                case .saveRecord(let recordID):
                    guard let record = await recordProvider(recordID) else { continue }
                    let size = record.makeSave(policy: CKRecordSavePolicy.ifServerRecordUnchanged.wireValue).record.byteSize
                    if bytes + size > WireLimits.maximumRequestBytes, !(saves.isEmpty && deletes.isEmpty) { break filling }
                    saves.append(record)
                    bytes += size
                }
            }
            guard !saves.isEmpty || !deletes.isEmpty else { return nil }
            self.init(recordsToSave: saves, recordIDsToDelete: deletes)
        }

        /// A batch of exactly these changes.
        public init(recordsToSave: [CKRecord] = [], recordIDsToDelete: [CKRecord.ID] = [], atomicByZone: Bool = false) {
            self.recordsToSave = recordsToSave
            self.recordIDsToDelete = recordIDsToDelete
            self.atomicByZone = atomicByZone
        }

        /// The counts and atomicity.
        public var description: String {
            "<RecordZoneChangeBatch recordsToSave=\(recordsToSave.count) recordIDsToDelete=\(recordIDsToDelete.count) atomicByZone=\(atomicByZone)>"
        }
    }
}
