import Foundation
import StratusWire

/// A zone of a database: a partition of records with its own capabilities.
///
/// Every database has a default zone, which has no capabilities. Custom zones exist only in
/// private databases; saving one gives it ``Capabilities/fetchChanges`` and
/// ``Capabilities/atomic``.
///
/// CloudKit document: *CKRecordZone*.
public final class CKRecordZone: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// What a zone supports.
    public struct Capabilities: OptionSet, Hashable, Sendable {
        /// The raw bit mask.
        public let rawValue: UInt
        /// Creates a capability set from its bit mask.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The zone's changes can be fetched with a change token.
        public static let fetchChanges = Capabilities(rawValue: 1 << 0)
        /// The zone applies atomic batches all or nothing.
        public static let atomic = Capabilities(rawValue: 1 << 1)
        /// The zone can hold shared records (not in this release).
        public static let sharing = Capabilities(rawValue: 1 << 2)
        /// The zone can be shared as a whole (not in this release).
        public static let zoneWideSharing = Capabilities(rawValue: 1 << 3)
    }

    /// The zone's identity.
    public let zoneID: ID

    /// What the zone supports. Meaningful only for a zone that was saved or fetched; a zone you
    /// create locally reports none.
    public let capabilities: Capabilities

    /// The zone-wide share; nil, as sharing is not in this release.
    public var share: CKRecord.Reference? { nil }

    /// The database's default zone, which exists without being saved.
    public static func `default`() -> CKRecordZone {
        CKRecordZone(zoneID: .default)
    }

    /// Creates a zone owned by the current user, to be saved.
    public convenience init(zoneName: String) {
        self.init(zoneID: ID(zoneName: zoneName))
    }

    /// Creates a zone with the given identity, to be saved.
    public convenience init(zoneID: ID) {
        self.init(zoneID: zoneID, capabilities: [])
    }

    package init(zoneID: ID, capabilities: Capabilities) {
        self.zoneID = zoneID
        self.capabilities = capabilities
    }

    package convenience init(wire: WireZone) {
        self.init(zoneID: ID(wire: wire.zoneID), capabilities: Capabilities(rawValue: wire.capabilities.rawValue))
    }

    package var wireValue: WireZone {
        WireZone(zoneID: zoneID.wireValue, capabilities: WireZone.Capabilities(rawValue: capabilities.rawValue))
    }

    /// Returns self: a zone is immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Zones decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's name for the class, `CKRecordZone`: the class table of an archive whose root or
    /// nested object this is lists it as the class's fallback (`$classhints`). Foundation on
    /// Linux writes the module-qualified Swift name as `$classname` and offers no way to change
    /// it (see ``SecureCodingBlob``).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKRecordZone"] }

    /// Encodes the zone as one versioned blob.
    public func encode(with coder: NSCoder) {
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.zone) { wireValue.write(to: &$0) }, with: coder)
    }

    /// Decodes a zone; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let wire = SecureCodingBlob.decode(from: coder, as: .zone, WireZone.read) else { return nil }
        self.init(wire: wire)
    }

    /// A summary such as `<CKRecordZone: zoneID=…, capabilities=(fetchChanges, atomic)>`.
    public override var description: String {
        var names: [String] = []
        if capabilities.contains(.fetchChanges) { names.append("fetchChanges") }
        if capabilities.contains(.atomic) { names.append("atomic") }
        if capabilities.contains(.sharing) { names.append("sharing") }
        if capabilities.contains(.zoneWideSharing) { names.append("zoneWideSharing") }
        return "<CKRecordZone: zoneID=\(zoneID), capabilities=(\(names.joined(separator: ", ")))>"
    }
}
