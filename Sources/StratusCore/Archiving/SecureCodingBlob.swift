import Foundation
import StratusWire

/// How every Stratus `NSSecureCoding` type archives itself: one versioned, checksummed blob
/// (``ArchiveEnvelope``) stored as `NSData` under one key.
///
/// Decoding returns nil, never crashes, for a missing key, a value of another class, and a blob
/// that is truncated, damaged, of another version or of another object kind.
///
/// - Warning: Damage to the outer `NSKeyedArchiver` bytes can crash Foundation itself on Linux
///   before Stratus's code runs (it calls `fatalError` on an unexpected class name, seen after a
///   few hundred random byte flips), and `NSKeyedUnarchiver`'s instance API raises on a nil
///   `init?(coder:)` unless its `decodingFailurePolicy` is `.setErrorAndReturn`. Decode archives
///   with `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`, which throws instead.
///
/// An archive whose root (or a nested object) is a Stratus object names the class in its class
/// table. CloudKit's archives say `CKRecord`, `CKRecordID`, …; Foundation on Linux always writes
/// the module-qualified Swift name (`StratusCore.CKRecord`) as `$classname`: its
/// `NSStringFromClass` qualifies every class outside Foundation, there is no Objective-C runtime
/// name (`@objc(CKRecord)`) to give, and `NSKeyedArchiver.setClassName(_:for:)` stores its
/// mapping under a key its lookup never uses, so it has no effect. Each class therefore gives
/// CloudKit's name through `classFallbacksForKeyedArchiver()`, which the archive lists as the
/// class's `$classhints`.
package enum SecureCodingBlob {
    /// The key the blob is stored under.
    package static let key = "StratusArchive"

    /// Classes tolerated under ``key`` so that a foreign value there yields nil instead of a
    /// Foundation crash; only `NSData` is accepted.
    private static let tolerated: [AnyClass] = [
        NSData.self, NSString.self, NSNumber.self, NSDate.self, NSArray.self, NSDictionary.self,
    ]

    /// Stores `bytes` in `coder`.
    package static func encode(_ bytes: [UInt8], with coder: NSCoder) {
        coder.encode(NSData(bytes: bytes, length: bytes.count), forKey: key)
    }

    /// The blob stored in `coder`, or nil when there is none.
    static func blob(from coder: NSCoder) -> Data? {
        guard coder.allowsKeyedCoding, coder.containsValue(forKey: key) else { return nil }
        guard let data = coder.decodeObject(of: tolerated, forKey: key) as? NSData else { return nil }
        return Data(referencing: data)
    }

    /// Parses the blob stored in `coder` as an object of `kind`; nil for anything malformed.
    package static func decode<Value>(
        from coder: NSCoder,
        as kind: ArchiveEnvelope.Kind,
        _ read: (inout BinaryReader) throws(BinaryFormatError) -> Value
    ) -> Value? {
        guard let blob = blob(from: coder) else { return nil }
        return try? ArchiveEnvelope.decode(blob, as: kind, read)
    }

    /// Stores a server's opaque bytes (a change token's or a cursor's) as a blob of `kind`.
    static func encodeOpaqueBytes(_ bytes: Data, as kind: ArchiveEnvelope.Kind, with coder: NSCoder) {
        encode(ArchiveEnvelope.seal(kind) { $0.write(bytes) }, with: coder)
    }

    /// The opaque bytes stored by ``encodeOpaqueBytes(_:as:with:)``; nil for anything malformed.
    static func decodeOpaqueBytes(from coder: NSCoder, as kind: ArchiveEnvelope.Kind) -> Data? {
        decode(from: coder, as: kind) { reader throws(BinaryFormatError) in try reader.readData() }
    }
}
