import Foundation
import Stratus
import XCTest

/// The shared database's contract where the other sharing tests leave gaps: zone-wide shares
/// seen and written through it, every kind of write a read-only participant is refused, leaving
/// one share of several, the owner deleting a root, database and zone subscriptions on the
/// shared database, participants who joined a public share, changes travelling both ways, and
/// privacy: what an account that is not a participant, or a participant outside their share,
/// learns by guessing names, zones, tokens and cursors.
final class SharedDatabaseCoverageTests: SharedDatabaseTestCase {
    private func sharedID(_ name: String) async throws -> CKRecord.ID {
        CKRecord.ID(recordName: name, zoneID: try await sharedZoneID())
    }

    private func failure<Value>(of result: Result<Value, any Error>?) -> CKError? {
        guard case .failure(let error)? = result else { return nil }
        return error as? CKError
    }

    private func code<Value>(of result: Result<Value, any Error>?) -> CKError.Code? {
        failure(of: result)?.code
    }

    /// The error `body` throws, failing the test when it throws none or another kind.
    private func error(_ body: () async throws -> Void, file: StaticString = #filePath, line: UInt = #line) async -> CKError? {
        do {
            try await body()
            XCTFail("expected an error", file: file, line: line)
        } catch let error as CKError {
            return error
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
        }
        return nil
    }

    /// John shares his whole zone (seeded with the party, ann, ben and the diary) with the
    /// accounts' emails at `permission`; each accepts.
    @discardableResult
    private func shareZone(with accounts: [String: CKContainer], permission: CKShare.ParticipantPermission) async throws -> CKShare {
        try await seedParty()
        let share = CKShare(recordZoneID: zoneID)
        for account in accounts.keys.sorted() {
            let participant = try await john.shareParticipant(forEmailAddress: "\(account)@example.com")
            participant.permission = permission
            share.addParticipant(participant)
        }
        let (saves, _) = try await john.privateCloudDatabase.modifyRecords(saving: [share], deleting: [])
        let saved = try XCTUnwrap(try saves[share.recordID]?.get() as? CKShare)
        for account in accounts.keys.sorted() {
            try await accept(saved.url, as: try XCTUnwrap(accounts[account]))
        }
        return saved
    }

    private func names(in changes: (modificationResultsByID: [CKRecord.ID: Result<CKDatabase.RecordZoneChange.Modification, any Error>], deletions: [CKDatabase.RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool)) -> Set<String> {
        Set(changes.modificationResultsByID.keys.map(\.recordName))
    }

    // MARK: - Zone-wide shares through the shared database

    func testAZoneWideShareShowsEveryRecordOfTheZoneNowAndLater() async throws {
        let share = try await shareZone(with: ["mary": mary], permission: .readOnly)
        let zone = try await sharedZoneID()

        let zones = try await mary.sharedCloudDatabase.allRecordZones()
        XCTAssertEqual(zones.map(\.zoneID), [zone])
        XCTAssertEqual(zones.first?.share?.recordID.recordName, CKRecordNameZoneWideShare, "the zone names its zone-wide share")
        let changes = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: nil)
        XCTAssertEqual(names(in: changes), ["party", "ann", "ben", "diary", share.recordID.recordName])
        let diary = try await mary.sharedCloudDatabase.record(for: try await sharedID("diary"))
        XCTAssertEqual(diary["text"] as? String, "not for anyone else")
        XCTAssertEqual(diary.share?.recordID.recordName, CKRecordNameZoneWideShare, "every record reads as shared by the zone's share")
        let diaries = try await mary.sharedCloudDatabase.records(matching: CKQuery(recordType: "Diary", predicate: NSPredicate(value: true)), inZoneWith: zone, desiredKeys: nil)
        XCTAssertEqual(diaries.matchResults.map(\.0.recordName), ["diary"])

        let later = CKRecord(recordType: "Note", recordID: recordID("later"))
        later["text"] = "added after the share"
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [later], deleting: [])
        let next = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: changes.changeToken)
        XCTAssertEqual(names(in: next), ["later"], "a record with no parent is shared too")
    }

    func testAReadWriteParticipantOfAZoneWideShareWritesAnyRecordButNeverUnderTheShare() async throws {
        let share = try await shareZone(with: ["mary": mary], permission: .readWrite)
        let loose = CKRecord(recordType: "Note", recordID: try await sharedID("loose"))
        loose["text"] = "no parent needed"
        let diary = try await mary.sharedCloudDatabase.record(for: try await sharedID("diary"))
        diary["text"] = "shared after all"
        let underShare = CKRecord(recordType: "Note", recordID: try await sharedID("under-share"))
        underShare.parent = CKRecord.Reference(recordID: try await sharedID(share.recordID.recordName), action: .none)
        let benID = try await sharedID("ben")

        let (saves, deletes) = try await mary.sharedCloudDatabase.modifyRecords(saving: [loose, diary, underShare], deleting: [benID], atomically: false)

        XCTAssertNil(code(of: saves[loose.recordID]))
        XCTAssertNil(code(of: saves[diary.recordID]))
        XCTAssertNil(code(of: deletes[benID]))
        XCTAssertEqual(code(of: saves[underShare.recordID]), .permissionFailure, "the share is nobody's parent")
        let johnsLoose = try await john.privateCloudDatabase.record(for: recordID("loose"))
        XCTAssertEqual(johnsLoose["text"] as? String, "no parent needed")
        let johnsDiary = try await john.privateCloudDatabase.record(for: recordID("diary"))
        XCTAssertEqual(johnsDiary["text"] as? String, "shared after all")
        await assertCKError(.unknownItem) { _ = try await self.john.privateCloudDatabase.record(for: self.recordID("ben")) }
    }

    func testAReadOnlyParticipantOfAZoneWideShareIsRefusedEveryWrite() async throws {
        try await shareZone(with: ["bob": bob], permission: .readOnly)
        let loose = CKRecord(recordType: "Note", recordID: try await sharedID("loose"))
        let diary = try await bob.sharedCloudDatabase.record(for: try await sharedID("diary"))
        diary["text"] = "bob was here"
        let benID = try await sharedID("ben")

        let (saves, deletes) = try await bob.sharedCloudDatabase.modifyRecords(saving: [loose, diary], deleting: [benID], atomically: false)

        XCTAssertEqual(code(of: saves[loose.recordID]), .permissionFailure)
        XCTAssertEqual(code(of: saves[diary.recordID]), .permissionFailure)
        XCTAssertEqual(code(of: deletes[benID]), .permissionFailure)
    }

    func testDeletingTheZoneWideShareTakesTheZoneAwayThroughDatabaseChanges() async throws {
        let share = try await shareZone(with: ["mary": mary], permission: .readWrite)
        let zone = try await sharedZoneID()
        let first = try await mary.sharedCloudDatabase.databaseChanges(since: nil)
        XCTAssertEqual(first.modifications.map(\.zoneID), [zone])

        _ = try await john.privateCloudDatabase.modifyRecords(saving: [], deleting: [share.recordID])

        let after = try await mary.sharedCloudDatabase.databaseChanges(since: first.changeToken)
        XCTAssertEqual(after.deletions.map(\.zoneID), [zone])
        await assertCKError(.zoneNotFound) { _ = try await self.mary.sharedCloudDatabase.record(for: try await self.sharedID("diary")) }
        let johnsZone = try await john.privateCloudDatabase.recordZone(for: zoneID)
        XCTAssertNil(johnsZone.share, "the owner's zone is no longer shared")
    }

    // MARK: - A read-only participant

    func testAReadOnlyParticipantIsRefusedEveryKindOfWriteButMayLeave() async throws {
        try await seedParty()
        let share = try await share(with: ["bob@example.com"], permission: .readOnly)
        try await accept(share.url, as: bob)
        let database = bob.sharedCloudDatabase
        let partyID = try await sharedID("party")

        let edit = CKRecord(recordType: "Attendee", recordID: try await sharedID("ann"))
        edit["name"] = "changed keys only"
        let move = try await database.record(for: try await sharedID("ben"))
        move.parent = CKRecord.Reference(recordID: try await sharedID("ann"), action: .none)
        let child = CKRecord(recordType: "Attendee", recordID: try await sharedID("dan"))
        child.parent = CKRecord.Reference(recordID: partyID, action: .none)
        let loose = CKRecord(recordType: "Attendee", recordID: try await sharedID("eve"))
        let fetchedShare = try await database.record(for: try await sharedID(share.recordID.recordName))
        let theShare = try XCTUnwrap(fetchedShare as? CKShare)
        theShare[CKShare.SystemFieldKey.title] = "Bob's now"

        for (record, policy) in [(edit, CKRecordSavePolicy.changedKeys), (move, .ifServerRecordUnchanged), (child, .ifServerRecordUnchanged), (loose, .allKeys), (theShare, .changedKeys)] {
            let (saves, _) = try await database.modifyRecords(saving: [record], deleting: [], savePolicy: policy, atomically: false)
            XCTAssertEqual(code(of: saves[record.recordID]), .permissionFailure, record.recordID.recordName)
        }
        for name in ["party", "ann"] {
            let recordID = try await sharedID(name)
            let (_, deletes) = try await database.modifyRecords(saving: [], deleting: [recordID], atomically: false)
            XCTAssertEqual(code(of: deletes[recordID]), .permissionFailure, name)
        }
        let johnsBen = try await john.privateCloudDatabase.record(for: recordID("ben"))
        XCTAssertEqual(johnsBen.parent?.recordID, recordID("party"), "nothing moved")

        let (_, leaving) = try await database.modifyRecords(saving: [], deleting: [theShare.recordID])
        XCTAssertNil(code(of: leaving[theShare.recordID]), "a read-only participant may still leave")
        let zones = try await database.allRecordZones()
        XCTAssertTrue(zones.isEmpty)
    }

    // MARK: - Leaving, and the owner stopping

    func testLeavingOneOfTwoSharesOfAZoneKeepsTheZoneAndLeavingTheLastTakesItAway() async throws {
        try await seedParty()
        let picnic = CKRecord(recordType: "Party", recordID: recordID("picnic"))
        picnic["title"] = "Picnic"
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [picnic], deleting: [])
        let party = try await share(with: ["mary@example.com", "bob@example.com"])
        let outing = try await share("picnic", with: ["mary@example.com"])
        for url in [party.url, outing.url] { try await accept(url, as: mary) }
        try await accept(party.url, as: bob)
        let zone = try await sharedZoneID()
        let first = try await mary.sharedCloudDatabase.databaseChanges(since: nil)

        let (_, leftParty) = try await mary.sharedCloudDatabase.modifyRecords(saving: [], deleting: [try await sharedID(party.recordID.recordName)])
        XCTAssertNil(code(of: leftParty.values.first))

        let stillThere = try await mary.sharedCloudDatabase.allRecordZones()
        XCTAssertEqual(stillThere.map(\.zoneID), [zone], "the picnic still shows her the zone")
        await assertCKError(.unknownItem) { _ = try await self.mary.sharedCloudDatabase.record(for: try await self.sharedID("ann")) }
        _ = try await mary.sharedCloudDatabase.record(for: try await sharedID("picnic"))
        _ = try await bob.sharedCloudDatabase.record(for: try await sharedID("ann"))
        let middle = try await mary.sharedCloudDatabase.databaseChanges(since: first.changeToken)
        XCTAssertTrue(middle.deletions.isEmpty)

        let (_, leftOuting) = try await mary.sharedCloudDatabase.modifyRecords(saving: [], deleting: [try await sharedID(outing.recordID.recordName)])
        XCTAssertNil(code(of: leftOuting.values.first))

        let last = try await mary.sharedCloudDatabase.databaseChanges(since: first.changeToken)
        XCTAssertEqual(last.deletions.map(\.zoneID), [zone])
        let bobsZones = try await bob.sharedCloudDatabase.allRecordZones()
        XCTAssertEqual(bobsZones.map(\.zoneID), [zone], "bob's share is untouched")
        let johnsOuting = try await john.privateCloudDatabase.record(for: outing.recordID)
        XCTAssertEqual((johnsOuting as? CKShare)?.participants.map(\.role), [.owner], "the share stays, without her")
    }

    func testTheOwnerDeletingTheRootTakesTheZoneAwayThroughDatabaseChanges() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let zone = try await sharedZoneID()
        let first = try await mary.sharedCloudDatabase.databaseChanges(since: nil)
        let changes = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: nil)

        // A parent goes with its children: the attendees are deleted in the same request.
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [], deleting: [recordID("party"), recordID("ann"), recordID("ben")])

        let after = try await mary.sharedCloudDatabase.databaseChanges(since: first.changeToken)
        XCTAssertEqual(after.deletions.map(\.zoneID), [zone])
        await assertCKError(.zoneNotFound) { _ = try await self.mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: changes.changeToken) }
        await assertCKError(.zoneNotFound) { _ = try await self.mary.sharedCloudDatabase.record(for: try await self.sharedID("ann")) }
        await assertCKError(.unknownItem) { _ = try await self.mary.shareMetadata(for: try XCTUnwrap(share.url)) }
        await assertCKError(.unknownItem) { _ = try await self.john.privateCloudDatabase.record(for: share.recordID) }
    }

    // MARK: - Subscriptions on the shared database

    /// Saves `subscription` (a silent one) in `database`, throwing its item's error.
    private func subscribe(_ database: CKDatabase, _ subscription: CKSubscription) async throws {
        let info = CKSubscription.NotificationInfo()
        info.shouldSendContentAvailable = true
        subscription.notificationInfo = info
        let (saves, _) = try await database.modifySubscriptions(saving: [subscription], deleting: [])
        _ = try saves[subscription.subscriptionID]?.get()
    }

    /// The pushes the server sent so far for the subscription `subscriptionID` of `account`.
    private func pushes(_ account: String, _ subscriptionID: String) -> [PushRecord] {
        let user = server.userRecordName(account: account, containerIdentifier: identifier)
        return server.pushLog.filter { $0.userRecordName == user && $0.notification.subscriptionID == subscriptionID }
    }

    func testADatabaseSubscriptionOnTheSharedDatabaseFiresForSharedRecordsOnly() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        for container in [mary, bob] {
            let device = try XCTUnwrap(container)
            device.registerForPushNotifications { _ in }
            try await subscribe(device.sharedCloudDatabase, CKDatabaseSubscription(subscriptionID: "shared"))
        }
        let before = pushes("mary", "shared").count

        let diary = try await john.privateCloudDatabase.record(for: recordID("diary"))
        diary["text"] = "still secret"
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [diary], deleting: [])
        XCTAssertEqual(pushes("mary", "shared").count, before, "a write to a record she does not see tells her nothing")

        let party = try await john.privateCloudDatabase.record(for: recordID("party"))
        party["title"] = "Moved to Friday"
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [party], deleting: [])
        let fired = pushes("mary", "shared").dropFirst(before)
        XCTAssertEqual(fired.count, 1)
        XCTAssertEqual(fired.first?.notification.databaseScope, .shared)
        XCTAssertTrue(pushes("bob", "shared").isEmpty, "bob sees nothing of the zone")
    }

    func testTheOwnersDatabaseSubscriptionFiresForAParticipantsWrite() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"], permission: .readWrite)
        try await accept(share.url, as: mary)
        for device in [john, mary] { device?.registerForPushNotifications { _ in } }
        try await subscribe(john.privateCloudDatabase, CKDatabaseSubscription(subscriptionID: "johns-database"))
        try await subscribe(mary.sharedCloudDatabase, CKDatabaseSubscription(subscriptionID: "marys-shared"))
        let johnsBefore = pushes("john", "johns-database").count
        let marysBefore = pushes("mary", "marys-shared").count

        let cleo = CKRecord(recordType: "Attendee", recordID: try await sharedID("cleo"))
        cleo.parent = CKRecord.Reference(recordID: try await sharedID("party"), action: .none)
        _ = try await mary.sharedCloudDatabase.modifyRecords(saving: [cleo], deleting: [])

        let johns = pushes("john", "johns-database").dropFirst(johnsBefore)
        XCTAssertEqual(johns.count, 1, "the participant's write is a change of the owner's database")
        XCTAssertEqual(johns.first?.notification.databaseScope, .private)
        XCTAssertEqual(pushes("mary", "marys-shared").count, marysBefore, "her own device is not told of her own write")
    }

    func testQueryAndZoneSubscriptionsAndNewZonesInTheSharedDatabaseAreBadDatabase() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let query = CKQuerySubscription(recordType: "Party", predicate: NSPredicate(value: true), subscriptionID: "parties", options: [.firesOnRecordCreation])
        await assertCKError(.badDatabase) { try await self.subscribe(self.mary.sharedCloudDatabase, query) }
        let zoneSubscription = CKRecordZoneSubscription(zoneID: try await sharedZoneID(), subscriptionID: "party-zone")
        await assertCKError(.badDatabase) { try await self.subscribe(self.mary.sharedCloudDatabase, zoneSubscription) }
        let zone = CKRecordZone(zoneID: CKRecordZone.ID(zoneName: "Marys"))
        await assertCKError(.badDatabase) {
            let (saves, _) = try await self.mary.sharedCloudDatabase.modifyRecordZones(saving: [zone], deleting: [])
            _ = try saves[zone.zoneID]?.get()
        }
    }

    // MARK: - Changes travel both ways

    func testAParticipantsWritesAppearInTheOwnersZoneChangesAndTheOwnersInTheParticipants() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"], permission: .readWrite)
        try await accept(share.url, as: mary)
        let zone = try await sharedZoneID()
        let johns = try await john.privateCloudDatabase.recordZoneChanges(inZoneWith: zoneID, since: nil)
        let marys = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: nil)

        let cleo = CKRecord(recordType: "Attendee", recordID: try await sharedID("cleo"))
        cleo["name"] = "Cleo"
        cleo.parent = CKRecord.Reference(recordID: try await sharedID("party"), action: .none)
        _ = try await mary.sharedCloudDatabase.modifyRecords(saving: [cleo], deleting: [try await sharedID("ben")])
        let johnsLater = try await john.privateCloudDatabase.recordZoneChanges(inZoneWith: zoneID, since: johns.changeToken)
        XCTAssertTrue(names(in: johnsLater).contains("cleo"))
        XCTAssertEqual(johnsLater.deletions.map(\.recordID.recordName), ["ben"])
        XCTAssertEqual(try johnsLater.modificationResultsByID[recordID("cleo")]?.get().record.recordID.zoneID, zoneID, "in his own zone's names")

        let ann = try await john.privateCloudDatabase.record(for: recordID("ann"))
        ann["name"] = "Ann Marie"
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [ann], deleting: [])
        let marysLater = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: marys.changeToken)
        let annID = try await sharedID("ann")
        XCTAssertEqual(try marysLater.modificationResultsByID[annID]?.get().record["name"] as? String, "Ann Marie")
        XCTAssertEqual(marysLater.deletions.map(\.recordID.recordName), ["ben"], "her own deletion comes back too")
    }

    func testAParentDeletedWithItsChildAfterAGrandchildEachReachTheParticipantAsDeletions() async throws {
        try await seedParty()
        let cleo = CKRecord(recordType: "Attendee", recordID: recordID("cleo"))
        cleo.parent = CKRecord.Reference(recordID: recordID("ann"), action: .none)
        let plusOne = CKRecord(recordType: "Attendee", recordID: recordID("plus-one"))
        plusOne.parent = CKRecord.Reference(recordID: cleo.recordID, action: .none)
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [cleo, plusOne], deleting: [])
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let zone = try await sharedZoneID()
        let first = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: nil)
        XCTAssertTrue(names(in: first).isSuperset(of: ["cleo", "plus-one"]))

        // The plus-one goes, then ann with cleo (ann alone would leave cleo under a parent
        // that is gone): the plus-one's and cleo's ways up to the party now run through the
        // tombstones of those deleted.
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [], deleting: [recordID("plus-one")])
        await assertCKError(.partialFailure) { _ = try await self.john.privateCloudDatabase.modifyRecords(saving: [], deleting: [self.recordID("ann")]) }
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [], deleting: [recordID("ann"), recordID("cleo")])

        let later = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: first.changeToken)
        XCTAssertEqual(Set(later.deletions.map(\.recordID.recordName)), ["plus-one", "ann", "cleo"])
    }

    // MARK: - Public participants

    func testAnyoneWithTheLinkOfAPublicShareJoinsAndWritesAsItsPublicPermissionSays() async throws {
        try await seedParty()
        let share = try await share(with: [], publicPermission: .readWrite)
        let metadata = try await bob.shareMetadata(for: try XCTUnwrap(share.url))
        XCTAssertEqual(metadata.participantRole, .publicUser)
        XCTAssertEqual(metadata.participantPermission, .readWrite)
        let joined = try await bob.accept(metadata)
        XCTAssertEqual(joined.currentUserParticipant?.role, .publicUser)

        let dan = CKRecord(recordType: "Attendee", recordID: try await sharedID("dan"))
        dan.parent = CKRecord.Reference(recordID: try await sharedID("party"), action: .none)
        let (saves, _) = try await bob.sharedCloudDatabase.modifyRecords(saving: [dan], deleting: [])
        XCTAssertNil(code(of: saves[dan.recordID]))
        await assertCKError(.unknownItem) { _ = try await self.bob.sharedCloudDatabase.record(for: try await self.sharedID("diary")) }
    }

    func testAReadOnlyPublicParticipantIsRefusedWritesAndClosingTheShareRemovesThem() async throws {
        try await seedParty()
        let share = try await share(with: [], publicPermission: .readOnly)
        try await accept(share.url, as: bob)
        let zone = try await sharedZoneID()
        let first = try await bob.sharedCloudDatabase.databaseChanges(since: nil)
        let dan = CKRecord(recordType: "Attendee", recordID: try await sharedID("dan"))
        dan.parent = CKRecord.Reference(recordID: try await sharedID("party"), action: .none)
        let (saves, _) = try await bob.sharedCloudDatabase.modifyRecords(saving: [dan], deleting: [], atomically: false)
        XCTAssertEqual(code(of: saves[dan.recordID]), .permissionFailure)

        // Setting the public permission back to none removes every participant but the owner.
        let fetched = try await john.privateCloudDatabase.record(for: share.recordID)
        let current = try XCTUnwrap(fetched as? CKShare)
        current.publicPermission = .none
        _ = try await john.privateCloudDatabase.modifyRecords(saving: [current], deleting: [])

        let after = try await bob.sharedCloudDatabase.databaseChanges(since: first.changeToken)
        XCTAssertEqual(after.deletions.map(\.zoneID), [zone])
        await assertCKError(.zoneNotFound) { _ = try await self.bob.sharedCloudDatabase.record(for: try await self.sharedID("party")) }
        await assertCKError(.participantMayNeedVerification) { _ = try await self.bob.shareMetadata(for: try XCTUnwrap(share.url)) }
    }

    func testLoweringThePublicPermissionStopsAPublicUserWhoJoinedWithReadWrite() async throws {
        try await seedParty()
        let share = try await share(with: [], publicPermission: .readWrite)
        try await accept(share.url, as: bob)

        let fetched = try await john.privateCloudDatabase.record(for: share.recordID)
        let current = try XCTUnwrap(fetched as? CKShare)
        current.publicPermission = .readOnly
        let (saves, _) = try await john.privateCloudDatabase.modifyRecords(saving: [current], deleting: [])
        let lowered = try XCTUnwrap(try saves[share.recordID]?.get() as? CKShare)
        XCTAssertEqual(lowered.participants.first { $0.role == .publicUser }?.permission, .readOnly)

        let dan = CKRecord(recordType: "Attendee", recordID: try await sharedID("dan"))
        dan.parent = CKRecord.Reference(recordID: try await sharedID("party"), action: .none)
        let ann = try await bob.sharedCloudDatabase.record(for: try await sharedID("ann"))
        ann["name"] = "Annie"
        let ben = try await sharedID("ben")
        let (written, deleted) = try await bob.sharedCloudDatabase.modifyRecords(saving: [dan, ann], deleting: [ben], atomically: false)
        XCTAssertEqual(failure(of: written[dan.recordID])?.code, .permissionFailure)
        XCTAssertEqual(failure(of: written[ann.recordID])?.code, .permissionFailure)
        XCTAssertEqual(failure(of: deleted[ben])?.code, .permissionFailure)
        let joined = try await bob.sharedCloudDatabase.record(for: try await sharedID(share.recordID.recordName))
        XCTAssertEqual((joined as? CKShare)?.currentUserParticipant?.permission, .readOnly)
    }

    // MARK: - Privacy

    func testAnAccountThatIsNotAParticipantLearnsNothingByGuessing() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"])
        try await accept(share.url, as: mary)
        let zone = try await sharedZoneID()
        let nowhere = CKRecordZone.ID(zoneName: "Nowhere", ownerName: zone.ownerName)
        let database = bob.sharedCloudDatabase

        // Each question about john's real zone gets the answer a zone that does not exist gets,
        // message included.
        func compare(_ what: String, _ ask: @escaping (CKRecordZone.ID) async throws -> Void) async {
            let real = await error { try await ask(zone) }
            let made = await error { try await ask(nowhere) }
            XCTAssertEqual(real?.code, .zoneNotFound, what)
            XCTAssertEqual(real?.code, made?.code, what)
            XCTAssertEqual(real?.localizedDescription.replacingOccurrences(of: zone.zoneName, with: "Z"), made?.localizedDescription.replacingOccurrences(of: nowhere.zoneName, with: "Z"), what)
        }
        await compare("fetch by ID") { zoneID in _ = try await database.record(for: CKRecord.ID(recordName: "party", zoneID: zoneID)) }
        await compare("zone lookup") { zoneID in _ = try await database.recordZone(for: zoneID) }
        await compare("zone changes") { zoneID in _ = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil) }
        await compare("query") { zoneID in
            _ = try await database.records(matching: CKQuery(recordType: "Party", predicate: NSPredicate(value: true)), inZoneWith: zoneID, desiredKeys: nil)
        }
        await compare("save") { zoneID in
            let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party", zoneID: zoneID))
            let (saves, _) = try await database.modifyRecords(saving: [record], deleting: [], savePolicy: .changedKeys, atomically: false)
            _ = try saves[record.recordID]?.get()
        }
        await compare("delete") { zoneID in
            let recordID = CKRecord.ID(recordName: "party", zoneID: zoneID)
            let (_, deletes) = try await database.modifyRecords(saving: [], deleting: [recordID], atomically: false)
            try deletes[recordID]?.get()
        }
        let zones = try await database.allRecordZones()
        XCTAssertTrue(zones.isEmpty)
        let databaseChanges = try await database.databaseChanges(since: nil)
        XCTAssertTrue(databaseChanges.modifications.isEmpty && databaseChanges.deletions.isEmpty)

        // Mary's token and cursor are hers.
        let marysChanges = try await mary.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone, since: nil)
        await assertCKError(.invalidArguments) { _ = try await database.recordZoneChanges(inZoneWith: zone, since: marysChanges.changeToken) }
        let page = try await mary.sharedCloudDatabase.records(matching: CKQuery(recordType: "Attendee", predicate: NSPredicate(value: true)), inZoneWith: zone, desiredKeys: nil, resultsLimit: 1)
        let cursor = try XCTUnwrap(page.queryCursor, "two attendees make two pages")
        let stolen = await error { _ = try await database.records(continuingMatchFrom: cursor) }
        XCTAssertTrue([.invalidArguments, .zoneNotFound].contains(stolen?.code), "\(String(describing: stolen))")
        // A token of john's own zone is his, too.
        let johns = try await john.privateCloudDatabase.recordZoneChanges(inZoneWith: zoneID, since: nil)
        await assertCKError(.invalidArguments) { _ = try await database.recordZoneChanges(inZoneWith: zone, since: johns.changeToken) }
    }

    func testAParticipantLearnsNothingOfTheRecordsTheShareDoesNotCover() async throws {
        try await seedParty()
        let share = try await share(with: ["mary@example.com"], permission: .readWrite)
        try await accept(share.url, as: mary)
        let database = mary.sharedCloudDatabase

        // The diary exists and "nobody" does not: every question gets the same answer.
        func compare(_ what: String, _ ask: @escaping (String) async throws -> Void) async {
            let real = await error { try await ask("diary") }
            let made = await error { try await ask("nobody") }
            XCTAssertNotNil(real, what)
            XCTAssertEqual(real?.code, made?.code, what)
            XCTAssertEqual(real?.localizedDescription.replacingOccurrences(of: "diary", with: "X"), made?.localizedDescription.replacingOccurrences(of: "nobody", with: "X"), what)
        }
        await compare("fetch by ID") { name in _ = try await database.record(for: try await self.sharedID(name)) }
        await compare("delete") { name in
            let recordID = try await self.sharedID(name)
            let (_, deletes) = try await database.modifyRecords(saving: [], deleting: [recordID], atomically: false)
            try deletes[recordID]?.get()
        }
        await compare("save") { name in
            let record = CKRecord(recordType: "Diary", recordID: try await self.sharedID(name))
            record["text"] = "guess"
            let (saves, _) = try await database.modifyRecords(saving: [record], deleting: [], savePolicy: .changedKeys, atomically: false)
            _ = try saves[record.recordID]?.get()
        }
        await compare("save under it") { name in
            let record = CKRecord(recordType: "Note", recordID: try await self.sharedID("note-under-\(name)"))
            record.parent = CKRecord.Reference(recordID: try await self.sharedID(name), action: .none)
            let (saves, _) = try await database.modifyRecords(saving: [record], deleting: [], atomically: false)
            _ = try saves[record.recordID]?.get()
        }
        await compare("a deleteSelf reference to it") { name in
            let record = CKRecord(recordType: "Note", recordID: try await self.sharedID("note-tied-to-\(name)"))
            record.parent = CKRecord.Reference(recordID: try await self.sharedID("party"), action: .none)
            record["tie"] = CKRecord.Reference(recordID: try await self.sharedID(name), action: .deleteSelf)
            let (saves, _) = try await database.modifyRecords(saving: [record], deleting: [], atomically: false)
            _ = try saves[record.recordID]?.get()
        }
        let johnsDiary = try await john.privateCloudDatabase.record(for: recordID("diary"))
        XCTAssertEqual(johnsDiary["text"] as? String, "not for anyone else")
        let zone = try await sharedZoneID()
        let diaries = try await database.records(matching: CKQuery(recordType: "Diary", predicate: NSPredicate(value: true)), inZoneWith: zone, desiredKeys: nil)
        XCTAssertTrue(diaries.matchResults.isEmpty)
        let changes = try await database.recordZoneChanges(inZoneWith: zone, since: nil)
        XCTAssertFalse(names(in: changes).contains("diary"))
    }
}
