import Foundation
import StratusCore
import StratusWire
import XCTest

/// Record and zone names are equal only when their UTF-8 bytes are, as a server stores them:
/// canonically equivalent spellings (`String`'s `==`) name different records and zones.
final class ExactNameTests: XCTestCase {
    /// "Zoné" with a precomposed é (U+00E9) and with e + combining acute accent (U+0301).
    private let precomposed = "Zon\u{E9}"
    private let decomposed = "Zone\u{301}"

    func testTheTwoSpellingsAreCanonicallyEqualStringsWithDifferentBytes() {
        XCTAssertEqual(precomposed, decomposed)
        XCTAssertNotEqual(Array(precomposed.utf8), Array(decomposed.utf8))
    }

    func testRecordIDsWithCanonicallyEquivalentNamesAreDifferentKeys() {
        let a = CKRecord.ID(recordName: precomposed)
        let b = CKRecord.ID(recordName: decomposed)
        XCTAssertFalse(a.isEqual(b))
        XCTAssertNotEqual(a, b)
        XCTAssertNotEqual(a.hash, b.hash)
        XCTAssertEqual(Set([a, b]).count, 2)
        var byID: [CKRecord.ID: Int] = [:]
        byID[a] = 1
        byID[b] = 2
        XCTAssertEqual(byID.count, 2)
        XCTAssertEqual(byID[CKRecord.ID(recordName: precomposed)], 1)
        XCTAssertEqual(byID[CKRecord.ID(recordName: decomposed)], 2)
        XCTAssertEqual(Set([AnyHashable(a), AnyHashable(b)]).count, 2)
        XCTAssertEqual(a, CKRecord.ID(recordName: "Zon\u{E9}"))
        XCTAssertEqual(a.hash, CKRecord.ID(recordName: "Zon\u{E9}").hash)
    }

    func testZoneIDsWithCanonicallyEquivalentNamesAreDifferentKeys() {
        let a = CKRecordZone.ID(zoneName: precomposed)
        let b = CKRecordZone.ID(zoneName: decomposed)
        XCTAssertNotEqual(a, b)
        XCTAssertNotEqual(a.hash, b.hash)
        XCTAssertEqual(Set([a, b]).count, 2)
        XCTAssertNotEqual(CKRecordZone.ID(zoneName: "Z", ownerName: precomposed), CKRecordZone.ID(zoneName: "Z", ownerName: decomposed))
        XCTAssertEqual(a, CKRecordZone.ID(zoneName: "Zon\u{E9}"))

        // A record ID in each zone, with the same record name.
        let inA = CKRecord.ID(recordName: "r", zoneID: a)
        let inB = CKRecord.ID(recordName: "r", zoneID: b)
        XCTAssertNotEqual(inA, inB)
        XCTAssertEqual(Set([inA, inB]).count, 2)
    }

    func testWireIDsCompareNamesByBytes() {
        let a = WireRecordID(recordName: precomposed)
        let b = WireRecordID(recordName: decomposed)
        XCTAssertNotEqual(a, b)
        XCTAssertNotEqual(a.hashValue, b.hashValue)
        XCTAssertEqual(Set([a, b]).count, 2)
        XCTAssertEqual([a: 1, b: 2].count, 2)
        XCTAssertEqual(a, WireRecordID(recordName: "Zon\u{E9}"))
        XCTAssertEqual(a.hashValue, WireRecordID(recordName: "Zon\u{E9}").hashValue)

        let zoneA = WireZoneID(zoneName: precomposed)
        let zoneB = WireZoneID(zoneName: decomposed)
        XCTAssertNotEqual(zoneA, zoneB)
        XCTAssertEqual(Set([zoneA, zoneB]).count, 2)
        XCTAssertNotEqual(WireZoneID(zoneName: "Z", ownerName: precomposed), WireZoneID(zoneName: "Z", ownerName: decomposed))
        XCTAssertNotEqual(WireRecordID(recordName: "r", zoneID: zoneA), WireRecordID(recordName: "r", zoneID: zoneB))
        // Name boundaries count: ("ab", "c") is not ("a", "bc").
        XCTAssertNotEqual(WireZoneID(zoneName: "ab", ownerName: "c").hashValue, WireZoneID(zoneName: "a", ownerName: "bc").hashValue)
        // References and records built on the IDs follow.
        XCTAssertNotEqual(WireReference(recordID: a, action: .none), WireReference(recordID: b, action: .none))
        XCTAssertEqual(CKRecord.ID(wire: a).wireValue, a)
    }

    func testExactNamesAreDictionaryKeysOrderedByBytes() {
        let a = WireName(precomposed)
        let b = WireName(decomposed)
        XCTAssertNotEqual(a, b)
        XCTAssertNotEqual(a.hashValue, b.hashValue)
        var names: [WireName: Int] = [a: 1]
        names[b] = 2
        XCTAssertEqual(names.count, 2)
        XCTAssertEqual(names[WireName("Zon\u{E9}")], 1)
        XCTAssertEqual(names["Zone\u{301}"], 2)
        XCTAssertEqual(a.string, precomposed)
        XCTAssertEqual(b.description, decomposed)

        // "Zone" + U+0301 (bytes 5A 6F 6E 65 …) sorts before "Zon" + U+00E9 (5A 6F 6E C3 A9).
        XCTAssertLessThan(b, a)
        XCTAssertFalse(a < b)
        XCTAssertFalse(a < a)
        XCTAssertEqual([WireName("b"), WireName("a\u{301}"), WireName("\u{E1}"), WireName("a"), WireName("")].sorted().map(\.string),
                       ["", "a", "a\u{301}", "b", "\u{E1}"])
    }

    func testBridgedStringsCompareAndHashLikeNativeOnes() {
        let bridged = NSString(string: decomposed) as String
        XCTAssertEqual(WireName(bridged), WireName(decomposed))
        XCTAssertEqual(WireName(bridged).hashValue, WireName(decomposed).hashValue)
        XCTAssertNotEqual(WireName(bridged), WireName(precomposed))
        XCTAssertEqual(CKRecord.ID(recordName: bridged), CKRecord.ID(recordName: decomposed))
        XCTAssertEqual(CKRecord.ID(recordName: bridged).hash, CKRecord.ID(recordName: decomposed).hash)
    }
}
