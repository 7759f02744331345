import Foundation
import Stratus
import XCTest

/// A server with an owner (john) and two other accounts (mary, bob), each on a device of
/// their own, and helpers to share a party with its attendees.
class SharedDatabaseTestCase: XCTestCase {
    let identifier = "iCloud.com.example.parties"
    let zoneID = CKRecordZone.ID(zoneName: "Parties")
    var clock: ManualClock!
    var server: CloudServer!
    var john: CKContainer!
    var mary: CKContainer!
    var bob: CKContainer!

    override func setUp() {
        super.setUp()
        clock = ManualClock()
        server = CloudServer(clock: clock)
        for account in ["john", "mary", "bob"] { server.setEmailAddress("\(account)@example.com", forAccount: account) }
        john = server.container(identifier: identifier, account: "john")
        mary = server.container(identifier: identifier, account: "mary")
        bob = server.container(identifier: identifier, account: "bob")
    }

    override func tearDown() {
        john = nil
        mary = nil
        bob = nil
        server = nil
        clock = nil
        super.tearDown()
    }

    /// John's zone, as another account's shared database names it.
    func sharedZoneID() async throws -> CKRecordZone.ID {
        CKRecordZone.ID(zoneName: zoneID.zoneName, ownerName: try await john.userRecordID().recordName)
    }

    func recordID(_ name: String) -> CKRecord.ID {
        CKRecord.ID(recordName: name, zoneID: zoneID)
    }

    /// Creates John's zone with a party, `attendees` children of it, and a record of his own
    /// that no share covers.
    func seedParty(_ name: String = "party", attendees: [String] = ["ann", "ben"]) async throws {
        _ = try await john.privateCloudDatabase.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
        let party = CKRecord(recordType: "Party", recordID: recordID(name))
        party["title"] = "Big Top Bash"
        let children = attendees.map { attendee -> CKRecord in
            let record = CKRecord(recordType: "Attendee", recordID: recordID(attendee))
            record["name"] = attendee
            record.parent = CKRecord.Reference(recordID: party.recordID, action: .none)
            return record
        }
        let secret = CKRecord(recordType: "Diary", recordID: recordID("diary"))
        secret["text"] = "not for anyone else"
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [party] + children + [secret], deleting: [])
    }

    /// Adds a second root to John's zone, not shared: a picnic with a cake under it.
    func seedPicnic() async throws {
        let picnic = CKRecord(recordType: "Party", recordID: recordID("picnic"))
        picnic["title"] = "Picnic"
        let cake = CKRecord(recordType: "Attendee", recordID: recordID("cake"))
        cake["name"] = "Cake"
        cake.parent = CKRecord.Reference(recordID: picnic.recordID, action: .none)
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [picnic, cake], deleting: [])
    }

    /// Shares John's `root` with the accounts' emails at `permission`; returns the saved share.
    @discardableResult
    func share(_ root: String = "party", with emails: [String], permission: CKShare.ParticipantPermission = .readWrite, publicPermission: CKShare.ParticipantPermission = .none) async throws -> CKShare {
        let database = john.privateCloudDatabase
        let rootRecord = try await database.record(for: recordID(root))
        let share = CKShare(rootRecord: rootRecord)
        share.publicPermission = publicPermission
        for email in emails {
            let participant = try await john.shareParticipant(forEmailAddress: email)
            participant.permission = permission
            share.addParticipant(participant)
        }
        let (saves, _) = try await database.modifyRecords(saving: [rootRecord, share], deleting: [])
        guard let saved = try saves[share.recordID]?.get() as? CKShare else {
            throw CKError(.internalError, userInfo: [NSLocalizedDescriptionKey: "the share was not saved"])
        }
        return saved
    }

    /// `container`'s account accepts the share at `url`.
    @discardableResult
    func accept(_ url: URL?, as container: CKContainer) async throws -> CKShare {
        let url = try XCTUnwrap(url)
        let metadata = try await container.shareMetadata(for: url)
        return try await container.accept(metadata)
    }

    func assertCKError(_ code: CKError.Code, _ body: () async throws -> Void, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            try await body()
            XCTFail("expected \(code)", file: file, line: line)
        } catch let error as CKError {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
        }
    }
}
