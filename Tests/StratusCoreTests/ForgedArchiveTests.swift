import Foundation
import StratusCore
import StratusWire
import XCTest

/// A record archive whose checksum was recomputed after its values were changed decodes to
/// nil when it holds a value no `CKRecord` can hold: a nested or mixed list, a number or date
/// that is not finite, a reference or asset among the encrypted values.
final class ForgedArchiveTests: XCTestCase {
    private let recordID = WireRecordID(recordName: "forged")

    private func wire(fields: [String: WireFieldValue] = [:], encrypted: [String: WireFieldValue] = [:]) -> WireRecord {
        WireRecord(recordID: recordID, recordType: "Note", changeTag: "1", fields: fields, encryptedFields: encrypted)
    }

    /// A whole keyed archive holding `blob` where a record archive keeps its blob.
    private func archive(blob: [UInt8]) -> Data {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        coder.encode(NSData(bytes: blob, length: blob.count), forKey: SecureCodingBlob.key)
        coder.finishEncoding()
        return coder.encodedData
    }

    /// An archive made by `CKRecord.encode(with:)` of a record holding `record`'s values: the
    /// checksum is right, as a forger recomputes it.
    private func archive(of record: WireRecord) -> Data {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        CKRecord(wire: record).encode(with: coder)
        coder.finishEncoding()
        return coder.encodedData
    }

    private func decode(_ data: Data) throws -> CKRecord? {
        let decoder = try NSKeyedUnarchiver(forReadingFrom: data)
        decoder.requiresSecureCoding = true
        decoder.decodingFailurePolicy = .setErrorAndReturn
        return CKRecord(coder: decoder)
    }

    func testAWellFormedRecordStillDecodes() throws {
        let record = wire(fields: ["tags": .list([.string("a"), .string("b")]), "ratio": .double(1.5), "empty": .list([])],
                          encrypted: ["diary": .string("Dear diary"), "numbers": .list([.int64(1)])])
        let decoded = try XCTUnwrap(try decode(archive(of: record)))
        XCTAssertEqual(decoded.wireSnapshot, record)
    }

    func testForgedValuesDecodeToNil() throws {
        let target = WireReference(recordID: WireRecordID(recordName: "target"), action: .none)
        let asset = WireAsset(localFileURL: URL(fileURLWithPath: "/tmp/photo.jpg"))
        let forgeries: [(String, WireRecord)] = [
            ("nested list", wire(fields: ["grid": .list([.list([.int64(1)])])])),
            ("nested empty list", wire(fields: ["grid": .list([.list([])])])),
            ("mixed list", wire(fields: ["mixed": .list([.int64(1), .string("one")])])),
            ("NaN double", wire(fields: ["ratio": .double(.nan)])),
            ("infinite double in a list", wire(fields: ["ratios": .list([.double(1), .double(.infinity)])])),
            ("NaN date", wire(fields: ["when": .date(Date(timeIntervalSinceReferenceDate: .nan))])),
            ("encrypted reference", wire(encrypted: ["link": .reference(target)])),
            ("encrypted deleteSelf reference", wire(encrypted: ["owner": .reference(WireReference(recordID: target.recordID, action: .deleteSelf))])),
            ("encrypted list of references", wire(encrypted: ["links": .list([.reference(target)])])),
            ("encrypted asset", wire(encrypted: ["photo": .asset(asset)])),
            ("encrypted NaN", wire(encrypted: ["ratio": .double(-.nan)])),
        ]
        for (name, record) in forgeries {
            XCTAssertNil(try decode(archive(of: record)), name)
            let rooted = try NSKeyedArchiver.archivedData(withRootObject: CKRecord(wire: record), requiringSecureCoding: true)
            XCTAssertNil(try? NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: rooted), name)
        }
    }

    func testADoublePatchedToNaNWithARecomputedChecksumDecodesToNil() throws {
        let record = wire(fields: ["ratio": .double(1.5)])
        var blob = ArchiveEnvelope.seal(.record) { writer in
            record.write(to: &writer)
            for _ in 0..<2 {  // no local changes in the plain and the encrypted values
                writer.write([String]())
                writer.write(false)
                writer.write([String]())
            }
            writer.write(false)
        }
        XCTAssertNotNil(try decode(archive(blob: blob)), "the unpatched blob decodes")

        let original = withUnsafeBytes(of: (1.5).bitPattern.littleEndian, Array.init)
        let start = try XCTUnwrap((0...(blob.count - 8)).first { Array(blob[$0..<$0 + 8]) == original })
        blob.replaceSubrange(start..<start + 8, with: withUnsafeBytes(of: Double.nan.bitPattern.littleEndian, Array.init))
        let crc = CRC32.checksum(blob.dropLast(4))
        blob.replaceSubrange((blob.count - 4)..., with: withUnsafeBytes(of: crc.littleEndian, Array.init))
        XCTAssertNil(try decode(archive(blob: blob)))
    }

    func testAForgedAncestorDecodesToNil() throws {
        func blob(ancestor: [String: WireFieldValue], encrypted: Bool) -> [UInt8] {
            ArchiveEnvelope.seal(.record) { writer in
                wire().write(to: &writer)
                for isEncrypted in [false, true] {
                    writer.write(isEncrypted == encrypted ? ["title"] : [String]())
                    writer.write(isEncrypted == encrypted)
                    if isEncrypted == encrypted { WireFieldValue.write(ancestor, to: &writer) }
                    writer.write([String]())
                }
                writer.write(false)
            }
        }
        let reference = WireFieldValue.reference(WireReference(recordID: WireRecordID(recordName: "t"), action: .none))
        XCTAssertNotNil(try decode(archive(blob: blob(ancestor: ["title": .string("old")], encrypted: false))))
        XCTAssertNotNil(try decode(archive(blob: blob(ancestor: ["title": reference], encrypted: false))))
        XCTAssertNil(try decode(archive(blob: blob(ancestor: ["title": .list([.list([])])], encrypted: false))))
        XCTAssertNil(try decode(archive(blob: blob(ancestor: ["title": reference], encrypted: true))))
    }

    func testWireValuesRefuseNonFiniteNumbersAtTheBinaryLevel() {
        var writer = BinaryWriter()
        WireFieldValue.double(.infinity).write(to: &writer)
        var reader = BinaryReader(writer.bytes)
        XCTAssertThrowsError(try WireFieldValue.read(from: &reader))
    }
}
