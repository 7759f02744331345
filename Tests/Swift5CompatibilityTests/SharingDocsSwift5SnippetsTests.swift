import Stratus
import XCTest

// Sharing in the Swift 5 language mode with the completion-handler calls of iOS 15 and the
// operation blocks apps wrote before `async`: completion handlers and blocks that change local
// state, and `switch`es over CloudKit's enums with `@unknown default`, build without warnings.
// As the documentation advises, the participant keeps up with the shared database through a
// database subscription and `CKFetchDatabaseChangesOperation`, and learns there that the owner
// stopped sharing.

final class SharingDocsSwift5SnippetsTests: XCTestCase {
    private let containerIdentifier = "iCloud.com.example.albums"

    func testSharingWithCompletionHandlersAndASharedDatabaseSubscription() async throws {
        let server = CloudServer(clock: ManualClock())
        server.setEmailAddress("ann@example.com", forAccount: "ann")
        let olga = server.container(identifier: containerIdentifier, account: "olga")
        let ann = server.container(identifier: containerIdentifier, account: "ann")
        let database = olga.privateCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Albums", ownerName: CKCurrentUserDefaultName)

        // The zone, then Ann as a participant found by her address.
        var participant: CKShare.Participant?
        let prepared = expectation(description: "zone and participant")
        database.save(CKRecordZone(zoneID: zoneID)) { _, error in
            XCTAssertNil(error)
            olga.fetchShareParticipants(forEmailAddresses: ["ann@example.com"]) { result in
                switch result {
                case .success(let participantsByEmail):
                    participant = try? participantsByEmail["ann@example.com"]?.get()
                case .failure(let error):
                    XCTFail("Could not look Ann up: \(error)")
                }
                prepared.fulfill()
            }
        }
        await fulfillment(of: [prepared], timeout: 10)

        // The album and its share, saved together.
        let album = CKRecord(recordType: "Album", recordID: CKRecord.ID(recordName: "madeira", zoneID: zoneID))
        album["name"] = "Madeira"
        let share = CKShare(rootRecord: album)
        share[CKShare.SystemFieldKey.title] = "Madeira" as CKRecordValue
        if let participant = participant {
            participant.permission = .readWrite
            share.addParticipant(participant)
        }
        var shareURL: URL?
        let shared = expectation(description: "shared")
        database.modifyRecords(saving: [album, share], deleting: []) { result in
            switch result {
            case .success(let (saveResults, _)):
                let savedShare = (try? saveResults[share.recordID]?.get()) as? CKShare
                shareURL = savedShare?.url
            case .failure(let error):
                XCTFail("Could not share the album: \(error)")
            }
            shared.fulfill()
        }
        await fulfillment(of: [shared], timeout: 10)
        let url = try XCTUnwrap(shareURL)

        // Ann fetches the metadata behind the link and accepts, both in their batch forms.
        var acceptedShare: CKShare?
        let accepted = expectation(description: "accepted")
        ann.fetchShareMetadatas(for: [url]) { result in
            guard case .success(let metadataByURL) = result, let metadata = try? metadataByURL[url]?.get() else {
                XCTFail("No metadata for \(url)")
                return accepted.fulfill()
            }
            switch metadata.participantPermission {
            case .readWrite: break
            case .readOnly, .none, .unknown: XCTFail("Ann was invited to edit")
            @unknown default: break
            }
            ann.accept([metadata]) { result in
                if case .success(let sharesByMetadata) = result {
                    acceptedShare = try? sharesByMetadata[metadata]?.get()
                }
                accepted.fulfill()
            }
        }
        await fulfillment(of: [accepted], timeout: 10)
        XCTAssertEqual(acceptedShare?.currentUserParticipant?.acceptanceStatus, .accepted)

        // Ann subscribes to her shared database and listens for its pushes.
        let subscription = CKDatabaseSubscription(subscriptionID: "shared-changes")
        let notificationInfo = CKSubscription.NotificationInfo()
        notificationInfo.shouldSendContentAvailable = true
        subscription.notificationInfo = notificationInfo
        let subscribed = expectation(description: "subscribed")
        ann.sharedCloudDatabase.save(subscription) { _, error in
            XCTAssertNil(error)
            subscribed.fulfill()
        }
        await fulfillment(of: [subscribed], timeout: 10)
        let pushed = expectation(description: "a push for the shared database")
        pushed.assertForOverFulfill = false
        ann.registerForPushNotifications { notification in
            guard let notification = notification as? CKDatabaseNotification else { return }
            switch notification.databaseScope {
            case .shared: pushed.fulfill()
            case .private, .public: break
            @unknown default: break
            }
        }

        // The database changes Ann fetches after a push: which zones changed or went away.
        var databaseToken: CKServerChangeToken?
        var changedZoneIDs: [CKRecordZone.ID] = []
        var deletedZoneIDs: [CKRecordZone.ID] = []
        func fetchSharedDatabaseChanges() async {
            changedZoneIDs = []
            deletedZoneIDs = []
            let fetched = expectation(description: "database changes")
            let operation = CKFetchDatabaseChangesOperation(previousServerChangeToken: databaseToken)
            operation.recordZoneWithIDChangedBlock = { zoneID in changedZoneIDs.append(zoneID) }
            operation.recordZoneWithIDWasDeletedBlock = { zoneID in deletedZoneIDs.append(zoneID) }
            operation.changeTokenUpdatedBlock = { token in databaseToken = token }
            operation.fetchDatabaseChangesResultBlock = { result in
                switch result {
                case .success(let (token, _)): databaseToken = token
                case .failure(let error): XCTFail("Could not fetch database changes: \(error)")
                }
                fetched.fulfill()
            }
            ann.sharedCloudDatabase.add(operation)
            await fulfillment(of: [fetched], timeout: 10)
        }
        await fetchSharedDatabaseChanges()
        let sharedZoneID = try XCTUnwrap(changedZoneIDs.first)
        XCTAssertEqual(sharedZoneID.zoneName, "Albums")
        XCTAssertEqual(sharedZoneID.ownerName, server.userRecordName(account: "olga", containerIdentifier: containerIdentifier))

        // Olga adds a photo to the album: Ann's device gets a push and fetches the zone.
        let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "levada", zoneID: zoneID))
        photo["caption"] = "Levada walk"
        photo.setParent(album)
        let added = expectation(description: "photo added")
        database.save(photo) { _, error in
            XCTAssertNil(error)
            added.fulfill()
        }
        await fulfillment(of: [added], timeout: 10)
        await server.deliverPendingPushes()
        await fulfillment(of: [pushed], timeout: 10)

        await fetchSharedDatabaseChanges()
        XCTAssertEqual(changedZoneIDs, [sharedZoneID])
        var captions: [String] = []
        let zoneFetched = expectation(description: "zone fetched")
        ann.sharedCloudDatabase.fetchRecordZoneChanges(inZoneWith: sharedZoneID, since: nil) { result in
            switch result {
            case .success(let changes):
                for case .success(let modification) in changes.modificationResultsByID.values {
                    if let caption = modification.record["caption"] as? String { captions.append(caption) }
                }
            case .failure(let error):
                XCTFail("Could not fetch the zone: \(error)")
            }
            zoneFetched.fulfill()
        }
        await fulfillment(of: [zoneFetched], timeout: 10)
        XCTAssertEqual(captions, ["Levada walk"])

        // Olga stops sharing: she deletes the share. Ann's next fetch reports the zone gone.
        let stopped = expectation(description: "sharing stopped")
        database.delete(withRecordID: share.recordID) { _, error in
            XCTAssertNil(error)
            stopped.fulfill()
        }
        await fulfillment(of: [stopped], timeout: 10)
        await fetchSharedDatabaseChanges()
        XCTAssertEqual(deletedZoneIDs, [sharedZoneID])

        var remainingZones: [CKRecordZone]?
        let zonesFetched = expectation(description: "zones fetched")
        ann.sharedCloudDatabase.fetchAllRecordZones { zones, error in
            XCTAssertNil(error)
            remainingZones = zones
            zonesFetched.fulfill()
        }
        await fulfillment(of: [zonesFetched], timeout: 10)
        XCTAssertEqual(remainingZones?.count, 0)

        // A device that starts from scratch learns of no shared zone at all.
        var zonesFromScratch: [CKRecordZone.ID]?
        let fetchedFromScratch = expectation(description: "database changes from scratch")
        ann.sharedCloudDatabase.fetchDatabaseChanges(since: nil) { result in
            switch result {
            case .success(let changes): zonesFromScratch = changes.modifications.map(\.zoneID)
            case .failure(let error): XCTFail("Could not fetch database changes: \(error)")
            }
            fetchedFromScratch.fulfill()
        }
        await fulfillment(of: [fetchedFromScratch], timeout: 10)
        XCTAssertEqual(zonesFromScratch, [])
    }
}
