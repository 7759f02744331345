import Foundation
import StratusCore
import XCTest
import _StratusTestSupport

/// Every CloudKit field type goes into a record and comes back with the casts CloudKit code writes.
final class RecordValueTests: XCTestCase {
    private let date = Date(timeIntervalSince1970: 1_767_225_600.25)

    func testStringsReadBackAsStringAndNSString() throws {
        let record = CKRecord(recordType: "Party")
        record["title"] = "Clowns 🤡 at the park"
        try assertEverywhere(record) { record in
            XCTAssertEqual(record["title"] as? String, "Clowns 🤡 at the park")
            XCTAssertEqual(record["title"] as? NSString, "Clowns 🤡 at the park")
            let typed: String? = record["title"]
            XCTAssertEqual(typed, "Clowns 🤡 at the park")
            XCTAssertEqual(record.object(forKey: "title") as? String, "Clowns 🤡 at the park")
            XCTAssertEqual(record.value(forKey: "title") as? String, "Clowns 🤡 at the park")
        }
    }

    func testIntegersReadBackWithEveryNumericCast() throws {
        let record = CKRecord(recordType: "Numbers")
        record["int"] = 42
        record["int8"] = Int8(-8)
        record["int16"] = Int16(1_600)
        record["int32"] = Int32(-320_000)
        record["int64"] = Int64.max
        record["uint"] = UInt(7)
        record["uint8"] = UInt8(255)
        record["uint16"] = UInt16(65_535)
        record["uint32"] = UInt32.max
        record["uint64"] = UInt64(Int64.max)
        record["nsnumber"] = NSNumber(value: 99)
        try assertEverywhere(record) { record in
            XCTAssertEqual(record["int"] as? Int, 42)
            XCTAssertEqual(record["int"] as? Int64, 42)
            XCTAssertEqual(record["int"] as? Int32, 42)
            XCTAssertEqual(record["int"] as? Double, 42)
            XCTAssertEqual(record["int"] as? NSNumber, NSNumber(value: 42))
            let typed: Int? = record["int"]
            XCTAssertEqual(typed, 42)
            XCTAssertEqual(record["int8"] as? Int8, -8)
            XCTAssertEqual(record["int16"] as? Int16, 1_600)
            XCTAssertEqual(record["int32"] as? Int32, -320_000)
            XCTAssertEqual(record["int64"] as? Int64, Int64.max)
            XCTAssertEqual(record["uint"] as? UInt, 7)
            XCTAssertEqual(record["uint8"] as? UInt8, 255)
            XCTAssertEqual(record["uint16"] as? UInt16, 65_535)
            XCTAssertEqual(record["uint32"] as? UInt32, UInt32.max)
            XCTAssertEqual(record["uint64"] as? UInt64, UInt64(Int64.max))
            XCTAssertEqual(record["nsnumber"] as? Int, 99)
            XCTAssertNil(record["int"] as? String)
        }
    }

    func testFloatingPointNumbersReadBackAsDoubleAndFloat() throws {
        let record = CKRecord(recordType: "Numbers")
        record["double"] = 2.5
        record["float"] = Float(0.1)
        record["whole"] = 3.0
        try assertEverywhere(record) { record in
            XCTAssertEqual(record["double"] as? Double, 2.5)
            XCTAssertEqual(record["double"] as? Float, 2.5)
            XCTAssertNil(record["double"] as? Int, "2.5 is not an Int, as on Apple's platforms")
            XCTAssertEqual(record["float"] as? Float, Float(0.1))
            let typed: Float? = record["float"]
            XCTAssertEqual(typed, Float(0.1))
            XCTAssertEqual(record["whole"] as? Int, 3, "a whole double converts to Int, as NSNumber does")
        }
    }

    func testBooleansAreStoredAsIntegersAndReadBackAsBool() throws {
        let record = CKRecord(recordType: "Flags")
        record["yes"] = true
        record["no"] = false
        try assertEverywhere(record) { record in
            XCTAssertEqual(record["yes"] as? Bool, true)
            XCTAssertEqual(record["no"] as? Bool, false)
            XCTAssertEqual(record["yes"] as? Int, 1)
            let typed: Bool? = record["yes"]
            XCTAssertEqual(typed, true)
        }
    }

    func testDatesAndDataReadBackAsThemselvesAndFoundationObjects() throws {
        let record = CKRecord(recordType: "Photo")
        record["taken"] = date
        record["thumbnail"] = Data([0xFF, 0xD8, 0x00])
        record["nsdate"] = NSDate(timeIntervalSince1970: 5)
        record["nsdata"] = NSData(data: Data([1]))
        try assertEverywhere(record) { record in
            XCTAssertEqual(record["taken"] as? Date, date)
            XCTAssertEqual((record["taken"] as? NSDate).map { $0 as Date }, date)
            XCTAssertEqual(record["thumbnail"] as? Data, Data([0xFF, 0xD8, 0x00]))
            let typed: Data? = record["thumbnail"]
            XCTAssertEqual(typed, Data([0xFF, 0xD8, 0x00]))
            XCTAssertEqual(record["nsdate"] as? Date, Date(timeIntervalSince1970: 5))
            XCTAssertEqual(record["nsdata"] as? Data, Data([1]))
        }
    }

    func testReferencesAndAssetsReadBackEqual() throws {
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party"))
        let record = CKRecord(recordType: "Clown")
        let file = URL(fileURLWithPath: "/tmp/wig.png")
        record["party"] = CKRecord.Reference(record: party, action: .deleteSelf)
        record["wig"] = CKAsset(fileURL: file)
        try assertEverywhere(record) { record in
            let reference = try XCTUnwrap(record["party"] as? CKRecord.Reference)
            XCTAssertEqual(reference.recordID, party.recordID)
            XCTAssertEqual(reference.action, .deleteSelf)
            let typed: CKRecord.Reference? = record["party"]
            XCTAssertEqual(typed, CKRecord.Reference(recordID: party.recordID, action: .deleteSelf))
            XCTAssertEqual((record["wig"] as? CKAsset)?.fileURL, file)
        }
    }

    func testArraysReadBackAsTypedArraysAndNSArray() throws {
        let record = CKRecord(recordType: "Lists")
        record["strings"] = ["a", "b"]
        record["ints"] = [1, 2, 3]
        record["doubles"] = [1.5, 2.5]
        record["bools"] = [true, false]
        record["dates"] = [date]
        record["datas"] = [Data([1]), Data([2])]
        record["references"] = [CKRecord.Reference(recordID: CKRecord.ID(recordName: "x"), action: .none)]
        record["nsarray"] = NSArray(array: [NSString(string: "n")])
        record["empty"] = [String]()
        try assertEverywhere(record) { record in
            XCTAssertEqual(record["strings"] as? [String], ["a", "b"])
            XCTAssertEqual(record["ints"] as? [Int], [1, 2, 3])
            XCTAssertEqual(record["ints"] as? [Int64], [1, 2, 3])
            XCTAssertEqual(record["ints"] as? [Double], [1, 2, 3])
            XCTAssertEqual(record["ints"] as? [NSNumber], [1, 2, 3].map { NSNumber(value: $0) })
            XCTAssertEqual((record["ints"] as? NSArray)?.count, 3)
            XCTAssertEqual(record["doubles"] as? [Double], [1.5, 2.5])
            XCTAssertEqual(record["bools"] as? [Bool], [true, false])
            XCTAssertEqual(record["dates"] as? [Date], [date])
            XCTAssertEqual(record["datas"] as? [Data], [Data([1]), Data([2])])
            XCTAssertEqual((record["references"] as? [CKRecord.Reference])?.first?.recordID.recordName, "x")
            XCTAssertEqual(record["nsarray"] as? [String], ["n"])
            XCTAssertEqual(record["empty"] as? [String], [])
            let typed: [String]? = record["strings"]
            XCTAssertEqual(typed, ["a", "b"])
        }
    }

    func testCKRecordValueCastsCompileAndStore() {
        let record = CKRecord(recordType: "Legacy")
        let name = "Bozo"
        record.setObject(name as CKRecordValue, forKey: "name")
        record["age"] = 7 as CKRecordValue
        record.setValue(3.5, forKey: "height")
        XCTAssertEqual(record["name"] as? String, "Bozo")
        XCTAssertEqual(record["age"] as? Int, 7)
        XCTAssertEqual(record["height"] as? Double, 3.5)
    }

    func testIteratingARecordYieldsSwiftValuesInKeyOrder() {
        let record = CKRecord(recordType: "Party")
        record["title"] = "Clowns"
        record["attendees"] = 12
        record["tags"] = ["x"]
        let pairs = Array(record)
        XCTAssertEqual(pairs.map(\.0), ["attendees", "tags", "title"])
        XCTAssertEqual(pairs[0].1 as? Int64, 12)
        XCTAssertEqual(pairs[1].1 as? [String], ["x"])
        XCTAssertEqual(pairs[2].1 as? String, "Clowns")
    }

    func testAllKeysListsOnlyKeysWithValues() {
        let record = CKRecord(recordType: "Party")
        record["b"] = 1
        record["a"] = "x"
        record["gone"] = "y"
        record["gone"] = nil
        XCTAssertEqual(record.allKeys(), ["a", "b"])
    }

    // MARK: - Values that are not field values

    func testUnsignedValueBeyondInt64IsRejectedNotStored() {
        let record = CKRecord(recordType: "Numbers")
        record["huge"] = UInt64.max
        XCTAssertNil(record["huge"])
        XCTAssertEqual(record.changedKeys(), ["huge"])
        XCTAssertTrue(record.rejectedValues.plain["huge"]?.contains("Int(64)") == true, "\(record.rejectedValues)")
    }

    func testNestedAndMixedListsAreRejected() {
        let record = CKRecord(recordType: "Lists")
        record["nested"] = [[1, 2], [3]]
        record["mixed"] = NSArray(array: [NSString(string: "a"), NSNumber(value: 1)])
        XCTAssertNil(record["nested"])
        XCTAssertNil(record["mixed"])
        XCTAssertEqual(Set(record.rejectedValues.plain.keys), ["nested", "mixed"])
        XCTAssertTrue(record.rejectedValues.plain["mixed"]?.contains("one type") == true)
    }

    func testAnArrayNestedThousandsDeepIsRefusedAtItsSecondLevelNotWalked() {
        var swiftArray: Any = [1]
        var objcArray = NSArray(object: NSNumber(value: 1))
        for _ in 0..<4_000 {
            swiftArray = [swiftArray]
            objcArray = NSArray(object: objcArray)
        }
        let values = UncheckedSendable((swiftArray, objcArray))
        let rejected = onSmallStack {
            let record = CKRecord(recordType: "Lists")
            record.setValue(values.value.0, forKey: "swift")
            record.setValue(values.value.1, forKey: "objc")
            return [record.object(forKey: "swift") == nil, record.object(forKey: "objc") == nil] + ["swift", "objc"].map { record.rejectedValues.plain[$0]?.contains("another list") == true }
        }
        XCTAssertEqual(rejected, [true, true, true, true])
    }

    func testKeyValueCodingRejectsValuesOfOtherTypes() {
        let record = CKRecord(recordType: "KVC")
        record.setValue(URL(fileURLWithPath: "/tmp"), forKey: "url")
        XCTAssertNil(record["url"])
        XCTAssertTrue(record.rejectedValues.plain["url"]?.contains("not a CloudKit field type") == true)
    }

    func testSettingAValidValueClearsAnEarlierRejection() {
        let record = CKRecord(recordType: "Numbers")
        record["n"] = UInt64.max
        record["n"] = 1
        XCTAssertEqual(record["n"] as? Int, 1)
        XCTAssertTrue(record.rejectedValues.plain.isEmpty)
    }

    // MARK: - Encrypted values

    func testEncryptedValuesAreStoredApartFromPlainValues() throws {
        let record = CKRecord(recordType: "Diary")
        record.encryptedValues["entry"] = "Dear diary"
        record.encryptedValues["mood"] = 7
        record["title"] = "Monday"
        try assertEverywhere(record) { record in
            let entry: String? = record.encryptedValues["entry"]
            XCTAssertEqual(entry, "Dear diary")
            XCTAssertEqual(record.encryptedValues["mood"] as? Int, 7)
            XCTAssertNil(record["entry"])
            XCTAssertEqual(record.allKeys(), ["title"])
            XCTAssertEqual(record.encryptedValues.allKeys(), ["entry", "mood"])
        }
        XCTAssertEqual(record.encryptedValues.changedKeys(), ["entry", "mood"])
        XCTAssertEqual(record.changedKeys(), ["title"])
    }

    func testEncryptedValuesRejectReferencesAndAssets() {
        let record = CKRecord(recordType: "Diary")
        record.encryptedValues["link"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "x"), action: .none)
        record.encryptedValues["photo"] = CKAsset(fileURL: URL(fileURLWithPath: "/tmp/p"))
        record.encryptedValues["links"] = [CKRecord.Reference(recordID: CKRecord.ID(recordName: "y"), action: .none)]
        XCTAssertEqual(record.encryptedValues.allKeys(), [])
        XCTAssertEqual(Set(record.rejectedValues.encrypted.keys), ["link", "photo", "links"])
        XCTAssertTrue(record.rejectedValues.encrypted["link"]?.contains("CKRecord.Reference") == true)
        XCTAssertTrue(record.rejectedValues.encrypted["photo"]?.contains("CKAsset") == true)
    }

    // MARK: - Parent

    func testSetParentMakesAReferenceWithNoAction() throws {
        let folder = CKRecord(recordType: "Folder", recordID: CKRecord.ID(recordName: "folder"))
        let file = CKRecord(recordType: "File")
        file.setParent(folder)
        try assertEverywhere(file) { file in
            XCTAssertEqual(file.parent?.recordID, folder.recordID)
            XCTAssertEqual(file.parent?.action, CKRecord.ReferenceAction.none)
        }
        file.setParent(nil as CKRecord.ID?)
        XCTAssertNil(file.parent)
    }
}
