import Foundation
import StratusCore
import StratusWire
import XCTest
import _StratusTestSupport

/// Every Stratus `NSSecureCoding` type decodes what it encoded, decodes the committed golden
/// archives, and refuses, never crashes on, a damaged, truncated, foreign or missing blob.
final class ArchiveTests: XCTestCase {
    // MARK: - Golden archives

    /// The objects behind the committed fixtures. Changing them means new fixtures: run the
    /// tests once with `STRATUS_WRITE_GOLDEN=<path to Tests/StratusCoreTests/Fixtures>`.
    private static func goldenObjects() -> [(name: String, object: NSObject & NSSecureCoding)] {
        let zone = WireZoneID(zoneName: "Parties")
        let party = WireRecordID(recordName: "clown-party", zoneID: zone)
        let record = CKRecord(wire: WireRecord(
            recordID: WireRecordID(recordName: "bozo", zoneID: zone),
            recordType: "Clown",
            changeTag: "7",
            creationDate: Date(timeIntervalSinceReferenceDate: 780_000_000),
            modificationDate: Date(timeIntervalSinceReferenceDate: 780_000_100.5),
            creatorUserRecordName: "__defaultOwner__",
            lastModifiedUserRecordName: "_0123456789abcdef0123456789abcdef",
            parent: WireReference(recordID: party, action: .none),
            fields: [
                "name": .string("Bozo"),
                "age": .int64(42),
                "height": .double(1.85),
                "born": .date(Date(timeIntervalSinceReferenceDate: 100_000)),
                "photo": .bytes(Data([0xFF, 0xD8])),
                "party": .reference(WireReference(recordID: party, action: .deleteSelf)),
                "wig": .asset(WireAsset(localFileURL: URL(fileURLWithPath: "/var/stratus/wig.png"))),
                "tricks": .list([.string("juggling"), .string("unicycle")]),
            ],
            encryptedFields: ["diary": .string("Dear diary")]
        ))
        record["name"] = "Bozo the Clown"
        record["tricks"] = nil
        return [
            ("record-full", record),
            ("record-system-fields", SystemFieldsArchive(record: record)),
            ("record-id", CKRecord.ID(recordName: "bozo", zoneID: CKRecordZone.ID(zoneName: "Parties"))),
            ("zone-id", CKRecordZone.ID(zoneName: "Parties", ownerName: "_0123456789abcdef0123456789abcdef")),
            ("zone", CKRecordZone(wire: WireZone(zoneID: zone, capabilities: [.fetchChanges, .atomic]))),
            ("reference", CKRecord.Reference(recordID: CKRecord.ID(recordName: "clown-party"), action: .deleteSelf)),
            ("server-change-token", CKServerChangeToken(bytes: Data("token-bytes".utf8))),
            ("query-cursor", CKQueryCursor(bytes: Data("cursor-bytes".utf8))),
        ]
    }

    /// Archives a record's system fields as the root object, as `encodeSystemFields` users do.
    private final class SystemFieldsArchive: NSObject, NSSecureCoding {
        static var supportsSecureCoding: Bool { true }
        let record: CKRecord
        init(record: CKRecord) { self.record = record }
        func encode(with coder: NSCoder) { record.encodeSystemFields(with: coder) }
        required init?(coder: NSCoder) { nil }
    }

    private func archivedData(_ object: NSObject & NSSecureCoding) throws -> Data {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        if let systemFields = object as? SystemFieldsArchive {
            systemFields.record.encodeSystemFields(with: coder)
        } else {
            object.encode(with: coder)
        }
        coder.finishEncoding()
        return coder.encodedData
    }

    /// Decodes `data` (fields at the top level of a keyed archive) with `make`, as a cache reader would.
    private func decode<T>(_ data: Data, _ make: (NSCoder) -> T?) throws -> T? {
        let decoder = try NSKeyedUnarchiver(forReadingFrom: data)
        decoder.requiresSecureCoding = true
        decoder.decodingFailurePolicy = .setErrorAndReturn
        return make(decoder)
    }

    private func fixture(_ name: String) throws -> Data {
        let url = try XCTUnwrap(Bundle.module.url(forResource: name, withExtension: "archive", subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    func testGoldenArchivesDecode() throws {
        if let directory = ProcessInfo.processInfo.environment["STRATUS_WRITE_GOLDEN"] {
            for (name, object) in Self.goldenObjects() {
                try archivedData(object).write(to: URL(fileURLWithPath: directory).appendingPathComponent("\(name).archive"))
            }
            for (name, object) in Self.goldenObjects() where !(object is SystemFieldsArchive) {
                try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
                    .write(to: URL(fileURLWithPath: directory).appendingPathComponent("root-\(name).archive"))
            }
        }

        let record = try XCTUnwrap(try decode(fixture("record-full")) { CKRecord(coder: $0) })
        XCTAssertEqual(record.recordID, CKRecord.ID(recordName: "bozo", zoneID: CKRecordZone.ID(zoneName: "Parties")))
        XCTAssertEqual(record.recordType, "Clown")
        XCTAssertEqual(record.recordChangeTag, "7")
        XCTAssertEqual(record.creationDate, Date(timeIntervalSinceReferenceDate: 780_000_000))
        XCTAssertEqual(record.modificationDate, Date(timeIntervalSinceReferenceDate: 780_000_100.5))
        XCTAssertEqual(record.lastModifiedUserRecordID?.recordName, "_0123456789abcdef0123456789abcdef")
        XCTAssertEqual(record.parent?.recordID.recordName, "clown-party")
        XCTAssertEqual(record["name"] as? String, "Bozo the Clown")
        XCTAssertEqual(record["age"] as? Int, 42)
        XCTAssertEqual(record["height"] as? Double, 1.85)
        XCTAssertEqual(record["born"] as? Date, Date(timeIntervalSinceReferenceDate: 100_000))
        XCTAssertEqual(record["photo"] as? Data, Data([0xFF, 0xD8]))
        XCTAssertEqual((record["party"] as? CKRecord.Reference)?.action, .deleteSelf)
        XCTAssertEqual((record["wig"] as? CKAsset)?.fileURL?.path, "/var/stratus/wig.png")
        XCTAssertNil(record["tricks"])
        XCTAssertEqual(record.encryptedValues["diary"] as? String, "Dear diary")
        XCTAssertEqual(record.changedKeys(), ["name", "tricks"])
        XCTAssertEqual(record.ancestorSnapshot.fields["name"], .string("Bozo"))

        let system = try XCTUnwrap(try decode(fixture("record-system-fields")) { CKRecord(coder: $0) })
        XCTAssertEqual(system.recordChangeTag, "7")
        XCTAssertEqual(system.allKeys(), [])
        XCTAssertEqual(system.changedKeys(), [])
        XCTAssertEqual(system.encryptedValues.allKeys(), [])

        let recordID = try XCTUnwrap(try decode(fixture("record-id")) { CKRecord.ID(coder: $0) })
        XCTAssertEqual(recordID, CKRecord.ID(recordName: "bozo", zoneID: CKRecordZone.ID(zoneName: "Parties")))
        let zoneID = try XCTUnwrap(try decode(fixture("zone-id")) { CKRecordZone.ID(coder: $0) })
        XCTAssertEqual(zoneID.ownerName, "_0123456789abcdef0123456789abcdef")
        let zone = try XCTUnwrap(try decode(fixture("zone")) { CKRecordZone(coder: $0) })
        XCTAssertEqual(zone.capabilities, [.fetchChanges, .atomic])
        let reference = try XCTUnwrap(try decode(fixture("reference")) { CKRecord.Reference(coder: $0) })
        XCTAssertEqual(reference, CKRecord.Reference(recordID: CKRecord.ID(recordName: "clown-party"), action: .deleteSelf))
        let token = try XCTUnwrap(try decode(fixture("server-change-token")) { CKServerChangeToken(coder: $0) })
        XCTAssertEqual(token, CKServerChangeToken(bytes: Data("token-bytes".utf8)))
        let cursor = try XCTUnwrap(try decode(fixture("query-cursor")) { CKQueryCursor(coder: $0) })
        XCTAssertEqual(cursor, CKQueryCursor(bytes: Data("cursor-bytes".utf8)))
    }

    func testEveryArchivableTypeRoundTripsThroughTheKeyedArchiverAPI() throws {
        for (name, object) in Self.goldenObjects() where !(object is SystemFieldsArchive) {
            let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
            let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [type(of: object)], from: data) as? NSObject
            XCTAssertNotNil(decoded, name)
            if let record = object as? CKRecord, let back = decoded as? CKRecord {
                XCTAssertEqual(back.wireSnapshot, record.wireSnapshot)
                XCTAssertEqual(back.changedKeys(), record.changedKeys())
            } else if !(object is CKRecordZone) {
                XCTAssertEqual(decoded, object, name)
            }
        }
    }

    // MARK: - Class names

    /// CloudKit's class name for each golden object's class.
    private static let cloudKitClassNames = [
        "record-full": "CKRecord", "record-id": "CKRecordID", "zone-id": "CKRecordZoneID", "zone": "CKRecordZone",
        "reference": "CKReference", "server-change-token": "CKServerChangeToken", "query-cursor": "CKQueryCursor",
    ]

    /// The class names and class hints in the class table of a keyed archive.
    private func classTable(of data: Data) throws -> (names: Set<String>, hints: Set<String>) {
        let plist = try XCTUnwrap(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let objects = try XCTUnwrap(plist["$objects"] as? [Any])
        var names: Set<String> = [], hints: Set<String> = []
        for case let entry as [String: Any] in objects {
            if let name = entry["$classname"] as? String { names.insert(name) }
            if let entryHints = entry["$classhints"] as? [String] { hints.formUnion(entryHints) }
        }
        return (names, hints)
    }

    func testArchivesNameCloudKitsClassesInTheClassTable() throws {
        for (name, object) in Self.goldenObjects() where !(object is SystemFieldsArchive) {
            let expected = try XCTUnwrap(Self.cloudKitClassNames[name], name)
            let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
            let table = try classTable(of: data)
            XCTAssertTrue(table.hints.contains(expected), "\(name): \(table)")
            // Foundation on Linux always writes the Swift name as the class name itself.
            XCTAssertTrue(table.names.contains { $0.hasSuffix(".\(expected)") }, "\(name): \(table)")
        }
    }

    func testRootGoldenArchivesDecodeAndNameCloudKitsClasses() throws {
        for (name, object) in Self.goldenObjects() where !(object is SystemFieldsArchive) {
            let data = try fixture("root-\(name)")
            XCTAssertTrue(try classTable(of: data).hints.contains(try XCTUnwrap(Self.cloudKitClassNames[name])), name)
            let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [type(of: object)], from: data) as? NSObject
            if let record = object as? CKRecord {
                XCTAssertEqual((decoded as? CKRecord)?.wireSnapshot, record.wireSnapshot, name)
            } else if let zone = object as? CKRecordZone {
                XCTAssertEqual((decoded as? CKRecordZone)?.zoneID, zone.zoneID, name)
            } else {
                XCTAssertEqual(decoded, object, name)
            }
        }
    }

    // MARK: - Refusing bad archives

    /// An archive whose blob key holds `value`, for probing every decoder with bad contents.
    private func archive(withBlobValue value: NSObject?) -> Data {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        if let value { coder.encode(value, forKey: SecureCodingBlob.key) }
        coder.encode(Int64(1), forKey: "unrelated")
        coder.finishEncoding()
        return coder.encodedData
    }

    /// Whether every Stratus decoder refuses `data`.
    private func assertEveryDecoderRefuses(_ data: Data, _ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertNil(try decode(data) { CKRecord(coder: $0) }, "CKRecord: \(message)", file: file, line: line)
        XCTAssertNil(try decode(data) { CKRecord.ID(coder: $0) }, "CKRecord.ID: \(message)", file: file, line: line)
        XCTAssertNil(try decode(data) { CKRecordZone.ID(coder: $0) }, "CKRecordZone.ID: \(message)", file: file, line: line)
        XCTAssertNil(try decode(data) { CKRecordZone(coder: $0) }, "CKRecordZone: \(message)", file: file, line: line)
        XCTAssertNil(try decode(data) { CKRecord.Reference(coder: $0) }, "Reference: \(message)", file: file, line: line)
        XCTAssertNil(try decode(data) { CKServerChangeToken(coder: $0) }, "token: \(message)", file: file, line: line)
        XCTAssertNil(try decode(data) { CKQueryCursor(coder: $0) }, "cursor: \(message)", file: file, line: line)
    }

    /// The blobs of the golden objects.
    private func goldenBlobs() throws -> [(name: String, blob: Data)] {
        try Self.goldenObjects().map { name, object in
            let data = try archivedData(object)
            let decoder = try NSKeyedUnarchiver(forReadingFrom: data)
            return (name, try XCTUnwrap(decoder.decodeObject(of: NSData.self, forKey: SecureCodingBlob.key)) as Data)
        }
    }

    func testMissingBlobGivesNil() throws {
        try assertEveryDecoderRefuses(archive(withBlobValue: nil), "missing blob")
    }

    func testValueOfAnotherClassUnderTheBlobKeyGivesNil() throws {
        try assertEveryDecoderRefuses(archive(withBlobValue: NSString(string: "not a blob")), "string")
        try assertEveryDecoderRefuses(archive(withBlobValue: NSNumber(value: 7)), "number")
        try assertEveryDecoderRefuses(archive(withBlobValue: NSArray(array: [NSData()])), "array")
    }

    func testBlobOfAnotherKindGivesNil() throws {
        let blobs = try goldenBlobs()
        for (name, blob) in blobs {
            let data = archive(withBlobValue: NSData(data: blob))
            let accepted = [
                try decode(data) { CKRecord(coder: $0) } != nil,
                try decode(data) { CKRecord.ID(coder: $0) } != nil,
                try decode(data) { CKRecordZone.ID(coder: $0) } != nil,
                try decode(data) { CKRecordZone(coder: $0) } != nil,
                try decode(data) { CKRecord.Reference(coder: $0) } != nil,
                try decode(data) { CKServerChangeToken(coder: $0) } != nil,
                try decode(data) { CKQueryCursor(coder: $0) } != nil,
            ]
            XCTAssertEqual(accepted.filter { $0 }.count, 1, "\(name) decodes as exactly one type")
        }
    }

    func testEveryFlippedByteOfEveryBlobGivesNil() throws {
        for (name, blob) in try goldenBlobs() {
            for index in blob.indices {
                var damaged = blob
                damaged[index] ^= 0x5A
                try assertEveryDecoderRefuses(archive(withBlobValue: NSData(data: damaged)), "\(name) flipped at \(index)")
            }
        }
    }

    func testEveryTruncationOfEveryBlobGivesNil() throws {
        for (name, blob) in try goldenBlobs() {
            for length in stride(from: 0, to: blob.count, by: max(1, blob.count / 40)) {
                try assertEveryDecoderRefuses(archive(withBlobValue: NSData(data: blob.prefix(length))), "\(name) cut to \(length)")
            }
        }
    }

    func testRandomBytesGiveNil() throws {
        var generator = SeededGenerator(seed: 7)
        for round in 0..<(50 * stressScale) {
            let length = Int.random(in: 0..<300, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if round.isMultiple(of: 2), bytes.count >= 6 { bytes.replaceSubrange(0..<4, with: Array("STRA".utf8)) }
            try assertEveryDecoderRefuses(archive(withBlobValue: NSData(data: Data(bytes))), "random round \(round)")
        }
    }

    func testAnotherFormatVersionGivesNil() throws {
        for (name, blob) in try goldenBlobs() {
            var future = [UInt8](blob)
            future[4] = ArchiveEnvelope.currentVersion + 1
            let crc = CRC32.checksum(future.dropLast(4))
            future.replaceSubrange((future.count - 4)..., with: withUnsafeBytes(of: crc.littleEndian, Array.init))
            try assertEveryDecoderRefuses(archive(withBlobValue: NSData(data: Data(future))), "\(name) version \(future[4])")
        }
    }

    func testDamagedBlobInsideAWholeArchiveThrowsFromTheStaticAPI() throws {
        let record = CKRecord(recordType: "Party")
        record["title"] = "Clowns"
        var data = [UInt8](try NSKeyedArchiver.archivedData(withRootObject: record, requiringSecureCoding: true))
        let magic = Array("STRA".utf8)
        let start = try XCTUnwrap((0...(data.count - 4)).first { Array(data[$0..<$0 + 4]) == magic })
        data[start + 10] ^= 0xFF
        XCTAssertThrowsError(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: Data(data)))
    }

    /// What the README gives as the way to decode bytes whose class is not known: an
    /// unarchiver that does not require secure coding, failing by error, and a cast. Bytes of
    /// another class, or naming a class that does not exist, give nil instead of the trap a
    /// secure-coding unarchiver hits on Linux.
    func testBytesOfAnotherOrUnknownClassDecodeToNilThroughTheReadmesUnarchiver() throws {
        func decodeRecord(_ data: Data) throws -> CKRecord? {
            let decoder = try NSKeyedUnarchiver(forReadingFrom: data)
            decoder.requiresSecureCoding = false
            decoder.decodingFailurePolicy = .setErrorAndReturn
            return decoder.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? CKRecord
        }
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
        let queryBytes = try NSKeyedArchiver.archivedData(withRootObject: query, requiringSecureCoding: true)
        XCTAssertNil(try decodeRecord(queryBytes))
        var renamed = queryBytes
        let name = Data("StratusCore.CKQuery".utf8)
        let range = try XCTUnwrap(renamed.range(of: name))
        renamed.replaceSubrange(range, with: Data("StratusCore.CKQuerx".utf8))
        XCTAssertNil(try decodeRecord(renamed))
        let record = CKRecord(recordType: "Party")
        record["title"] = "Clowns"
        let recordBytes = try NSKeyedArchiver.archivedData(withRootObject: record, requiringSecureCoding: true)
        XCTAssertEqual(try decodeRecord(recordBytes)?["title"] as? String, "Clowns")
    }
}
