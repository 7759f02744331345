import Foundation

/// One record or zone name as a server keeps it: equal, hashed and ordered by its UTF-8 bytes.
///
/// Swift's `String` equality is canonical equivalence, so the precomposed `"Zon\u{E9}"` and the
/// decomposed `"Zone\u{301}"` are `==` although their bytes differ. CloudKit's server stores
/// names as bytes, so those are two names, two records, two zones. Use `WireName` wherever a
/// name is a key (a dictionary of records by name, a set of names):
///
/// ```swift
/// var records: [WireName: WireRecord] = [:]
/// records[WireName("Zon\u{E9}")] = precomposed
/// records[WireName("Zone\u{301}")] = decomposed   // a second entry, not a replacement
/// ```
///
/// ``WireRecordID``, ``WireZoneID``, `CKRecord.ID` and `CKRecordZone.ID` compare their names
/// the same way. The order (`<`) is the order of the UTF-8 bytes, which is also the order of
/// the Unicode scalars.
public struct WireName: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name.
    public let string: String

    /// Wraps `string`; nothing is normalised.
    public init(_ string: String) {
        self.string = string
    }

    /// Wraps a literal name.
    public init(stringLiteral value: String) {
        self.string = value
    }

    /// Whether the two names have the same UTF-8 bytes.
    public static func == (lhs: WireName, rhs: WireName) -> Bool {
        lhs.string.hasSameUTF8Bytes(as: rhs.string)
    }

    /// Hashes the UTF-8 bytes of the name.
    public func hash(into hasher: inout Hasher) {
        string.hashUTF8Bytes(into: &hasher)
    }

    /// Whether `lhs` comes first when the names are ordered by their UTF-8 bytes.
    public static func < (lhs: WireName, rhs: WireName) -> Bool {
        lhs.string.precedesByUTF8Bytes(rhs.string)
    }

    /// The name itself.
    public var description: String { string }
}

extension String {
    /// Whether the two strings have the same UTF-8 bytes (not merely canonical equivalence,
    /// which `==` tests). Allocates nothing for native strings.
    package func hasSameUTF8Bytes(as other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        let contiguous = lhs.withContiguousStorageIfAvailable { lhsBytes in
            rhs.withContiguousStorageIfAvailable { rhsBytes in
                guard let left = lhsBytes.baseAddress, let right = rhsBytes.baseAddress else { return lhsBytes.count == rhsBytes.count }
                return memcmp(left, right, lhsBytes.count) == 0
            }
        }
        if let contiguous, let equal = contiguous { return equal }
        return lhs.elementsEqual(rhs)
    }

    /// Feeds the UTF-8 bytes of the string, then their count, to `hasher`, consistently with
    /// ``hasSameUTF8Bytes(as:)``. Allocates nothing for native strings.
    package func hashUTF8Bytes(into hasher: inout Hasher) {
        let hashed: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        if hashed == nil {
            // A string bridged from elsewhere: make a native copy so the bytes are hashed
            // in one piece, exactly as for a native string with the same bytes.
            var native = self
            native.makeContiguousUTF8()
            let copied: Void? = native.utf8.withContiguousStorageIfAvailable { bytes in
                hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            }
            if copied == nil {
                for byte in utf8 { hasher.combine(byte) }
            }
        }
        hasher.combine(utf8.count)
    }

    /// Whether the string's UTF-8 bytes come lexicographically before those of `other`.
    package func precedesByUTF8Bytes(_ other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        let contiguous = lhs.withContiguousStorageIfAvailable { lhsBytes in
            rhs.withContiguousStorageIfAvailable { rhsBytes in lhsBytes.lexicographicallyPrecedes(rhsBytes) }
        }
        if let contiguous, let precedes = contiguous { return precedes }
        return lhs.lexicographicallyPrecedes(rhs)
    }
}
