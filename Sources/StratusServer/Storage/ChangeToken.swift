import StratusWire

/// A position in the change history of a database or of one zone, as a `CKServerChangeToken`
/// carries it: whose history (container, database, user, and for a zone its ID and
/// incarnation) and how far into it (the database's change sequence).
///
/// On the wire: a format version, the fields below, and an HMAC-SHA-256 under the server's
/// own key, so that a flipped byte, a forged token or one from another server is refused.
struct ChangeToken: Hashable {
    static let version: UInt8 = 1

    /// Whose history the token follows.
    enum Subject: Hashable {
        /// A database's zones.
        case database
        /// One zone's records, in one incarnation of the zone.
        case zone(WireZoneID, incarnation: UInt64)
        /// One owner's zone as a participant's shared database shows it, in one incarnation of
        /// the zone, while the participant holds the shares `grants` digests
        /// (``ZoneStore/grantsDigest(_:)``): the records a participant sees depend on their
        /// shares as well as on the zone's history.
        case sharedZone(WireZoneID, incarnation: UInt64, grants: UInt64)
        /// The user's notification collection in the container (the database is not part of
        /// it: the token says private).
        case notifications
    }

    var containerIdentifier: String
    var database: WireDatabaseScope
    var userRecordName: String?
    var subject: Subject
    /// The last change the holder has seen.
    var position: UInt64

    func sealed(with key: [UInt8]) -> [UInt8] {
        var writer = SealedOwner(containerIdentifier: containerIdentifier, database: database, userRecordName: userRecordName).writer(version: Self.version)
        switch subject {
        case .database:
            writer.write(UInt8(0))
        case .zone(let zoneID, let incarnation):
            writer.write(UInt8(1))
            zoneID.write(to: &writer)
            writer.write(incarnation)
        case .notifications:
            writer.write(UInt8(2))
        case .sharedZone(let zoneID, let incarnation, let grants):
            writer.write(UInt8(3))
            zoneID.write(to: &writer)
            writer.write(incarnation)
            writer.write(grants)
        }
        writer.write(position)
        return Sealing.seal(writer.bytes, key: key)
    }

    /// Opens a token sealed with `key`; throws `invalidArguments` for anything else.
    static func open(_ bytes: [UInt8], key: [UInt8]) throws(WireError) -> ChangeToken {
        let refused = WireError(.invalidArguments, "the change token is not one this server issued, or it was altered")
        return try SealedOwner.open(bytes, key: key, version: version, refused: refused) { (owner, reader) throws(BinaryFormatError) in
            let subject: Subject
            switch try reader.readByte() {
            case 0: subject = .database
            case 1: subject = .zone(try WireZoneID.read(from: &reader), incarnation: try reader.readUInt64())
            case 2: subject = .notifications
            case 3: subject = .sharedZone(try WireZoneID.read(from: &reader), incarnation: try reader.readUInt64(), grants: try reader.readUInt64())
            default: throw BinaryFormatError("subject")
            }
            return ChangeToken(
                containerIdentifier: owner.containerIdentifier, database: owner.database, userRecordName: owner.userRecordName,
                subject: subject, position: try reader.readUInt64()
            )
        }
    }

    /// Checks that the token follows the history of `database` in `container` for `user`,
    /// and of the zone `zoneID` when given (any incarnation).
    func check(container: String, database: WireDatabaseScope, user: String?, zoneID: WireZoneID?) throws(WireError) {
        let sameOwner = containerIdentifier.hasSameUTF8Bytes(as: container) && self.database == database
            && userRecordName.map { name in user.map { name.hasSameUTF8Bytes(as: $0) } ?? false } ?? (user == nil)
        guard sameOwner else {
            throw WireError(.invalidArguments, "the change token belongs to another container, database or user")
        }
        switch (subject, zoneID) {
        case (.database, nil):
            return
        case (.zone(let tokenZone, _), let zoneID?) where tokenZone == zoneID,
             (.sharedZone(let tokenZone, _, _), let zoneID?) where tokenZone == zoneID:
            return
        case (.database, _?):
            throw WireError(.invalidArguments, "a database change token cannot fetch a zone's changes")
        case (.zone, nil), (.sharedZone, nil):
            throw WireError(.invalidArguments, "a zone change token cannot fetch a database's changes")
        case (.zone(let tokenZone, _), let zoneID?), (.sharedZone(let tokenZone, _, _), let zoneID?):
            throw WireError(.invalidArguments, "the change token belongs to zone '\(tokenZone.zoneName)', not '\(zoneID.zoneName)'")
        case (.notifications, _):
            throw WireError(.invalidArguments, "a notification change token cannot fetch record or database changes")
        }
    }
}
