import Foundation
import StratusCore
import XCTest

/// Record and zone IDs are values: equal names make equal IDs, usable as dictionary keys.
final class IdentifierTests: XCTestCase {
    func testDefaultZoneAndOwnerNamesAreCloudKits() {
        XCTAssertEqual(CKRecordZone.ID.defaultZoneName, "_defaultZone")
        XCTAssertEqual(CKCurrentUserDefaultName, "__defaultOwner__")
        XCTAssertEqual(CKRecordZone.ID.default.zoneName, "_defaultZone")
        XCTAssertEqual(CKRecordZone.ID.default.ownerName, "__defaultOwner__")
        XCTAssertEqual(CKRecordZone.ID(), CKRecordZone.ID.default)
        XCTAssertEqual(CKRecordZone.default().zoneID, .default)
        XCTAssertEqual(CKRecordZone.default().capabilities, [])
    }

    func testNewRecordIDsAreUUIDsInTheDefaultZone() {
        let first = CKRecord.ID()
        let second = CKRecord.ID()
        XCTAssertNotEqual(first, second)
        XCTAssertNotNil(UUID(uuidString: first.recordName))
        XCTAssertEqual(first.zoneID, .default)
        XCTAssertNotNil(UUID(uuidString: CKRecord(recordType: "Party").recordID.recordName))
    }

    func testRecordIDsWithEqualNamesAndZonesAreEqualAndHashAlike() {
        let zone = CKRecordZone.ID(zoneName: "Parties")
        let a = CKRecord.ID(recordName: "party", zoneID: zone)
        let b = CKRecord.ID(recordName: "party", zoneID: CKRecordZone.ID(zoneName: "Parties"))
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.hash, b.hash)
        XCTAssertEqual(a.hashValue, b.hashValue)
        XCTAssertNotEqual(a, CKRecord.ID(recordName: "party"))
        XCTAssertNotEqual(a, CKRecord.ID(recordName: "party", zoneID: CKRecordZone.ID(zoneName: "Parties", ownerName: "_other")))
    }

    func testRecordIDsWorkAsDictionaryKeysAndInsideAnyHashable() {
        var titles: [CKRecord.ID: String] = [:]
        titles[CKRecord.ID(recordName: "a")] = "first"
        titles[CKRecord.ID(recordName: "a")] = "replaced"
        titles[CKRecord.ID(recordName: "b")] = "second"
        XCTAssertEqual(titles.count, 2)
        XCTAssertEqual(titles[CKRecord.ID(recordName: "a")], "replaced")

        let errors: [AnyHashable: String] = [CKRecord.ID(recordName: "a"): "failed", CKRecordZone.ID(zoneName: "z"): "zone"]
        XCTAssertEqual(errors[AnyHashable(CKRecord.ID(recordName: "a"))], "failed")
        XCTAssertEqual(errors[CKRecordZone.ID(zoneName: "z")], "zone")
        XCTAssertEqual(Set([CKRecord.ID(recordName: "x"), CKRecord.ID(recordName: "x")]).count, 1)
    }

    func testZoneIDsWithEqualNamesAndOwnersAreEqual() {
        XCTAssertEqual(CKRecordZone.ID(zoneName: "A"), CKRecordZone.ID(zoneName: "A", ownerName: CKCurrentUserDefaultName))
        XCTAssertNotEqual(CKRecordZone.ID(zoneName: "A"), CKRecordZone.ID(zoneName: "B"))
        XCTAssertFalse(CKRecordZone.ID(zoneName: "A").isEqual("A"))
    }

    func testReferencesAreEqualByTargetAndAction() {
        let id = CKRecord.ID(recordName: "party")
        XCTAssertEqual(CKRecord.Reference(recordID: id, action: .none), CKRecord.Reference(recordID: CKRecord.ID(recordName: "party"), action: .none))
        XCTAssertNotEqual(CKRecord.Reference(recordID: id, action: .none), CKRecord.Reference(recordID: id, action: .deleteSelf))
        let record = CKRecord(recordType: "Party", recordID: id)
        XCTAssertEqual(CKRecord.Reference(record: record, action: .deleteSelf).recordID, id)
        XCTAssertEqual(CKRecord.ReferenceAction.none.rawValue, 0)
        XCTAssertEqual(CKRecord.ReferenceAction.deleteSelf.rawValue, 1)
    }

    func testZonesCreatedLocallyReportNoCapabilities() {
        let zone = CKRecordZone(zoneName: "Parties")
        XCTAssertEqual(zone.zoneID, CKRecordZone.ID(zoneName: "Parties"))
        XCTAssertEqual(zone.capabilities, [])
        XCTAssertNil(zone.share)
        XCTAssertEqual(CKRecordZone.Capabilities.fetchChanges.rawValue, 1)
        XCTAssertEqual(CKRecordZone.Capabilities.atomic.rawValue, 2)
        XCTAssertEqual(CKRecordZone.Capabilities.sharing.rawValue, 4)
        XCTAssertEqual(CKRecordZone.Capabilities.zoneWideSharing.rawValue, 8)
    }

    func testSystemNamesAreCloudKits() {
        XCTAssertEqual(CKRecord.SystemType.userRecord, "Users")
        XCTAssertEqual(CKRecord.SystemType.share, "cloudkit.share")
        XCTAssertEqual(CKRecord.SystemFieldKey.parent, "___parent")
        XCTAssertEqual(CKRecord.SystemFieldKey.share, "___share")
        XCTAssertEqual(CKRecord.SystemFieldKey.creationDate, "___createTime")
    }

    func testEnumerationsHaveCloudKitsRawValues() {
        XCTAssertEqual(CKDatabase.Scope.public.rawValue, 1)
        XCTAssertEqual(CKDatabase.Scope.private.rawValue, 2)
        XCTAssertEqual(CKDatabase.Scope.shared.rawValue, 3)
        XCTAssertEqual(CKAccountStatus.couldNotDetermine.rawValue, 0)
        XCTAssertEqual(CKAccountStatus.available.rawValue, 1)
        XCTAssertEqual(CKAccountStatus.restricted.rawValue, 2)
        XCTAssertEqual(CKAccountStatus.noAccount.rawValue, 3)
        XCTAssertEqual(CKAccountStatus.temporarilyUnavailable.rawValue, 4)
        XCTAssertEqual(CKRecordSavePolicy.ifServerRecordUnchanged.rawValue, 0)
        XCTAssertEqual(CKRecordSavePolicy.changedKeys.rawValue, 1)
        XCTAssertEqual(CKRecordSavePolicy.allKeys.rawValue, 2)
    }
}
