import Foundation
import StratusWire

/// The server's identifier of a notification: opaque, compared by value.
///
/// Swift code usually spells it `CKNotification.ID`. It archives with `NSSecureCoding` as one
/// versioned, checksummed blob; decoding anything malformed gives nil.
///
/// CloudKit document: *CKNotification.ID*.
public final class CKNotificationID: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The server's identifier, opaque to the client.
    package let value: String

    package init(value: String) {
        self.value = value
    }

    /// Whether `object` is a notification ID with the same value, byte for byte.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKNotificationID else { return false }
        return other.value.hasSameUTF8Bytes(as: value)
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int {
        var hasher = Hasher()
        value.hashUTF8Bytes(into: &hasher)
        return hasher.finalize()
    }

    /// Returns self: a notification ID is immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Notification IDs decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's name for the class, `CKNotificationID`, listed as the class's fallback in an
    /// archive's class table (see ``SecureCodingBlob``).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKNotificationID"] }

    /// Encodes the ID as one versioned blob.
    public func encode(with coder: NSCoder) {
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.notificationID) { $0.write(value) }, with: coder)
    }

    /// Decodes an ID; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let value = SecureCodingBlob.decode(from: coder, as: .notificationID, { reader throws(BinaryFormatError) in
            try reader.readString()
        }) else { return nil }
        self.init(value: value)
    }

    /// A summary such as `<CKNotificationID: 8d8b8a2e-…>`.
    public override var description: String { "<CKNotificationID: \(value)>" }
}
