import Foundation
import StratusCore

extension CKSyncEngine {
    /// A change to one record that the engine should send: added to
    /// ``CKSyncEngine/State/pendingRecordZoneChanges`` by the app, handed back to the app's
    /// ``CKSyncEngineDelegate/nextRecordZoneChangeBatch(_:syncEngine:)``.
    public enum PendingRecordZoneChange: Hashable, Sendable, CustomStringConvertible {
        /// Save the record with this ID; the delegate provides its current contents.
        case saveRecord(CKRecord.ID)
        /// Delete the record with this ID.
        case deleteRecord(CKRecord.ID)

        /// The record the change is about.
        var recordID: CKRecord.ID {
            switch self {
            case .saveRecord(let recordID), .deleteRecord(let recordID): recordID
            }
        }

        /// `saveRecord(name)` or `deleteRecord(name)`.
        public var description: String {
            switch self {
            case .saveRecord(let recordID): "saveRecord(\(recordID.recordName))"
            case .deleteRecord(let recordID): "deleteRecord(\(recordID.recordName))"
            }
        }
    }

    /// A change to one zone that the engine sends itself, before any record change.
    ///
    /// Two changes are equal when they are of the same kind and about the same zone ID, so
    /// `remove(pendingDatabaseChanges: [.saveZone(zone)])` removes the save of that zone
    /// whichever `CKRecordZone` object was added.
    public enum PendingDatabaseChange: Hashable, Sendable, CustomStringConvertible {
        /// Create the zone (or save its settings).
        case saveZone(CKRecordZone)
        /// Delete the zone and every record in it.
        case deleteZone(CKRecordZone.ID)

        /// The zone the change is about.
        var zoneID: CKRecordZone.ID {
            switch self {
            case .saveZone(let zone): zone.zoneID
            case .deleteZone(let zoneID): zoneID
            }
        }

        private var isSave: Bool {
            if case .saveZone = self { return true }
            return false
        }

        /// Equal when both save, or both delete, the same zone ID.
        public static func == (lhs: PendingDatabaseChange, rhs: PendingDatabaseChange) -> Bool {
            lhs.isSave == rhs.isSave && lhs.zoneID == rhs.zoneID
        }

        /// Hashes the kind and the zone ID.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(isSave)
            hasher.combine(zoneID)
        }

        /// `saveZone(name)` or `deleteZone(name)`.
        public var description: String {
            switch self {
            case .saveZone(let zone): "saveZone(\(zone.zoneID.zoneName))"
            case .deleteZone(let zoneID): "deleteZone(\(zoneID.zoneName))"
            }
        }
    }
}
