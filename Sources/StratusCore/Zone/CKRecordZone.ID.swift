import Foundation
import StratusWire

/// The stand-in for the current user as the owner of a zone: `"__defaultOwner__"`.
public let CKCurrentUserDefaultName = WireZoneID.currentUserOwnerName

extension CKRecordZone {
    /// A zone's identity: its name and its owner. See ``CKRecordZoneID``.
    public typealias ID = CKRecordZoneID
}

/// A zone's identity: its name and its owner. Swift code spells it `CKRecordZone.ID`.
///
/// Equal names and owners make equal IDs (`isEqual`/`hash`), so IDs work as dictionary keys,
/// also inside `AnyHashable`. Names are equal when their UTF-8 bytes are, as the server stores
/// them: the canonically equivalent but differently spelled `"Zon\u{E9}"` and `"Zone\u{301}"`
/// name two zones.
///
/// The class is declared at the top level, under CloudKit's Objective-C name, because
/// `NSKeyedArchiver` on Linux cannot archive an object of a nested class.
///
/// CloudKit document: *CKRecordZone.ID*.
public final class CKRecordZoneID: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// The name of every database's default zone: `"_defaultZone"`.
    public static let defaultZoneName = WireZoneID.defaultZoneName

    /// The current user's default zone.
    public static let `default` = CKRecordZoneID()

    /// The zone's name, unique within its owner's database.
    public let zoneName: String
    /// The owner's user record name; ``CKCurrentUserDefaultName`` means the current user.
    public let ownerName: String

    /// Creates a zone ID.
    ///
    /// - Parameters:
    ///   - zoneName: The zone's name; the default zone's by default. Names longer than 255
    ///     UTF-8 bytes or empty are refused when used in a request, with `invalidArguments`.
    ///   - ownerName: The owner's user record name; the current user by default.
    public init(zoneName: String = CKRecordZoneID.defaultZoneName, ownerName: String = CKCurrentUserDefaultName) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    package convenience init(wire: WireZoneID) {
        self.init(zoneName: wire.zoneName, ownerName: wire.ownerName)
    }

    package var wireValue: WireZoneID { WireZoneID(zoneName: zoneName, ownerName: ownerName) }

    /// Whether `object` is a zone ID with the same name and owner, byte for byte.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecordZoneID else { return false }
        return other === self
            || (other.zoneName.hasSameUTF8Bytes(as: zoneName) && other.ownerName.hasSameUTF8Bytes(as: ownerName))
    }

    /// A hash of the names' UTF-8 bytes, consistent with ``isEqual(_:)``.
    public override var hash: Int {
        var hasher = Hasher()
        zoneName.hashUTF8Bytes(into: &hasher)
        ownerName.hashUTF8Bytes(into: &hasher)
        return hasher.finalize()
    }

    /// Returns self: a zone ID is immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Zone IDs decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's name for the class, `CKRecordZoneID`: the class table of an archive whose root or
    /// nested object this is lists it as the class's fallback (`$classhints`). Foundation on
    /// Linux writes the module-qualified Swift name as `$classname` and offers no way to change
    /// it (see ``SecureCodingBlob``).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKRecordZoneID"] }

    /// Encodes the ID as one versioned blob.
    public func encode(with coder: NSCoder) {
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.zoneID) { wireValue.write(to: &$0) }, with: coder)
    }

    /// Decodes an ID; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let wire = SecureCodingBlob.decode(from: coder, as: .zoneID, WireZoneID.read) else { return nil }
        self.init(wire: wire)
    }

    /// A summary such as `<CKRecordZoneID: zoneName=Photos, ownerName=__defaultOwner__>`.
    public override var description: String {
        "<CKRecordZoneID: zoneName=\(zoneName), ownerName=\(ownerName)>"
    }
}
