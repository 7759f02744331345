import Foundation
import StratusCore
import StratusWire
import XCTest

/// The identifiers operations, record IDs and subscriptions take when none is given.
final class RandomUUIDTests: XCTestCase {
    func testEachIsAVersion4UUIDSpelledAsFoundationSpellsIt() throws {
        for _ in 0..<1_000 {
            let string = RandomUUID.string()
            let uuid = try XCTUnwrap(UUID(uuidString: string), string)
            XCTAssertEqual(uuid.uuidString, string, "upper case, dashes after 8, 12, 16 and 20 digits")
            XCTAssertEqual(uuid.uuid.6 >> 4, 4, "version 4: \(string)")
            XCTAssertEqual(uuid.uuid.8 >> 6, 0b10, "RFC 4122 variant: \(string)")
        }
    }

    func testTheyDoNotRepeat() {
        let strings = (0..<10_000).map { _ in RandomUUID.string() }
        XCTAssertEqual(Set(strings).count, strings.count)
    }

    func testOperationsAndRecordIDsTakeThem() {
        let first = CKRecord.ID().recordName, second = CKRecord.ID().recordName
        XCTAssertNotEqual(first, second)
        XCTAssertNotNil(UUID(uuidString: first))
    }
}
