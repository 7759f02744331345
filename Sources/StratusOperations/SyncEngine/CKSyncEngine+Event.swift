import Foundation
import StratusCore

extension CKSyncEngine {
    /// Something that happened while the engine worked, handed to
    /// ``CKSyncEngineDelegate/handleEvent(_:syncEngine:)`` one at a time.
    ///
    /// A fetch delivers `willFetchChanges`, then `fetchedDatabaseChanges` for each batch of
    /// zone changes, then for each zone with changes `willFetchRecordZoneChanges`,
    /// `fetchedRecordZoneChanges` for each batch and `didFetchRecordZoneChanges`, and finally
    /// `didFetchChanges`. A send delivers `willSendChanges`, `sentDatabaseChanges` and
    /// `sentRecordZoneChanges` for each request, and `didSendChanges`. A `stateUpdate` follows
    /// every event after which the state changed, whether the engine or the delegate changed it.
    public enum Event: Sendable, CustomStringConvertible {
        /// The state changed: persist the serialization with the data fetched so far.
        case stateUpdate(StateUpdate)
        /// The device's account changed; the engine reset its state unless this is a sign-in.
        case accountChange(AccountChange)
        /// Zones were created, changed or deleted on the server.
        case fetchedDatabaseChanges(FetchedDatabaseChanges)
        /// Records of one zone were saved or deleted on the server.
        case fetchedRecordZoneChanges(FetchedRecordZoneChanges)
        /// A batch of zone saves and deletes was sent.
        case sentDatabaseChanges(SentDatabaseChanges)
        /// A batch of record saves and deletes was sent.
        case sentRecordZoneChanges(SentRecordZoneChanges)
        /// A fetch begins.
        case willFetchChanges(WillFetchChanges)
        /// The record changes of one zone are about to be fetched.
        case willFetchRecordZoneChanges(WillFetchRecordZoneChanges)
        /// The record changes of one zone were fetched, or failed.
        case didFetchRecordZoneChanges(DidFetchRecordZoneChanges)
        /// A fetch ended.
        case didFetchChanges(DidFetchChanges)
        /// A send begins.
        case willSendChanges(WillSendChanges)
        /// A send ended.
        case didSendChanges(DidSendChanges)

        /// The case's payload description.
        public var description: String {
            switch self {
            case .stateUpdate(let event): event.description
            case .accountChange(let event): event.description
            case .fetchedDatabaseChanges(let event): event.description
            case .fetchedRecordZoneChanges(let event): event.description
            case .sentDatabaseChanges(let event): event.description
            case .sentRecordZoneChanges(let event): event.description
            case .willFetchChanges(let event): event.description
            case .willFetchRecordZoneChanges(let event): event.description
            case .didFetchRecordZoneChanges(let event): event.description
            case .didFetchChanges(let event): event.description
            case .willSendChanges(let event): event.description
            case .didSendChanges(let event): event.description
            }
        }
    }
}

extension CKSyncEngine.Event {
    /// The engine's state after a change, to persist and hand to the next engine's
    /// configuration.
    public struct StateUpdate: Sendable, CustomStringConvertible {
        /// The state, opaque and `Codable`.
        public let stateSerialization: CKSyncEngine.State.Serialization

        /// Names the event.
        public var description: String { "StateUpdate" }
    }

    /// A change of the device's account.
    public struct AccountChange: Sendable, CustomStringConvertible {
        /// What happened.
        public let changeType: ChangeType

        /// A sign-in, a sign-out, or a switch from one user to another.
        public enum ChangeType: Sendable, Equatable {
            /// An account signed in (or a new engine found one): the state is kept; the app
            /// decides what to do with data it kept while signed out.
            case signIn(currentUser: CKRecord.ID)
            /// The account signed out: the state was reset; delete the user's local data.
            case signOut(previousUser: CKRecord.ID)
            /// Another account signed in: the state was reset; delete the previous user's data.
            case switchAccounts(previousUser: CKRecord.ID, currentUser: CKRecord.ID)
        }

        /// The change and the users.
        public var description: String {
            switch changeType {
            case .signIn(let user): "AccountChange(signIn currentUser=\(user.recordName))"
            case .signOut(let user): "AccountChange(signOut previousUser=\(user.recordName))"
            case .switchAccounts(let previous, let current): "AccountChange(switchAccounts previousUser=\(previous.recordName) currentUser=\(current.recordName))"
            }
        }
    }

    /// One batch of zone changes from the server.
    public struct FetchedDatabaseChanges: Sendable, CustomStringConvertible {
        /// Zones created, or whose records changed.
        public let modifications: [CKDatabase.DatabaseChange.Modification]
        /// Zones deleted, with the reason.
        public let deletions: [CKDatabase.DatabaseChange.Deletion]

        /// The counts.
        public var description: String { "FetchedDatabaseChanges(modifications=\(modifications.count), deletions=\(deletions.count))" }
    }

    /// One batch of one zone's record changes from the server, typically oldest first.
    public struct FetchedRecordZoneChanges: @unchecked Sendable, CustomStringConvertible {
        /// Records saved, as the server has them now.
        public let modifications: [CKDatabase.RecordZoneChange.Modification]
        /// Records deleted.
        public let deletions: [CKDatabase.RecordZoneChange.Deletion]

        /// The counts.
        public var description: String { "FetchedRecordZoneChanges(modifications=\(modifications.count), deletions=\(deletions.count))" }
    }

    /// What happened to one request of zone saves and deletes.
    public struct SentDatabaseChanges: Sendable, CustomStringConvertible {
        /// Zones saved, as the server has them.
        public let savedZones: [CKRecordZone]
        /// Zones that could not be saved.
        public let failedZoneSaves: [FailedZoneSave]
        /// Zones deleted.
        public let deletedZoneIDs: [CKRecordZone.ID]
        /// Zones that could not be deleted, with the reason.
        public let failedZoneDeletes: [CKRecordZone.ID: CKError]

        /// A zone save that failed.
        public struct FailedZoneSave: Sendable, CustomStringConvertible {
            /// The zone the engine tried to save.
            public let zone: CKRecordZone
            /// Why it failed.
            public let error: CKError

            /// The zone and the error code.
            public var description: String { "FailedZoneSave(\(zone.zoneID.zoneName): \(error.code.title))" }
        }

        /// The counts.
        public var description: String {
            "SentDatabaseChanges(savedZones=\(savedZones.count), failedZoneSaves=\(failedZoneSaves.count), deletedZoneIDs=\(deletedZoneIDs.count), failedZoneDeletes=\(failedZoneDeletes.count))"
        }
    }

    /// What happened to one request of record saves and deletes.
    public struct SentRecordZoneChanges: Sendable, CustomStringConvertible {
        /// Records saved, as the server has them: new change tag, dates and every field.
        /// Keep their system fields for the next save.
        public let savedRecords: [CKRecord]
        /// Records that could not be saved. A `serverRecordChanged` error carries the server's
        /// record (`error.serverRecord`): merge into it and add the save again.
        public let failedRecordSaves: [FailedRecordSave]
        /// Records deleted.
        public let deletedRecordIDs: [CKRecord.ID]
        /// Records that could not be deleted, with the reason.
        public let failedRecordDeletes: [CKRecord.ID: CKError]

        /// A record save that failed.
        public struct FailedRecordSave: Sendable, CustomStringConvertible {
            /// The record the engine tried to save.
            public let record: CKRecord
            /// Why it failed.
            public let error: CKError

            /// The record and the error code.
            public var description: String { "FailedRecordSave(\(record.recordID.recordName): \(error.code.title))" }
        }

        /// The counts.
        public var description: String {
            "SentRecordZoneChanges(savedRecords=\(savedRecords.count), failedRecordSaves=\(failedRecordSaves.count), deletedRecordIDs=\(deletedRecordIDs.count), failedRecordDeletes=\(failedRecordDeletes.count))"
        }
    }

    /// A fetch begins.
    public struct WillFetchChanges: Sendable, CustomStringConvertible {
        /// Why and with which options.
        public let context: CKSyncEngine.FetchChangesContext

        /// Names the event and the reason.
        public var description: String { "WillFetchChanges(\(context.reason))" }
    }

    /// One zone's record changes are about to be fetched.
    public struct WillFetchRecordZoneChanges: Sendable, CustomStringConvertible {
        /// The zone.
        public let zoneID: CKRecordZone.ID

        /// Names the zone.
        public var description: String { "WillFetchRecordZoneChanges(\(zoneID.zoneName))" }
    }

    /// One zone's record changes were fetched, or the fetch failed.
    public struct DidFetchRecordZoneChanges: Sendable, CustomStringConvertible {
        /// The zone.
        public let zoneID: CKRecordZone.ID
        /// Why the zone's fetch failed, or nil. `zoneNotFound` and `userDeletedZone` mean the
        /// zone is gone; a transient error means the engine will fetch the zone again.
        public let error: CKError?

        /// Names the zone and the error code, if any.
        public var description: String { "DidFetchRecordZoneChanges(\(zoneID.zoneName)\(error.map { ", error=\($0.code.title)" } ?? ""))" }
    }

    /// A fetch ended.
    public struct DidFetchChanges: Sendable, CustomStringConvertible {
        /// Why and with which options.
        public let context: CKSyncEngine.FetchChangesContext

        /// Names the event and the reason.
        public var description: String { "DidFetchChanges(\(context.reason))" }
    }

    /// A send begins.
    public struct WillSendChanges: Sendable, CustomStringConvertible {
        /// Why and with which options.
        public let context: CKSyncEngine.SendChangesContext

        /// Names the event and the reason.
        public var description: String { "WillSendChanges(\(context.reason))" }
    }

    /// A send ended.
    public struct DidSendChanges: Sendable, CustomStringConvertible {
        /// Why and with which options.
        public let context: CKSyncEngine.SendChangesContext

        /// Names the event and the reason.
        public var description: String { "DidSendChanges(\(context.reason))" }
    }
}
