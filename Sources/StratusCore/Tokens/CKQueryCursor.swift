import Foundation
import StratusWire

/// An opaque position in the results of a query, for fetching the next page.
///
/// A query that has more results than it returned hands you a cursor; a query operation made
/// from the cursor continues after the last record returned. Cursors archive with
/// `NSSecureCoding`. A cursor from another database, zone, user or server, or one that was
/// altered, is refused with `invalidArguments`. Swift code usually spells it
/// `CKQueryOperation.Cursor`.
///
/// CloudKit document: *CKQueryOperation.Cursor*.
public final class CKQueryCursor: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The server's bytes, opaque to the client.
    package let bytes: Data

    package init(bytes: Data) {
        self.bytes = bytes
    }

    /// Whether `object` is a cursor with the same bytes.
    public override func isEqual(_ object: Any?) -> Bool {
        (object as? CKQueryCursor)?.bytes == bytes
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { bytes.hashValue }

    /// Returns self: a cursor is immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Cursors decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's name for the class, `CKQueryCursor`: the class table of an archive whose root or
    /// nested object this is lists it as the class's fallback (`$classhints`). Foundation on
    /// Linux writes the module-qualified Swift name as `$classname` and offers no way to change
    /// it (see ``SecureCodingBlob``).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKQueryCursor"] }

    /// Encodes the cursor as one versioned blob.
    public func encode(with coder: NSCoder) {
        SecureCodingBlob.encodeOpaqueBytes(bytes, as: .queryCursor, with: coder)
    }

    /// Decodes a cursor; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let bytes = SecureCodingBlob.decodeOpaqueBytes(from: coder, as: .queryCursor) else { return nil }
        self.init(bytes: bytes)
    }

    /// A summary that does not reveal the cursor's contents.
    public override var description: String { "<CKQueryCursor: \(bytes.count) bytes>" }
}
