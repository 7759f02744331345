import Foundation
import StratusWire

/// An opaque position in a database's or a zone's history of changes.
///
/// You receive tokens from change fetches, keep them (they archive with `NSSecureCoding`), and
/// hand them back to fetch only what changed since. Database tokens and zone tokens are not
/// interchangeable, and tokens have no order. A token from another database, zone, user or
/// server, or one that was altered, is refused with `invalidArguments`.
///
/// CloudKit document: *CKServerChangeToken*.
public final class CKServerChangeToken: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The server's bytes, opaque to the client.
    package let bytes: Data

    package init(bytes: Data) {
        self.bytes = bytes
    }

    /// Whether `object` is a token with the same bytes.
    public override func isEqual(_ object: Any?) -> Bool {
        (object as? CKServerChangeToken)?.bytes == bytes
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { bytes.hashValue }

    /// Returns self: a token is immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Tokens decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's name for the class, `CKServerChangeToken`: the class table of an archive whose root or
    /// nested object this is lists it as the class's fallback (`$classhints`). Foundation on
    /// Linux writes the module-qualified Swift name as `$classname` and offers no way to change
    /// it (see ``SecureCodingBlob``).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKServerChangeToken"] }

    /// Encodes the token as one versioned blob.
    public func encode(with coder: NSCoder) {
        SecureCodingBlob.encodeOpaqueBytes(bytes, as: .serverChangeToken, with: coder)
    }

    /// Decodes a token; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let bytes = SecureCodingBlob.decodeOpaqueBytes(from: coder, as: .serverChangeToken) else { return nil }
        self.init(bytes: bytes)
    }

    /// A summary that does not reveal the token's contents.
    public override var description: String { "<CKServerChangeToken: \(bytes.count) bytes>" }
}
