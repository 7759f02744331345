import Foundation

/// Why a blob could not be read. Archive decoders turn it into a nil result, never a crash.
package struct BinaryFormatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong with the bytes.
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// Reads values written by ``BinaryWriter``, checking every length against the bytes that remain.
package struct BinaryReader {
    private let bytes: [UInt8]
    private var offset: Int

    /// Creates a reader over `bytes`.
    package init<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        self.bytes = Array(bytes)
        self.offset = 0
    }

    /// The number of bytes not read yet.
    package var remaining: Int { bytes.count - offset }

    /// Throws unless every byte was read: trailing bytes mean the blob is not what it claims.
    package func expectEnd() throws(BinaryFormatError) {
        guard remaining == 0 else { throw BinaryFormatError("\(remaining) unexpected trailing bytes") }
    }

    private mutating func take(_ count: Int) throws(BinaryFormatError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw BinaryFormatError("needs \(count) bytes at offset \(offset), \(remaining) remain")
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    package mutating func readByte() throws(BinaryFormatError) -> UInt8 {
        try take(1).first ?? 0
    }

    package mutating func readBool() throws(BinaryFormatError) -> Bool {
        switch try readByte() {
        case 0: return false
        case 1: return true
        case let other: throw BinaryFormatError("\(other) is not a boolean")
        }
    }

    package mutating func readUInt32() throws(BinaryFormatError) -> UInt32 {
        try take(4).reversed().reduce(0) { ($0 << 8) | UInt32($1) }
    }

    package mutating func readUInt64() throws(BinaryFormatError) -> UInt64 {
        try take(8).reversed().reduce(0) { ($0 << 8) | UInt64($1) }
    }

    package mutating func readInt64() throws(BinaryFormatError) -> Int64 {
        Int64(bitPattern: try readUInt64())
    }

    package mutating func readDouble() throws(BinaryFormatError) -> Double {
        Double(bitPattern: try readUInt64())
    }

    package mutating func readDate() throws(BinaryFormatError) -> Date {
        let seconds = try readDouble()
        guard seconds.isFinite else { throw BinaryFormatError("date is not finite") }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// Reads a count of items that each take at least `minimumItemSize` bytes, so a forged count
    /// can never make the reader allocate more than the blob could hold.
    package mutating func readCount(minimumItemSize: Int = 1) throws(BinaryFormatError) -> Int {
        let count = Int(try readUInt32())
        guard count <= remaining / max(1, minimumItemSize) else {
            throw BinaryFormatError("count \(count) exceeds the \(remaining) bytes that remain")
        }
        return count
    }

    package mutating func readData() throws(BinaryFormatError) -> Data {
        Data(try take(try readCount()))
    }

    package mutating func readString() throws(BinaryFormatError) -> String {
        let utf8 = try take(try readCount())
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw BinaryFormatError("string is not valid UTF-8")
        }
        return string
    }

    package mutating func readOptionalString() throws(BinaryFormatError) -> String? {
        try readBool() ? try readString() : nil
    }

    package mutating func readOptionalDate() throws(BinaryFormatError) -> Date? {
        try readBool() ? try readDate() : nil
    }

    package mutating func readStrings() throws(BinaryFormatError) -> [String] {
        let count = try readCount(minimumItemSize: 4)
        var strings: [String] = []
        strings.reserveCapacity(count)
        for _ in 0..<count { strings.append(try readString()) }
        return strings
    }
}

/// An enumeration that the binary format writes as its raw value in one byte.
package protocol BinaryEnumeration: RawRepresentable where RawValue == Int {
    /// What the value is, for the error a byte out of range gets ("participant role").
    static var binaryName: String { get }
}

extension BinaryEnumeration {
    /// Writes the raw value in one byte.
    package func write(to writer: inout BinaryWriter) {
        writer.write(UInt8(truncatingIfNeeded: rawValue))
    }

    /// Reads what ``write(to:)`` wrote.
    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> Self {
        let raw = try reader.readByte()
        guard let value = Self(rawValue: Int(raw)) else { throw BinaryFormatError("unknown \(binaryName) \(raw)") }
        return value
    }
}

