import Foundation
import StratusWire
import XCTest

/// `WireRecord` shares one box between copies until one of them changes: it must still
/// behave as a value.
final class WireRecordValueTests: XCTestCase {
    private func record() -> WireRecord {
        WireRecord(recordID: WireRecordID(recordName: "party"), recordType: "Party", changeTag: "1", fields: ["title": .string("Clowns")])
    }

    func testChangingACopyLeavesTheOriginalAlone() {
        let original = record()
        var copy = original
        copy.fields["title"] = .string("Jugglers")
        copy.changeTag = "2"
        copy.recordID.zoneID = WireZoneID(zoneName: "Other")
        XCTAssertEqual(original.fields["title"], .string("Clowns"))
        XCTAssertEqual(original.changeTag, "1")
        XCTAssertEqual(original.recordID.zoneID, WireZoneID(zoneName: WireZoneID.defaultZoneName))
        XCTAssertEqual(copy.fields["title"], .string("Jugglers"))
        XCTAssertNotEqual(copy, original)
    }

    func testEqualityAndHashingFollowTheValuesNotTheBox() {
        let first = record(), second = record()
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.hashValue, second.hashValue)
        var changed = second
        changed.creatorUserRecordName = "_abc"
        XCTAssertNotEqual(first, changed)
        changed.creatorUserRecordName = nil
        XCTAssertEqual(first, changed, "equal again once the values are")
        XCTAssertEqual(Set([first, second, changed]).count, 1)
    }

    func testCopiesMadeOnOtherThreadsStayIndependent() async {
        let shared = record()
        let titles = await withTaskGroup(of: WireFieldValue?.self) { group in
            for index in 0..<64 {
                group.addTask {
                    var mine = shared
                    mine.fields["title"] = .int64(Int64(index))
                    return mine.fields["title"]
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(Set(titles.compactMap { $0 }).count, 64)
        XCTAssertEqual(shared.fields["title"], .string("Clowns"))
    }
}
