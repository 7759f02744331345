import Foundation

/// Appends values to a byte buffer in Stratus's archive encoding (little-endian, length-prefixed).
package struct BinaryWriter {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8] = []

    /// Creates an empty writer.
    package init() {}

    package mutating func write(_ value: UInt8) {
        bytes.append(value)
    }

    package mutating func write(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    package mutating func write(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func write(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func write(_ value: Int64) {
        write(UInt64(bitPattern: value))
    }

    package mutating func write(_ value: Double) {
        write(value.bitPattern)
    }

    package mutating func write(_ value: Date) {
        write(value.timeIntervalSinceReferenceDate)
    }

    /// Writes a count or length as 32 bits; larger values cannot occur in a record (1 MB limit),
    /// and are clamped so the reader refuses the blob rather than the writer trapping.
    package mutating func writeCount(_ count: Int) {
        write(UInt32(clamping: count))
    }

    package mutating func write(_ value: Data) {
        writeCount(value.count)
        bytes.append(contentsOf: value)
    }

    package mutating func write(_ value: String) {
        let utf8 = Array(value.utf8)
        writeCount(utf8.count)
        bytes.append(contentsOf: utf8)
    }

    package mutating func write(_ value: String?) {
        if let value {
            write(true)
            write(value)
        } else {
            write(false)
        }
    }

    package mutating func write(_ value: Date?) {
        if let value {
            write(true)
            write(value)
        } else {
            write(false)
        }
    }

    package mutating func write(_ values: [String]) {
        writeCount(values.count)
        for value in values { write(value) }
    }
}
