import Foundation
import StratusWire

extension CKRecord {
    /// A record's identity: its name and its zone. See ``CKRecordID``.
    public typealias ID = CKRecordID
}

/// A record's identity: its name and its zone. Swift code spells it `CKRecord.ID`.
///
/// Equal names and zones make equal IDs (`isEqual`/`hash`), so IDs work as dictionary keys,
/// also inside `AnyHashable`, as in ``CKError/partialErrorsByItemID``. Names are equal when
/// their UTF-8 bytes are, as the server stores them: the canonically equivalent but
/// differently spelled `"Zon\u{E9}"` and `"Zone\u{301}"` name two records.
///
/// The class is declared at the top level, under CloudKit's Objective-C name, because
/// `NSKeyedArchiver` on Linux cannot archive an object of a nested class.
///
/// CloudKit document: *CKRecord.ID*.
public final class CKRecordID: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// The record's name, unique within its zone.
    public let recordName: String
    /// The zone that holds the record.
    public let zoneID: CKRecordZone.ID

    /// Creates a record ID.
    ///
    /// - Parameters:
    ///   - recordName: The name; a new UUID string by default. An empty name or one longer
    ///     than 255 UTF-8 bytes is refused when used in a request, with `invalidArguments`.
    ///   - zoneID: The zone; the default zone by default.
    public init(recordName: String = RandomUUID.string(), zoneID: CKRecordZone.ID = .default) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    package convenience init(wire: WireRecordID) {
        self.init(recordName: wire.recordName, zoneID: CKRecordZone.ID(wire: wire.zoneID))
    }

    package var wireValue: WireRecordID {
        WireRecordID(recordName: recordName, zoneID: zoneID.wireValue)
    }

    /// Whether `object` is a record ID with the same name (byte for byte) and zone.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecordID else { return false }
        return other === self || (other.recordName.hasSameUTF8Bytes(as: recordName) && other.zoneID.isEqual(zoneID))
    }

    /// A hash of the names' UTF-8 bytes, consistent with ``isEqual(_:)``.
    public override var hash: Int {
        var hasher = Hasher()
        recordName.hashUTF8Bytes(into: &hasher)
        zoneID.zoneName.hashUTF8Bytes(into: &hasher)
        zoneID.ownerName.hashUTF8Bytes(into: &hasher)
        return hasher.finalize()
    }

    /// Returns self: a record ID is immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Record IDs decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's name for the class, `CKRecordID`: the class table of an archive whose root or
    /// nested object this is lists it as the class's fallback (`$classhints`). Foundation on
    /// Linux writes the module-qualified Swift name as `$classname` and offers no way to change
    /// it (see ``SecureCodingBlob``).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKRecordID"] }

    /// Encodes the ID as one versioned blob.
    public func encode(with coder: NSCoder) {
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.recordID) { wireValue.write(to: &$0) }, with: coder)
    }

    /// Decodes an ID; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let wire = SecureCodingBlob.decode(from: coder, as: .recordID, WireRecordID.read) else { return nil }
        self.init(wire: wire)
    }

    /// A summary such as `<CKRecordID: recordName=photo-1, zoneID=_defaultZone:__defaultOwner__>`.
    public override var description: String {
        "<CKRecordID: recordName=\(recordName), zoneID=\(zoneID.zoneName):\(zoneID.ownerName)>"
    }
}
