import Foundation
import StratusWire
import XCTest
import _StratusTestSupport

/// The blob format under every archive: framing, checksum, and a parser that refuses, never
/// crashes on, bytes it did not write.
final class ArchiveEnvelopeTests: XCTestCase {
    private func sampleRecord() -> WireRecord {
        let zone = WireZoneID(zoneName: "Parties")
        let target = WireRecordID(recordName: "party", zoneID: zone)
        return WireRecord(
            recordID: WireRecordID(recordName: "clown-ü", zoneID: zone),
            recordType: "Clown",
            changeTag: "12",
            creationDate: Date(timeIntervalSinceReferenceDate: 100),
            modificationDate: Date(timeIntervalSinceReferenceDate: 200.5),
            creatorUserRecordName: "__defaultOwner__",
            lastModifiedUserRecordName: "_0123456789abcdef0123456789abcdef",
            parent: WireReference(recordID: target, action: .none),
            fields: [
                "name": .string("Bozo 🤡"),
                "age": .int64(-42),
                "height": .double(1.85),
                "born": .date(Date(timeIntervalSinceReferenceDate: -1_000)),
                "photo": .bytes(Data([0, 1, 2, 255])),
                "party": .reference(WireReference(recordID: target, action: .deleteSelf)),
                "wig": .asset(WireAsset(localFileURL: URL(fileURLWithPath: "/tmp/wig.png"))),
                "tricks": .list([.string("juggling"), .string("unicycle")]),
                "empty": .list([]),
            ],
            encryptedFields: ["diary": .string("secret")]
        )
    }

    private func seal(_ record: WireRecord) -> [UInt8] {
        ArchiveEnvelope.seal(.record) { record.write(to: &$0) }
    }

    func testRecordRoundTripsThroughABlob() throws {
        let record = sampleRecord()
        let decoded = try ArchiveEnvelope.decode(seal(record), as: .record, WireRecord.read)
        XCTAssertEqual(decoded, record)
    }

    func testEqualRecordsGiveEqualBytes() {
        XCTAssertEqual(seal(sampleRecord()), seal(sampleRecord()))
    }

    func testEverySingleByteFlipIsRefused() {
        let blob = seal(sampleRecord())
        for index in blob.indices {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = blob
                damaged[index] ^= mask
                XCTAssertThrowsError(
                    try ArchiveEnvelope.decode(damaged, as: .record, WireRecord.read),
                    "flip \(mask) at \(index) was accepted"
                )
            }
        }
    }

    func testEveryTruncationIsRefused() {
        let blob = seal(sampleRecord())
        for length in 0..<blob.count {
            XCTAssertThrowsError(try ArchiveEnvelope.decode(blob.prefix(length), as: .record, WireRecord.read))
        }
    }

    func testAnotherFormatVersionIsRefused() throws {
        var blob = seal(sampleRecord())
        blob[4] = ArchiveEnvelope.currentVersion &+ 1
        let body = blob.dropLast(4)
        let crc = CRC32.checksum(body)
        blob.replaceSubrange((blob.count - 4)..., with: withUnsafeBytes(of: crc.littleEndian, Array.init))
        XCTAssertThrowsError(try ArchiveEnvelope.decode(blob, as: .record, WireRecord.read)) { error in
            XCTAssertTrue("\(error)".contains("version"), "\(error)")
        }
    }

    func testAnotherObjectKindIsRefused() {
        XCTAssertThrowsError(try ArchiveEnvelope.decode(seal(sampleRecord()), as: .zone, WireZone.read))
    }

    func testTrailingBytesAreRefused() {
        let record = sampleRecord()
        let blob = ArchiveEnvelope.seal(.record) { writer in
            record.write(to: &writer)
            writer.write(UInt8(0))
        }
        XCTAssertThrowsError(try ArchiveEnvelope.decode(blob, as: .record, WireRecord.read))
    }

    func testCRC32MatchesTheStandardCheckValue() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
    }

    /// The payload parser itself, without the checksum in front of it, meets random bytes.
    func testPayloadParserNeverCrashesOnRandomBytes() {
        var generator = SeededGenerator(seed: 0x5EED)
        for _ in 0..<(2_000 * stressScale) {
            let length = Int.random(in: 0..<256, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var reader = BinaryReader(bytes)
            _ = try? WireRecord.read(from: &reader)
        }
    }

    /// The payload parser meets a real payload with bytes flipped, as corrupt storage would give.
    func testPayloadParserNeverCrashesOnDamagedPayloads() {
        var writer = BinaryWriter()
        sampleRecord().write(to: &writer)
        let payload = writer.bytes
        var generator = SeededGenerator(seed: 42)
        var refused = 0
        for _ in 0..<(5_000 * stressScale) {
            var damaged = payload
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            var reader = BinaryReader(damaged)
            if (try? WireRecord.read(from: &reader)) == nil { refused += 1 }
        }
        XCTAssertGreaterThan(refused, 0)
    }

    func testForgedCountCannotMakeTheReaderAllocate() {
        var writer = BinaryWriter()
        writer.write(UInt32.max)
        var reader = BinaryReader(writer.bytes)
        XCTAssertThrowsError(try reader.readStrings())
    }

    func testNestedListIsRefused() {
        var writer = BinaryWriter()
        WireFieldValue.list([.list([.int64(1)])]).write(to: &writer)
        var reader = BinaryReader(writer.bytes)
        XCTAssertThrowsError(try WireFieldValue.read(from: &reader))
    }

    func testMixedListIsRefused() {
        var writer = BinaryWriter()
        WireFieldValue.list([.int64(1), .string("two")]).write(to: &writer)
        var reader = BinaryReader(writer.bytes)
        XCTAssertThrowsError(try WireFieldValue.read(from: &reader))
    }
}
