import Foundation
import StratusWire

/// A zone of a database: a partition of records with its own capabilities.
///
/// Every database has a default zone, which has no capabilities. Custom zones exist only in
/// private databases; saving one gives it ``Capabilities/fetchChanges`` and
/// ``Capabilities/atomic``, and the sharing capabilities (``Capabilities/sharing``,
/// ``Capabilities/zoneWideSharing``) the server grants custom private zones.
///
/// CloudKit document: *CKRecordZone*.
public final class CKRecordZone: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// What a zone supports: `fetchChanges`, `atomic`, `sharing`, `zoneWideSharing`. The
    /// same type as the zone's value on the wire, so it crosses without conversion.
    public typealias Capabilities = WireZone.Capabilities

    /// The zone's identity.
    public let zoneID: ID

    /// What the zone supports. Meaningful only for a zone that was saved or fetched; a zone you
    /// create locally reports none.
    public let capabilities: Capabilities

    /// The zone-wide share, on a zone fetched while it is shared as a whole: a reference to
    /// the share record named ``CKRecordNameZoneWideShare``. nil for a zone you create locally
    /// and for a zone not shared as a whole.
    public let share: CKRecord.Reference?

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

    package init(zoneID: ID, capabilities: Capabilities, share: CKRecord.Reference? = nil) {
        self.zoneID = zoneID
        self.capabilities = capabilities
        self.share = share
    }

    package convenience init(wire: WireZone) {
        self.init(
            zoneID: ID(wire: wire.zoneID),
            capabilities: wire.capabilities,
            share: wire.share.map { CKRecord.Reference(wire: $0) }
        )
    }

    package var wireValue: WireZone {
        WireZone(zoneID: zoneID.wireValue, capabilities: capabilities, share: share?.wireValue)
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

    /// Encodes the zone as one versioned blob; the zone-wide share, when there is one, follows
    /// the zone, so the archive of a zone without one is what earlier versions wrote.
    public func encode(with coder: NSCoder) {
        let wire = wireValue
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.zone) { writer in
            wire.write(to: &writer)
            wire.share?.write(to: &writer)
        }, with: coder)
    }

    /// Decodes a zone; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        let decoded = SecureCodingBlob.decode(from: coder, as: .zone) { reader throws(BinaryFormatError) in
            var wire = try WireZone.read(from: &reader)
            if reader.remaining > 0 { wire.share = try WireReference.read(from: &reader) }
            return wire
        }
        guard let decoded else { return nil }
        self.init(wire: decoded)
    }

    /// A summary such as `<CKRecordZone: zoneID=…, capabilities=(fetchChanges, atomic)>`, naming
    /// the zone-wide share when there is one.
    public override var description: String {
        var names: [String] = []
        if capabilities.contains(.fetchChanges) { names.append("fetchChanges") }
        if capabilities.contains(.atomic) { names.append("atomic") }
        if capabilities.contains(.sharing) { names.append("sharing") }
        if capabilities.contains(.zoneWideSharing) { names.append("zoneWideSharing") }
        let shared = share.map { ", share=\($0.recordID.recordName)" } ?? ""
        return "<CKRecordZone: zoneID=\(zoneID), capabilities=(\(names.joined(separator: ", ")))\(shared)>"
    }
}
