import Foundation
import Stratus
import XCTest

/// Owner and participants side by side on one server: john owns a zone "Parties" (his private
/// database is `database`), mary has the address mary@example.com, and sam is a stranger.
class SharingTestCase: OperationTestCase {
    let zoneID = CKRecordZone.ID(zoneName: "Parties")
    var john: CKContainer!
    var mary: CKContainer!
    var sam: CKContainer!

    override func setUp() {
        super.setUp()
        john = database.container
        mary = server.container(identifier: identifier, account: "mary")
        sam = server.container(identifier: identifier, account: "sam")
        server.setEmailAddress("mary@example.com", forAccount: "mary")
    }

    override func tearDown() {
        john = nil
        mary = nil
        sam = nil
        super.tearDown()
    }

    /// `account`'s user record name in the test container.
    func userRecordName(_ account: String) -> String {
        server.userRecordName(account: account, containerIdentifier: identifier)
    }

    /// The zone as a participant's shared database names it: owned by john.
    var sharedZoneID: CKRecordZone.ID {
        CKRecordZone.ID(zoneName: zoneID.zoneName, ownerName: userRecordName("john"))
    }

    /// A party record of john's zone.
    func party(_ name: String = "party", title: String = "Big Top Bash") -> CKRecord {
        let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        record["title"] = title
        return record
    }

    /// John shares `root` (saved with its share in one modify call), inviting mary with
    /// `permission` unless `inviteMary` is false; returns the share as saved.
    @discardableResult
    func share(
        _ root: CKRecord,
        inviteMary: Bool = true,
        permission: CKShare.ParticipantPermission = .readOnly,
        publicPermission: CKShare.ParticipantPermission = .none
    ) async throws -> CKShare {
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
        let share = CKShare(rootRecord: root)
        share[CKShare.SystemFieldKey.title] = "Party time"
        share.publicPermission = publicPermission
        if inviteMary {
            let invitee = try await john.shareParticipant(forEmailAddress: "mary@example.com")
            invitee.permission = permission
            share.addParticipant(invitee)
        }
        let (saves, _) = try await database.modifyRecords(saving: [root, share], deleting: [])
        return try XCTUnwrap(try saves[share.recordID]?.get() as? CKShare)
    }

    /// John shares the whole zone, inviting mary; returns the share as saved.
    @discardableResult
    func shareZone(permission: CKShare.ParticipantPermission = .readOnly) async throws -> CKShare {
        let zone = CKRecordZone(zoneID: zoneID)
        _ = try await database.modifyRecordZones(saving: [zone], deleting: [])
        let share = CKShare(recordZoneID: zoneID)
        let invitee = try await john.shareParticipant(forEmailAddress: "mary@example.com")
        invitee.permission = permission
        share.addParticipant(invitee)
        let (saves, _) = try await database.modifyRecords(saving: [party(), share], deleting: [])
        return try XCTUnwrap(try saves[share.recordID]?.get() as? CKShare)
    }

    /// The share's URL, failing the test when it has none.
    func url(of share: CKShare, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try XCTUnwrap(share.url, "a saved share has a URL", file: file, line: line)
    }
}
