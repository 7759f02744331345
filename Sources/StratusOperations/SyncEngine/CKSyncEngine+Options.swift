import Foundation
import StratusCore

extension CKSyncEngine {
    /// Why the engine is fetching or sending: on its own schedule, or because the app called
    /// ``CKSyncEngine/fetchChanges(_:)`` or ``CKSyncEngine/sendChanges(_:)``.
    public enum SyncReason: Hashable, Sendable, CustomStringConvertible {
        /// The engine scheduled the sync itself: pending changes were added, a push came, or a
        /// transient error is being retried.
        case scheduled
        /// The app asked for it.
        case manual

        /// `scheduled` or `manual`.
        public var description: String {
            switch self {
            case .scheduled: "scheduled"
            case .manual: "manual"
            }
        }
    }

    /// What a fetch covers and how it is grouped.
    public struct FetchChangesOptions: Sendable, CustomStringConvertible {
        /// Which zones' record changes to fetch. Database changes are always fetched whole, so
        /// the engine learns of every changed zone; zones outside the scope stay listed in
        /// ``CKSyncEngine/State/zoneIDsWithUnfetchedServerChanges`` for a later fetch.
        public var scope: Scope
        /// The group the fetch's operations belong to; a new group unless one is given.
        public var operationGroup: CKOperationGroup
        /// Zones to fetch before the others, in this order; zones without changes are ignored.
        public var prioritizedZoneIDs: [CKRecordZone.ID] = []

        /// The zones a fetch covers.
        public enum Scope: Sendable, Equatable, CustomStringConvertible {
            /// Every zone.
            case all
            /// Every zone but these.
            case allExcluding([CKRecordZone.ID])
            /// Only these zones.
            case zoneIDs([CKRecordZone.ID])

            /// Whether the scope covers `zoneID`.
            public func contains(_ zoneID: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: true
                case .allExcluding(let excluded): !excluded.contains(zoneID)
                case .zoneIDs(let included): included.contains(zoneID)
                }
            }

            /// `all`, or the zones the scope includes or excludes.
            public var description: String {
                switch self {
                case .all: "all"
                case .allExcluding(let zoneIDs): "allExcluding(\(zoneIDs.map(\.zoneName)))"
                case .zoneIDs(let zoneIDs): "zoneIDs(\(zoneIDs.map(\.zoneName)))"
                }
            }
        }

        /// Options for a fetch of `scope`, in `operationGroup` (a new group when nil).
        public init(scope: Scope = .all, operationGroup: CKOperationGroup? = nil) {
            self.scope = scope
            self.operationGroup = operationGroup ?? CKOperationGroup()
        }

        /// The scope and the prioritized zones.
        public var description: String {
            "<FetchChangesOptions scope=\(scope) prioritizedZoneIDs=\(prioritizedZoneIDs.map(\.zoneName))>"
        }
    }

    /// What a send covers and how it is grouped.
    public struct SendChangesOptions: Sendable, CustomStringConvertible {
        /// Which changes to send. The engine sends the pending database changes of the zones
        /// in scope itself; the delegate's ``CKSyncEngineDelegate/nextRecordZoneChangeBatch(_:syncEngine:)``
        /// should return only record changes the scope contains.
        public var scope: Scope
        /// The group the send's operations belong to; a new group unless one is given.
        public var operationGroup: CKOperationGroup

        /// The changes a send covers.
        public enum Scope: Sendable, Equatable, CustomStringConvertible {
            /// Every pending change.
            case all
            /// Changes in every zone but these.
            case allExcluding([CKRecordZone.ID])
            /// Changes in these zones only.
            case zoneIDs([CKRecordZone.ID])
            /// Changes to these records only (and the zones they live in).
            case recordIDs([CKRecord.ID])

            /// Whether the scope covers changes to `recordID`.
            public func contains(_ recordID: CKRecord.ID) -> Bool {
                switch self {
                case .all: true
                case .allExcluding(let excluded): !excluded.contains(recordID.zoneID)
                case .zoneIDs(let included): included.contains(recordID.zoneID)
                case .recordIDs(let included): included.contains(recordID)
                }
            }

            /// Whether the scope covers `pendingChange`.
            public func contains(_ pendingChange: PendingRecordZoneChange) -> Bool {
                contains(pendingChange.recordID)
            }

            /// Whether the scope covers changes to the zone `zoneID` itself.
            func containsZone(_ zoneID: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: true
                case .allExcluding(let excluded): !excluded.contains(zoneID)
                case .zoneIDs(let included): included.contains(zoneID)
                case .recordIDs(let included): included.contains { $0.zoneID == zoneID }
                }
            }

            /// `all`, or the zones or records the scope includes or excludes.
            public var description: String {
                switch self {
                case .all: "all"
                case .allExcluding(let zoneIDs): "allExcluding(\(zoneIDs.map(\.zoneName)))"
                case .zoneIDs(let zoneIDs): "zoneIDs(\(zoneIDs.map(\.zoneName)))"
                case .recordIDs(let recordIDs): "recordIDs(\(recordIDs.map(\.recordName)))"
                }
            }
        }

        /// Options for a send of `scope`, in `operationGroup` (a new group when nil).
        public init(scope: Scope = .all, operationGroup: CKOperationGroup? = nil) {
            self.scope = scope
            self.operationGroup = operationGroup ?? CKOperationGroup()
        }

        /// The scope.
        public var description: String { "<SendChangesOptions scope=\(scope)>" }
    }

    /// One attempt to fetch: why, and with which options.
    public struct FetchChangesContext: Sendable, CustomStringConvertible {
        /// Why the engine is fetching.
        public let reason: SyncReason
        /// The options of this fetch.
        public let options: FetchChangesOptions

        /// The reason and options.
        public var description: String { "<FetchChangesContext reason=\(reason) options=\(options)>" }
    }

    /// One attempt to send: why, and with which options.
    public struct SendChangesContext: Sendable, CustomStringConvertible {
        /// Why the engine is sending.
        public let reason: SyncReason
        /// The options of this send.
        public let options: SendChangesOptions

        /// The reason and options.
        public var description: String { "<SendChangesContext reason=\(reason) options=\(options)>" }
    }
}
