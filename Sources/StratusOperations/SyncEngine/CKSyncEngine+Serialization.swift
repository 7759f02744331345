import Foundation
import StratusCore

extension CKSyncEngine.State {
    /// An engine's state, to persist after each ``CKSyncEngine/Event/stateUpdate(_:)`` and
    /// hand to the next engine's configuration.
    ///
    /// Opaque: it encodes as one versioned blob (a base64 string in JSON). Decoding damaged or
    /// foreign bytes throws `DecodingError.dataCorrupted`, so a corrupt save is caught where
    /// the app reads it; the app then starts from nil and refetches everything.
    ///
    /// It records the user it belongs to, and its change tokens are that user's. Handed to an
    /// engine whose device is signed in to another user, it is reset
    /// (`accountChange(.switchAccounts)`); one that names no user (saved before the first
    /// sync) keeps its pending changes at the sign-in but none of its tokens. A token the
    /// server refuses anyway (`invalidArguments` or `changeTokenExpired`) is dropped and its
    /// database or zone fetched again from the beginning, so a state never wedges its engine.
    /// CloudKit does not document what its engine does with such a state; this is what an app
    /// needs for its fetches to go on.
    public struct Serialization: Codable, Sendable, CustomStringConvertible {
        let snapshot: StateSnapshot

        init(snapshot: StateSnapshot) {
            self.snapshot = snapshot
        }

        /// Encodes the state as one blob.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(snapshot.encoded())
        }

        /// Decodes a blob written by ``encode(to:)``.
        ///
        /// - Throws: `DecodingError.dataCorrupted` when the blob is not a state Stratus wrote.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let data = try container.decode(Data.self)
            guard let snapshot = StateSnapshot(encoded: data) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a CKSyncEngine state serialization written by Stratus (damaged, or from an unknown version)")
            }
            self.snapshot = snapshot
        }

        /// Names the type; the contents are opaque.
        public var description: String { "<CKSyncEngine.State.Serialization>" }
    }
}

/// The persisted form of a state: plain names and token bytes, versioned.
struct StateSnapshot: Codable, Sendable {
    static let magic = Data("SKSE".utf8)
    static let version: UInt8 = 1

    struct Zone: Codable, Sendable, Hashable {
        var zoneName: String
        var ownerName: String
    }

    struct Record: Codable, Sendable {
        var recordName: String
        var zone: Zone
        var isDelete: Bool
    }

    struct ZoneChange: Codable, Sendable {
        var zone: Zone
        var capabilities: UInt?
        var isDelete: Bool
    }

    struct Token: Codable, Sendable {
        var zone: Zone
        var bytes: Data
    }

    var userRecordName: String?
    var databaseToken: Data?
    var zoneTokens: [Token]
    var records: [Record]
    var zones: [ZoneChange]
    var hasPendingUntrackedChanges: Bool
    var unfetchedZones: [Zone]
    var subscriptionID: String?

    /// The magic, the version, then the snapshot as JSON.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // A snapshot holds only strings, booleans and bytes, which always encode.
        let body = (try? encoder.encode(self)) ?? Data()
        return Self.magic + Data([Self.version]) + body
    }
}

extension StateSnapshot {
    /// Reads what ``encoded()`` wrote; nil for anything else, or for names CloudKit forbids.
    init?(encoded data: Data) {
        guard data.count > Self.magic.count, data.prefix(Self.magic.count) == Self.magic,
              data[data.startIndex + Self.magic.count] == Self.version,
              let decoded = try? JSONDecoder().decode(StateSnapshot.self, from: data.dropFirst(Self.magic.count + 1))
        else { return nil }
        let zones = decoded.zoneTokens.map(\.zone) + decoded.records.map(\.zone) + decoded.zones.map(\.zone) + decoded.unfetchedZones
        guard zones.allSatisfy({ !$0.zoneName.isEmpty && !$0.ownerName.isEmpty }),
              decoded.records.allSatisfy({ !$0.recordName.isEmpty })
        else { return nil }
        self = decoded
    }
}

extension StateSnapshot.Zone {
    init(_ zoneID: CKRecordZone.ID) {
        self.init(zoneName: zoneID.zoneName, ownerName: zoneID.ownerName)
    }

    var zoneID: CKRecordZone.ID { CKRecordZone.ID(zoneName: zoneName, ownerName: ownerName) }
}

extension StateStorage {
    /// The storage as a snapshot.
    var snapshot: StateSnapshot {
        StateSnapshot(
            userRecordName: userRecordName,
            databaseToken: databaseToken?.bytes,
            zoneTokens: zoneTokens.map { StateSnapshot.Token(zone: .init($0.key), bytes: $0.value.bytes) }
                .sorted { ($0.zone.zoneName, $0.zone.ownerName) < ($1.zone.zoneName, $1.zone.ownerName) },
            records: records.ordered.map { change in
                switch change {
                case .saveRecord(let id): StateSnapshot.Record(recordName: id.recordName, zone: .init(id.zoneID), isDelete: false)
                case .deleteRecord(let id): StateSnapshot.Record(recordName: id.recordName, zone: .init(id.zoneID), isDelete: true)
                }
            },
            zones: zones.ordered.map { change in
                switch change {
                case .saveZone(let zone): StateSnapshot.ZoneChange(zone: .init(zone.zoneID), capabilities: zone.capabilities.rawValue, isDelete: false)
                case .deleteZone(let zoneID): StateSnapshot.ZoneChange(zone: .init(zoneID), capabilities: nil, isDelete: true)
                }
            },
            hasPendingUntrackedChanges: hasPendingUntrackedChanges,
            unfetchedZones: unfetchedZoneIDs.map(StateSnapshot.Zone.init),
            subscriptionID: subscriptionID
        )
    }

    /// The storage a snapshot describes.
    init(_ snapshot: StateSnapshot) {
        userRecordName = snapshot.userRecordName
        databaseToken = snapshot.databaseToken.map { CKServerChangeToken(bytes: $0) }
        zoneTokens = Dictionary(snapshot.zoneTokens.map { ($0.zone.zoneID, CKServerChangeToken(bytes: $0.bytes)) }, uniquingKeysWith: { _, last in last })
        records = PendingList(snapshot.records.map { record in
            let id = CKRecord.ID(recordName: record.recordName, zoneID: record.zone.zoneID)
            return (id, record.isDelete ? .deleteRecord(id) : .saveRecord(id))
        })
        zones = PendingList(snapshot.zones.map { change in
            let zoneID = change.zone.zoneID
            let zone = CKRecordZone(zoneID: zoneID, capabilities: CKRecordZone.Capabilities(rawValue: change.capabilities ?? 0))
            return (zoneID, change.isDelete ? .deleteZone(zoneID) : .saveZone(zone))
        })
        hasPendingUntrackedChanges = snapshot.hasPendingUntrackedChanges
        unfetchedZoneIDs = snapshot.unfetchedZones.map(\.zoneID)
        subscriptionID = snapshot.subscriptionID
    }
}
