@testable import StratusServer
import XCTest

/// The comparison every MAC goes through: right on equal bytes, on bytes that differ only at
/// the first or the last position, and on different lengths; and sealed bytes with any one of
/// their MAC's bytes changed are refused.
final class ConstantTimeTests: XCTestCase {
    private let mac: [UInt8] = (0..<32).map { UInt8($0 * 7 + 3) }

    func testEqualBytesCompareEqual() {
        XCTAssertTrue(ConstantTime.equal(mac, mac))
        XCTAssertTrue(ConstantTime.equal(mac, Array(mac)))
        XCTAssertTrue(ConstantTime.equal([UInt8](), [UInt8]()))
        XCTAssertTrue(ConstantTime.equal(mac[4...], Array(mac.dropFirst(4))), "slices and arrays alike")
    }

    func testBytesDifferingAtTheFirstOrTheLastPositionCompareUnequal() {
        for position in [0, 15, 31] {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var other = mac
                other[position] ^= flip
                XCTAssertFalse(ConstantTime.equal(mac, other), "byte \(position) ^ \(flip)")
                XCTAssertFalse(ConstantTime.equal(other, mac), "byte \(position) ^ \(flip), the other way")
            }
        }
    }

    /// Bytes that count how many of them were read.
    private final class ReadCounter: @unchecked Sendable {
        var reads = 0
    }

    private struct CountedBytes: Collection {
        let bytes: [UInt8]
        let counter: ReadCounter
        var startIndex: Int { bytes.startIndex }
        var endIndex: Int { bytes.endIndex }
        func index(after i: Int) -> Int { i + 1 }
        subscript(position: Int) -> UInt8 {
            counter.reads += 1
            return bytes[position]
        }
    }

    func testEveryByteIsReadWhereverTheFirstDifferenceIs() {
        for position in [0, 1, 16, 31] {
            var other = mac
            other[position] ^= 0xFF
            let counter = ReadCounter()
            XCTAssertFalse(ConstantTime.equal(CountedBytes(bytes: mac, counter: counter), CountedBytes(bytes: other, counter: counter)))
            XCTAssertEqual(counter.reads, 64, "a difference at byte \(position) must not end the comparison early")
        }
    }

    func testBytesOfDifferentLengthsCompareUnequal() {
        XCTAssertFalse(ConstantTime.equal(mac, mac.dropLast()))
        XCTAssertFalse(ConstantTime.equal(mac.dropLast(), mac))
        XCTAssertFalse(ConstantTime.equal(mac, mac + [0]))
        XCTAssertFalse(ConstantTime.equal([UInt8](), mac))
        XCTAssertFalse(ConstantTime.equal(Array(mac.prefix(16)), mac), "a prefix is not the whole")
    }

    func testSealedBytesWithAnyByteOfTheirMACChangedAreRefused() {
        let key = Array("a server's key".utf8), body = Array("a cursor's body".utf8)
        let sealed = Sealing.seal(body, key: key)
        XCTAssertEqual(Sealing.open(sealed, key: key), body)
        for position in sealed.indices.suffix(32) {
            var forged = sealed
            forged[position] ^= 0x01
            XCTAssertNil(Sealing.open(forged, key: key), "MAC byte \(position - body.count) changed")
        }
        XCTAssertNil(Sealing.open(sealed, key: Array("another server's key".utf8)))
        XCTAssertNil(Sealing.open(Array(sealed.suffix(32)), key: key), "a MAC alone seals no body")
    }
}
