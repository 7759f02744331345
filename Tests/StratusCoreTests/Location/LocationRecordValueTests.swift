import Foundation
import StratusCore
import StratusWire
import XCTest

/// `CLLocation` as a record value (CloudKit's Location type): the casts CloudKit code writes,
/// lists, encrypted values, what a record keeps of a location, values no record can hold,
/// the bytes a location counts, record archives, and locations in a push's `"af"` fields.
final class LocationRecordValueTests: XCTestCase {
    private let noon = Date(timeIntervalSinceReferenceDate: 800_000_000.125)

    /// A location with every component set, accuracies of course and speed included.
    private func tower(latitude: Double = 51.5081, longitude: Double = -0.0759) -> CLLocation {
        CLLocation(
            coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude),
            altitude: 14.5, horizontalAccuracy: 5, verticalAccuracy: 3,
            course: 123.25, courseAccuracy: 2, speed: 1.5, speedAccuracy: 0.25, timestamp: noon
        )
    }

    private func assertKeptComponents(of location: CLLocation?, as expected: CLLocation, file: StaticString = #filePath, line: UInt = #line) {
        guard let location else { return XCTFail("no location", file: file, line: line) }
        XCTAssertEqual(location.coordinate.latitude, expected.coordinate.latitude, file: file, line: line)
        XCTAssertEqual(location.coordinate.longitude, expected.coordinate.longitude, file: file, line: line)
        XCTAssertEqual(location.altitude, expected.altitude, file: file, line: line)
        XCTAssertEqual(location.horizontalAccuracy, expected.horizontalAccuracy, file: file, line: line)
        XCTAssertEqual(location.verticalAccuracy, expected.verticalAccuracy, file: file, line: line)
        XCTAssertEqual(location.course, expected.course, file: file, line: line)
        XCTAssertEqual(location.speed, expected.speed, file: file, line: line)
        XCTAssertEqual(location.timestamp, expected.timestamp, file: file, line: line)
        XCTAssertEqual(location.courseAccuracy, -1, "CloudKit's location type holds no course accuracy", file: file, line: line)
        XCTAssertEqual(location.speedAccuracy, -1, "CloudKit's location type holds no speed accuracy", file: file, line: line)
    }

    // MARK: - Values

    func testALocationReadsBackWithEveryCastCloudKitCodeWrites() throws {
        let record = CKRecord(recordType: "Sighting")
        let place = tower()
        record["place"] = place
        try assertEverywhere(record) { record in
            assertKeptComponents(of: record["place"] as? CLLocation, as: place)
            let typed: CLLocation? = record["place"]
            assertKeptComponents(of: typed, as: place)
            assertKeptComponents(of: record.object(forKey: "place") as? CLLocation, as: place)
            assertKeptComponents(of: record.value(forKey: "place") as? CLLocation, as: place)
            XCTAssertNil(record["place"] as? String)
            XCTAssertEqual(record.allKeys(), ["place"])
        }
    }

    func testCKRecordValueSpellingsStoreALocation() {
        let record = CKRecord(recordType: "Sighting")
        record.setObject(tower() as CKRecordValue, forKey: "a")
        record["b"] = tower() as CKRecordValue
        record.setValue(tower(), forKey: "c")
        for key in ["a", "b", "c"] {
            XCTAssertEqual((record[key] as? CLLocation)?.coordinate.latitude, 51.5081, key)
        }
        XCTAssertTrue(record.rejectedValues.plain.isEmpty)
    }

    func testIteratingARecordYieldsTheLocation() {
        let record = CKRecord(recordType: "Sighting")
        record["place"] = tower()
        let pairs = Array(record)
        XCTAssertEqual(pairs.map(\.0), ["place"])
        XCTAssertEqual((pairs.first?.1 as? CLLocation)?.coordinate.longitude, -0.0759)
    }

    func testTheStoredValueIsACopyNotTheObjectSet() throws {
        let record = CKRecord(recordType: "Sighting")
        let place = tower()
        record["place"] = place
        let read = try XCTUnwrap(record["place"] as? CLLocation)
        XCTAssertEqual(read.courseAccuracy, -1, "read back from the record's value, which holds no course accuracy")
        XCTAssertEqual(place.courseAccuracy, 2, "the object set is left alone")
    }

    func testListsOfLocationsReadBackAsTypedArrays() throws {
        let record = CKRecord(recordType: "Route")
        let stops = [tower(), tower(latitude: 48.8584, longitude: 2.2945), tower(latitude: -33.8568, longitude: 151.2153)]
        record["stops"] = stops
        record["none"] = [CLLocation]()
        try assertEverywhere(record) { record in
            let read = try XCTUnwrap(record["stops"] as? [CLLocation])
            XCTAssertEqual(read.map(\.coordinate.latitude), [51.5081, 48.8584, -33.8568])
            for (location, expected) in zip(read, stops) { assertKeptComponents(of: location, as: expected) }
            let typed: [CLLocation]? = record["stops"]
            XCTAssertEqual(typed?.count, 3)
            XCTAssertEqual((record["stops"] as? NSArray)?.count, 3)
            XCTAssertNil(record["stops"] as? [String])
        }
    }

    func testAListMixingLocationsWithOtherValuesIsRejected() {
        let record = CKRecord(recordType: "Route")
        record["mixed"] = NSArray(array: [tower(), NSString(string: "somewhere")])
        XCTAssertNil(record["mixed"])
        XCTAssertTrue(record.rejectedValues.plain["mixed"]?.contains("one type") == true, "\(record.rejectedValues)")
    }

    func testEncryptedValuesHoldLocations() throws {
        let record = CKRecord(recordType: "Diary")
        let home = tower()
        record.encryptedValues["home"] = home
        record.encryptedValues["trips"] = [tower(latitude: 1, longitude: 2)]
        try assertEverywhere(record) { record in
            let read: CLLocation? = record.encryptedValues["home"]
            assertKeptComponents(of: read, as: home)
            XCTAssertEqual((record.encryptedValues["trips"] as? [CLLocation])?.first?.coordinate.longitude, 2)
            XCTAssertNil(record["home"])
            XCTAssertEqual(record.encryptedValues.allKeys(), ["home", "trips"])
        }
        XCTAssertTrue(record.rejectedValues.encrypted.isEmpty)
        XCTAssertNil(record.rejectionError)
    }

    func testTheWireValueKeepsTheComponentsOfCloudKitsLocationDictionary() throws {
        let record = CKRecord(recordType: "Sighting")
        record["place"] = tower()
        XCTAssertEqual(record.wireSnapshot.fields["place"], .location(WireLocation(
            latitude: 51.5081, longitude: -0.0759, altitude: 14.5, horizontalAccuracy: 5, verticalAccuracy: 3,
            course: 123.25, speed: 1.5, timestamp: noon
        )))
        XCTAssertEqual(WireFieldValue.location(WireLocation(latitude: 0, longitude: 0)).kind, .location)
        XCTAssertEqual("\(WireFieldValue.Kind.location)", "Location")
        XCTAssertEqual("\(WireFieldValue.Kind.list(.location))", "List<Location>")
    }

    // MARK: - Values no record holds

    func testInvalidOrNonFiniteLocationsAreRejectedAndFailTheSaveWithInvalidArguments() {
        let coordinate = CLLocationCoordinate2D(latitude: 10, longitude: 10)
        let invalid: [(String, CLLocation)] = [
            ("latitude 91", CLLocation(latitude: 91, longitude: 0)),
            ("latitude -90.5", CLLocation(latitude: -90.5, longitude: 0)),
            ("longitude 200", CLLocation(latitude: 0, longitude: 200)),
            ("longitude -180.5", CLLocation(latitude: 0, longitude: -180.5)),
            ("NaN latitude", CLLocation(latitude: .nan, longitude: 0)),
            ("NaN longitude", CLLocation(latitude: 0, longitude: .nan)),
            ("the invalid coordinate", CLLocation(coordinate: kCLLocationCoordinate2DInvalid, altitude: 0, horizontalAccuracy: -1, verticalAccuracy: -1, timestamp: noon)),
            ("infinite altitude", CLLocation(coordinate: coordinate, altitude: .infinity, horizontalAccuracy: 0, verticalAccuracy: 1, timestamp: noon)),
            ("NaN horizontal accuracy", CLLocation(coordinate: coordinate, altitude: 0, horizontalAccuracy: .nan, verticalAccuracy: 1, timestamp: noon)),
            ("infinite vertical accuracy", CLLocation(coordinate: coordinate, altitude: 0, horizontalAccuracy: 0, verticalAccuracy: -.infinity, timestamp: noon)),
            ("NaN course", CLLocation(coordinate: coordinate, altitude: 0, horizontalAccuracy: 0, verticalAccuracy: 1, course: .nan, speed: 1, timestamp: noon)),
            ("infinite speed", CLLocation(coordinate: coordinate, altitude: 0, horizontalAccuracy: 0, verticalAccuracy: 1, course: 1, speed: .infinity, timestamp: noon)),
            ("NaN timestamp", CLLocation(coordinate: coordinate, altitude: 0, horizontalAccuracy: 0, verticalAccuracy: 1, timestamp: Date(timeIntervalSinceReferenceDate: .nan))),
        ]
        for (name, location) in invalid {
            let record = CKRecord(recordType: "Sighting", recordID: CKRecord.ID(recordName: "sighting"))
            record["place"] = location
            XCTAssertNil(record["place"], name)
            XCTAssertEqual(record.changedKeys(), ["place"], name)
            let reason = record.rejectedValues.plain["place"] ?? ""
            XCTAssertTrue(reason.contains("CLLocation"), "\(name): \(reason)")
            let error = record.rejectionError
            XCTAssertEqual(error?.code, .invalidArguments, name)
            XCTAssertTrue(error?.localizedDescription.contains("'place'") == true, "\(name): \(error?.localizedDescription ?? "no error")")

            let encrypted = CKRecord(recordType: "Sighting")
            encrypted.encryptedValues["place"] = location
            XCTAssertNil(encrypted.encryptedValues["place"], name)
            XCTAssertEqual(encrypted.rejectionError?.code, .invalidArguments, name)

            let listed = CKRecord(recordType: "Route")
            listed["stops"] = [tower(), location]
            XCTAssertNil(listed["stops"], name)
            XCTAssertEqual(listed.rejectionError?.code, .invalidArguments, name)
        }
    }

    func testTheRejectionNamesTheProblem() throws {
        let record = CKRecord(recordType: "Sighting", recordID: CKRecord.ID(recordName: "sighting"))
        record["place"] = CLLocation(latitude: 91, longitude: 0)
        let reason = try XCTUnwrap(record.rejectedValues.plain["place"])
        XCTAssertTrue(reason.contains("91"), reason)
        XCTAssertTrue(reason.contains("-90…90"), reason)
        record["speedy"] = CLLocation(coordinate: CLLocationCoordinate2D(latitude: 1, longitude: 1), altitude: 0, horizontalAccuracy: 0, verticalAccuracy: 1, course: 1, speed: .infinity, timestamp: noon)
        let speed = try XCTUnwrap(record.rejectedValues.plain["speedy"])
        XCTAssertTrue(speed.contains("speed") && speed.contains("finite"), speed)
    }

    func testAValidLocationClearsAnEarlierRejection() {
        let record = CKRecord(recordType: "Sighting")
        record["place"] = CLLocation(latitude: 91, longitude: 0)
        record["place"] = tower()
        XCTAssertNotNil(record["place"] as? CLLocation)
        XCTAssertTrue(record.rejectedValues.plain.isEmpty)
        XCTAssertNil(record.rejectionError)
    }

    func testTheWireValidationRefusesAnInvalidLocationAsTheServerWould() {
        let recordID = WireRecordID(recordName: "forged")
        for location in [WireLocation(latitude: 91, longitude: 0), WireLocation(latitude: 0, longitude: .nan), WireLocation(latitude: 0, longitude: 0, speed: .infinity)] {
            let error = WireValidation.checkFieldValue(.location(location), forKey: "place", encrypted: false, of: recordID)
            XCTAssertEqual(error?.code, .invalidArguments, "\(location)")
            XCTAssertEqual(WireValidation.checkFieldValue(.list([.location(location)]), forKey: "place", encrypted: true, of: recordID)?.code, .invalidArguments)
        }
        XCTAssertNil(WireValidation.checkFieldValue(.location(WireLocation(latitude: 90, longitude: -180)), forKey: "place", encrypted: true, of: recordID))
    }

    // MARK: - Size

    func testALocationCounts64BytesTowardTheRecordLimits() {
        let record = CKRecord(recordType: "Route")
        record["place"] = tower()
        XCTAssertEqual(record.wireSnapshot.byteSize, "place".utf8.count + 64)
        record["stops"] = [tower(), tower(), tower()]
        record.encryptedValues["home"] = tower()
        XCTAssertEqual(record.wireSnapshot.byteSize, "place".utf8.count + 64 + "stops".utf8.count + 3 * 64 + "home".utf8.count + 64)
        XCTAssertEqual(WireFieldValue.location(WireLocation(latitude: 0, longitude: 0)).byteSize, 64)
    }

    // MARK: - Record archives

    func testSystemFieldsArchivesLeaveLocationsOut() throws {
        let record = CKRecord(recordType: "Sighting")
        record["place"] = tower()
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: coder)
        coder.finishEncoding()
        let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        defer { decoder.finishDecoding() }
        let decoded = try XCTUnwrap(CKRecord(coder: decoder))
        XCTAssertNil(decoded["place"])
    }

    private func decode(_ data: Data) throws -> CKRecord? {
        let decoder = try NSKeyedUnarchiver(forReadingFrom: data)
        decoder.requiresSecureCoding = true
        decoder.decodingFailurePolicy = .setErrorAndReturn
        defer { decoder.finishDecoding() }
        return CKRecord(coder: decoder)
    }

    /// An archive made by `CKRecord.encode(with:)` of a record holding `fields` as they are,
    /// checksum and all, as a forger would write it.
    private func forgedArchive(fields: [String: WireFieldValue] = [:], encrypted: [String: WireFieldValue] = [:]) -> Data {
        let wire = WireRecord(recordID: WireRecordID(recordName: "forged"), recordType: "Sighting", changeTag: "1", fields: fields, encryptedFields: encrypted)
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        CKRecord(wire: wire).encode(with: coder)
        coder.finishEncoding()
        return coder.encodedData
    }

    func testAForgedArchiveHoldingAnInvalidLocationDecodesToNil() throws {
        let valid = WireLocation(latitude: 51.5, longitude: -0.1)
        XCTAssertNotNil(try decode(forgedArchive(fields: ["place": .location(valid)])), "the valid one decodes")
        let forgeries: [(String, [String: WireFieldValue], [String: WireFieldValue])] = [
            ("latitude 91", ["place": .location(WireLocation(latitude: 91, longitude: 0))], [:]),
            ("longitude -200", ["place": .location(WireLocation(latitude: 0, longitude: -200))], [:]),
            ("NaN altitude", ["place": .location(WireLocation(latitude: 0, longitude: 0, altitude: .nan))], [:]),
            ("infinite timestamp", ["place": .location(WireLocation(latitude: 0, longitude: 0, timestamp: Date(timeIntervalSinceReferenceDate: .infinity)))], [:]),
            ("in a list", ["stops": .list([.location(valid), .location(WireLocation(latitude: .nan, longitude: 0))])], [:]),
            ("encrypted", [:], ["home": .location(WireLocation(latitude: -95, longitude: 0))]),
        ]
        for (name, fields, encrypted) in forgeries {
            XCTAssertNil(try decode(forgedArchive(fields: fields, encrypted: encrypted)), name)
        }
    }

    /// The blob of a record archive with one location's latitude patched, its checksum
    /// recomputed: a valid latitude reads back, an invalid one refuses the whole archive.
    func testALatitudePatchedInTheBlobIsCheckedWhenDecoded() throws {
        let record = CKRecord(recordType: "Sighting")
        record["place"] = CLLocation(latitude: 51.25, longitude: -0.125)
        let original = try blob(of: record)
        func patched(latitude: Double) throws -> Data {
            var bytes = [UInt8](original)
            let needle = withUnsafeBytes(of: (51.25).bitPattern.littleEndian, Array.init)
            let start = try XCTUnwrap((0...(bytes.count - 8)).first { Array(bytes[$0..<$0 + 8]) == needle })
            bytes.replaceSubrange(start..<start + 8, with: withUnsafeBytes(of: latitude.bitPattern.littleEndian, Array.init))
            let crc = CRC32.checksum(bytes.dropLast(4))
            bytes.replaceSubrange((bytes.count - 4)..., with: withUnsafeBytes(of: crc.littleEndian, Array.init))
            return Data(bytes)
        }
        let moved = try XCTUnwrap(try decode(archive(withBlob: try patched(latitude: 52.75))))
        XCTAssertEqual((moved["place"] as? CLLocation)?.coordinate.latitude, 52.75, "the patch hit the latitude")
        for latitude in [95.0, -90.25, .nan, .infinity] {
            XCTAssertNil(try decode(archive(withBlob: try patched(latitude: latitude))), "\(latitude)")
        }
    }

    func testEveryFlippedByteOfARecordBlobHoldingALocationGivesNil() throws {
        let record = CKRecord(recordType: "Sighting")
        record["place"] = tower()
        let original = try blob(of: record)
        for index in original.indices {
            var damaged = original
            damaged[index] ^= 0x5A
            XCTAssertNil(try decode(archive(withBlob: damaged)), "byte \(index)")
        }
        for length in 0..<original.count {
            XCTAssertNil(try decode(archive(withBlob: original.prefix(length))), "first \(length) bytes")
        }
    }

    // MARK: - Pushes

    private func queryNotification(fields: [String: WireFieldValue]) -> WireNotification {
        var wire = WireNotification(kind: .query, notificationID: "nid", subscriptionID: "sub", containerIdentifier: "iCloud.com.example.clowns")
        wire.queryReason = .recordCreated
        wire.recordID = WireRecordID(recordName: "sighting")
        wire.recordFields = fields
        return wire
    }

    func testALocationInAPushsRecordFieldsReadsBackAsACLLocation() throws {
        let place = WireLocation(latitude: 51.5081, longitude: -0.0759, altitude: 14.5, horizontalAccuracy: 5, verticalAccuracy: 3, course: 123.25, speed: 1.5, timestamp: noon)
        let origin = WireLocation(latitude: 0, longitude: 0)
        let wire = queryNotification(fields: ["place": .location(place), "origin": .location(origin)])
        let dictionary = CKNotification.remoteNotificationDictionary(for: wire)
        XCTAssertEqual(CKNotification(fromRemoteNotificationDictionary: dictionary)?.wire.recordFields, wire.recordFields)

        // Through APNs' JSON, where 0 and -1 come back as integers.
        let json = try JSONSerialization.data(withJSONObject: dictionary)
        let decoded = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
        let notification = try XCTUnwrap(CKNotification(fromRemoteNotificationDictionary: decoded) as? CKQueryNotification)
        XCTAssertEqual(notification.wire.recordFields, wire.recordFields)
        let read = try XCTUnwrap(notification.recordFields?["place"] as? CLLocation)
        XCTAssertEqual(read.coordinate.latitude, 51.5081)
        XCTAssertEqual(read.altitude, 14.5)
        XCTAssertEqual(read.speed, 1.5)
        XCTAssertEqual(read.timestamp, noon)
        XCTAssertTrue(WireNotification.isAllowedRecordFieldValue(.location(place)))
    }

    func testAMalformedLocationInAPushIsRefused() throws {
        let wire = queryNotification(fields: ["place": .location(WireLocation(latitude: 10, longitude: 20))])
        let dictionary = CKNotification.remoteNotificationDictionary(for: wire)
        let json = try JSONSerialization.data(withJSONObject: dictionary)
        let good = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
        XCTAssertNotNil(CKNotification(fromRemoteNotificationDictionary: good))

        func damaged(_ change: (inout [String: Any]) -> Void) throws -> [String: Any] {
            var copy = good
            let ck = try XCTUnwrap(copy["ck"] as? [String: Any])
            var query = try XCTUnwrap(ck["qry"] as? [String: Any])
            var fields = try XCTUnwrap(query["af"] as? [String: Any])
            var place = try XCTUnwrap(fields["place"] as? [String: Any])
            change(&place)
            fields["place"] = place
            query["af"] = fields
            var newCK = ck
            newCK["qry"] = query
            copy["ck"] = newCK
            return copy
        }
        let cases: [(String, (inout [String: Any]) -> Void)] = [
            ("latitude 91", { $0["latitude"] = 91 }),
            ("longitude as text", { $0["longitude"] = "20" }),
            ("no timestamp", { $0["timestamp"] = nil }),
            ("an extra key", { $0["floor"] = 2 }),
        ]
        for (name, change) in cases {
            XCTAssertNil(CKNotification(fromRemoteNotificationDictionary: try damaged(change)), name)
        }
    }
}
