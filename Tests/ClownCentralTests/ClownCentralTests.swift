import ClownCentral
import Stratus
import XCTest

/// The demo's story, checked step by step.
final class ClownCentralTests: XCTestCase {
    func testTheStoryUnfoldsAsTheTalkTellsIt() async throws {
        let server = CloudServer(clock: ManualClock())
        var narration: [String] = []
        let report = try await ClownCentral.run(on: server) { narration.append($0) }

        XCTAssertNotNil(report.fetchedTag)
        XCTAssertNotEqual(report.tagAfterJohn, report.fetchedTag, "John's save gives the party a new tag")
        XCTAssertEqual(report.aliceConflict, .serverRecordChanged, "Alice's stale save conflicts")
        XCTAssertEqual(report.serverAttendeesInConflict, ["John"], "the error carries the server's record")
        XCTAssertEqual(report.ancestorAttendees, [], "and the version Alice edited")
        XCTAssertNotEqual(report.tagAfterAlice, report.tagAfterJohn)
        XCTAssertEqual(report.attendees, ["John", "Alice"], "Alice's merge keeps John's change")
        XCTAssertEqual(report.photos, ["photo-1", "photo-2"])
        XCTAssertEqual(report.tagAfterPhotos, report.tagAfterAlice, "referencing the party does not change its tag")
        XCTAssertEqual(report.requestCount, server.requestCount)
        XCTAssertEqual(report.requestCount, 9)
        XCTAssertEqual(narration.count, 8)
    }
}

/// The demo's photos step, checked.
final class PhotoUploadTests: XCTestCase {
    func testOneHundredSinglesAreOneHundredRequestsAndOneBatchIsOne() async throws {
        let server = CloudServer(clock: ManualClock())
        var narration: [String] = []
        let report = try await PhotoUpload.run(on: server) { narration.append($0) }
        XCTAssertEqual(report.singleSaveRequests, 100)
        XCTAssertEqual(report.batchRequests, 1)
        XCTAssertEqual(report.chainedFetches, ["batch-0", "batch-1"])
        XCTAssertEqual(narration.count, 3)
    }
}

/// The demo's photo browsing, checked.
final class PhotoBrowsingTests: XCTestCase {
    func testTwentyNewestThumbnailsThenTheNextPage() async throws {
        let report = try await PhotoBrowsing.run(on: CloudServer(clock: ManualClock()))
        XCTAssertEqual(report.firstPage, (25..<45).reversed().map { String(format: "bash-photo-%02d", $0) })
        XCTAssertEqual(report.fetchedKeys, ["thumbnail"])
        XCTAssertEqual(report.secondPage, (5..<25).reversed().map { String(format: "bash-photo-%02d", $0) })
        XCTAssertTrue(report.moreAfterSecondPage)
    }
}

/// The demo's notes story, checked.
final class NotesSyncTests: XCTestCase {
    func testTheLaptopCachesEditsFromSystemFieldsAndCatchesUp() async throws {
        let server = CloudServer(clock: ManualClock())
        let report = try await NotesSync.run(on: server)
        XCTAssertEqual(report.firstFetch, ["props": "red noses, big shoes", "acts": "juggling, then the tiny car"])
        XCTAssertEqual(report.editedKeys, ["text"], "a record decoded from system fields sends only the key set")
        XCTAssertEqual(report.afterEdit, ["text": "red noses, big shoes, a seltzer bottle", "author": "John"])
        XCTAssertEqual(report.cacheAfterCatchUp, ["props": "red noses, big shoes, a seltzer bottle"])
        XCTAssertEqual(report.catchUpRequests, 1)
    }
}

/// The demo's dropped-push story, checked.
final class DroppedPushesTests: XCTestCase {
    func testTheLaptopGetsOnePushButRecoversEveryChange() async throws {
        var narration: [String] = []
        let report = try await DroppedPushes.run(on: CloudServer(clock: ManualClock())) { narration.append($0) }
        XCTAssertEqual(report.notesSaved, 10)
        XCTAssertEqual(report.pushesReceived, 1, "offline, APNs keeps only the last push")
        XCTAssertEqual(report.notificationsInCollection, 10, "the collection kept every notification")
        XCTAssertEqual(report.notificationsMarkedRead, 10)
        XCTAssertEqual(report.notesAfterCatchUp, (1...10).map { "sketch-\($0)" })
        XCTAssertEqual(report.catchUpRequests, 1)
        XCTAssertEqual(narration.count, 5)
    }
}

/// The demo's app start-up graph and recipes, checked.
final class AppStartupTests: XCTestCase {
    func testTheStartupGraphRunsInOrderAndTheRecipesRecover() async throws {
        let server = CloudServer(clock: ManualClock())
        var narration: [String] = []
        let report = try await AppStartup.run(on: server) { narration.append($0) }
        let order = report.finished
        XCTAssertEqual(Set(order), ["settings", "version check", "news", "schedule", "favourites", "feedback", "videos", "save"])
        let position = { (step: String) in order.firstIndex(of: step) ?? -1 }
        XCTAssertLessThan(position("settings"), position("version check"))
        for step in ["news", "schedule"] { XCTAssertLessThan(position("version check"), position(step)) }
        for step in ["favourites", "feedback", "videos"] {
            XCTAssertLessThan(max(position("news"), position("schedule")), position(step))
            XCTAssertLessThan(position(step), position("save"))
        }
        XCTAssertEqual(report.news, 5)
        XCTAssertEqual(report.sessions, 12)
        XCTAssertEqual(report.favouritesSaved, 3)
        XCTAssertEqual(report.favouriteRetries, 2, "zoneBusy twice, then saved")
        XCTAssertEqual(report.photosSaved, 1_000)
        XCTAssertEqual(report.photoRequests, 3, "1,000 photos of 4 KB: 400, 400 and 200")
        XCTAssertEqual(narration.count, 5)
    }
}

/// The demo's contacts story on CKSyncEngine, checked.
final class ContactsSyncTests: XCTestCase {
    func testTwoDevicesSyncContactsAndResolveAConflictInTheDelegate() async throws {
        let server = CloudServer(clock: ManualClock())
        var narration: [String] = []
        let report = try await ContactsSync.run(on: server) { narration.append($0) }

        XCTAssertEqual(report.firstSendBatches, [400, 44], "the batch initialiser fills a request with 400 records")
        XCTAssertEqual(report.firstSendEvents, [
            "accountChange(signIn)", "willSendChanges", "sentDatabaseChanges(1 zone saved)",
            "sentRecordZoneChanges(400 saved, 0 failed)", "sentRecordZoneChanges(44 saved, 0 failed)", "didSendChanges",
        ], "a fresh engine signs in first; its delegate adds the zone, which is sent before the records")
        XCTAssertEqual(report.laptopContactsAfterFetch, 444)
        XCTAssertEqual(report.laptopFetchEvents.first, "accountChange(signIn)")
        XCTAssertEqual(Array(report.laptopFetchEvents.dropFirst().prefix(3)), ["willFetchChanges", "fetchedDatabaseChanges", "willFetchRecordZoneChanges"])
        XCTAssertEqual(Array(report.laptopFetchEvents.suffix(2)), ["didFetchRecordZoneChanges", "didFetchChanges"])
        XCTAssertEqual(report.conflictingSendEvents, ["willSendChanges", "sentRecordZoneChanges(0 saved, 1 failed)", "didSendChanges"])
        XCTAssertEqual(report.resendEvents, ["willSendChanges", "sentRecordZoneChanges(1 saved, 0 failed)", "didSendChanges"], "the save the delegate added again goes out on top of the server's record")
        XCTAssertEqual(report.conflictingSendError, .partialFailure, "a send with a failed save throws after didSendChanges")
        XCTAssertEqual(report.conflictItemError, .serverRecordChanged)
        XCTAssertEqual(report.serverNameInConflict, "Coco the Clown", "the error carries the phone's save")
        XCTAssertEqual(report.conflictsResolved.phone, 0)
        XCTAssertEqual(report.conflictsResolved.laptop, 1, "one conflict, resolved by the laptop's delegate")
        XCTAssertEqual(report.finalNames.phone, "Coco the Great", "the later edit wins on both devices")
        XCTAssertEqual(report.finalNames.laptop, "Coco the Great")
        XCTAssertEqual(report.contactCounts.phone, 444)
        XCTAssertEqual(report.contactCounts.laptop, 444)
        XCTAssertTrue(report.storesEqual, "same names and same change tags on both devices")
        XCTAssertEqual(narration.count, 6)

        let renamed = try await server.container(identifier: ClownCentral.containerIdentifier, account: "alice").privateCloudDatabase
            .record(for: CKRecord.ID(recordName: ContactsSync.renamedContact, zoneID: CKRecordZone.ID(zoneName: "Contacts")))
        let serverName: String? = renamed.encryptedValues["name"]
        XCTAssertEqual(serverName, "Coco the Great", "the server holds the merged save")
    }
}

final class PartyPlanningTests: XCTestCase {
    func testTheFriendsSeeThePartyCocoWritesPippoMayNotAndUnsharingEndsIt() async throws {
        let report = try await PartyPlanning.run(on: CloudServer(clock: ManualClock()))

        XCTAssertNotNil(report.shareURL)
        XCTAssertEqual(report.acceptedParticipants, 2)
        XCTAssertEqual(report.attendeesSeen.coco, ["Bozo", "Krusty"])
        XCTAssertEqual(report.attendeesSeen.pippo, ["Bozo", "Krusty"])
        XCTAssertEqual(report.organizerAttendees, ["Bozo", "Coco", "Krusty"], "Coco's write reached the organizer's zone")
        XCTAssertEqual(report.pippoWriteError, .permissionFailure)
        XCTAssertEqual(report.zonesAfterUnsharing.coco, 0)
        XCTAssertEqual(report.zonesAfterUnsharing.pippo, 0)
    }
}

/// The demo's parties near the park, checked.
final class NearbyPartiesTests: XCTestCase {
    func testPartiesWithinTheRadiusComeNearestFirstAndTheSubscriptionHearsOfThem() async throws {
        var narration: [String] = []
        let report = try await NearbyParties.run(on: CloudServer(clock: ManualClock())) { narration.append($0) }
        XCTAssertEqual(report.nearby, ["golden-gate-park", "mission-dolores", "berkeley-marina"])
        XCTAssertEqual(report.kilometres.first, 0)
        XCTAssertEqual(report.kilometres, report.kilometres.sorted())
        XCTAssertEqual(report.notified, ["berkeley-marina", "golden-gate-park", "mission-dolores"])
        XCTAssertEqual(narration.count, 3)
    }
}
