import Foundation
import Stratus
import XCTest

// Sharing as Apple's documentation and its sharing samples write it, with `import Stratus` in
// place of `import CloudKit`, run end to end: an owner and the people they share with are
// accounts of one server, each with a device (a container) of their own. Owner: Olga, who
// keeps photo albums in a custom zone. Ann and Ben are invited by email address; Cleo is a
// stranger who only has a link.

private let containerIdentifier = "iCloud.com.example.albums"

/// The app's own error, as the sample throws when a fetched share is not a `CKShare`.
private enum AlbumSharingError: Error {
    case notAShare
    case shareNotSaved
}

/// Fetches the share of an album, or creates one, the way Apple's sharing sample does: a
/// record that is already shared carries a reference to its share, and the share is fetched
/// with it; otherwise a new share is saved together with its root in one modify call.
private func fetchOrCreateShare(for album: CKRecord, in database: CKDatabase) async throws -> CKShare {
    guard let existing = album.share else {
        let share = CKShare(rootRecord: album)
        share[CKShare.SystemFieldKey.title] = "Album: \(album["name"] as? String ?? "untitled")"
        share[CKShare.SystemFieldKey.shareType] = "com.example.albums.album"
        let (saveResults, _) = try await database.modifyRecords(saving: [album, share], deleting: [])
        guard let saved = try saveResults[share.recordID]?.get() as? CKShare else {
            throw AlbumSharingError.shareNotSaved
        }
        return saved
    }
    guard let share = try await database.record(for: existing.recordID) as? CKShare else {
        throw AlbumSharingError.notAShare
    }
    return share
}

/// Every record of the shared zones, as the sample's view model reads them: the zones of the
/// shared database, then each zone's changes from the start, batch after batch.
private func recordsInSharedZones(of container: CKContainer) async throws -> [String: CKRecord] {
    var records: [String: CKRecord] = [:]
    let sharedZones = try await container.sharedCloudDatabase.allRecordZones()
    for zone in sharedZones {
        var token: CKServerChangeToken?
        var moreComing = true
        while moreComing {
            let changes = try await container.sharedCloudDatabase.recordZoneChanges(inZoneWith: zone.zoneID, since: token)
            for record in changes.modificationResultsByID.values.compactMap({ try? $0.get().record }) {
                records[record.recordID.recordName] = record
            }
            moreComing = changes.moreComing
            token = changes.changeToken
        }
    }
    return records
}

final class SharingDocsSnippetsTests: XCTestCase {
    private var server: CloudServer!
    private var olga: CKContainer!
    private var ann: CKContainer!
    private var ben: CKContainer!
    private var cleo: CKContainer!
    private let zoneID = CKRecordZone.ID(zoneName: "Albums", ownerName: CKCurrentUserDefaultName)

    override func setUp() {
        super.setUp()
        server = CloudServer(clock: ManualClock())
        server.setEmailAddress("ann@example.com", forAccount: "ann")
        server.setEmailAddress("ben@example.com", forAccount: "ben")
        olga = server.container(identifier: containerIdentifier, account: "olga")
        ann = server.container(identifier: containerIdentifier, account: "ann")
        ben = server.container(identifier: containerIdentifier, account: "ben")
        cleo = server.container(identifier: containerIdentifier, account: "cleo")
    }

    override func tearDown() {
        olga = nil
        ann = nil
        ben = nil
        cleo = nil
        server = nil
        super.tearDown()
    }

    /// Olga's zone as the people she shares with see it: owned by her user record.
    private var olgasZoneAsOthersSeeIt: CKRecordZone.ID {
        CKRecordZone.ID(zoneName: zoneID.zoneName, ownerName: server.userRecordName(account: "olga", containerIdentifier: containerIdentifier))
    }

    private func album(_ name: String, title: String) -> CKRecord {
        let album = CKRecord(recordType: "Album", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        album["name"] = title
        return album
    }

    private func photo(_ name: String, caption: String, in album: CKRecord) -> CKRecord {
        let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: name, zoneID: album.recordID.zoneID))
        photo["caption"] = caption
        photo.setParent(album)                               // the parent puts the photo in the album's share
        return photo
    }

    // MARK: - Operations and their blocks

    /// The whole story with operations: the zone, participants looked up by email, the share
    /// saved with its root in one `CKModifyRecordsOperation`, the link opened with
    /// `CKFetchShareMetadataOperation`, the invitation accepted with `CKAcceptSharesOperation`
    /// as a scene delegate does, and the shared database read with zone and change operations.
    func testShareAnAlbumWithOperationsAndJoinItFromTheLink() throws {
        let database = olga.privateCloudDatabase

        // Shared records live in a custom zone.
        let zoneCreated = expectation(description: "zone created")
        let createZone = CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneID: zoneID)], recordZoneIDsToDelete: nil)
        createZone.modifyRecordZonesResultBlock = { result in
            if case .failure(let error) = result { XCTFail("Could not create the zone: \(error)") }
            zoneCreated.fulfill()
        }
        database.add(createZone)
        wait(for: [zoneCreated], timeout: 10)

        // Ann, by her email address, may edit.
        var invitees: [CKShare.Participant] = []
        let lookedUp = expectation(description: "participants looked up")
        let lookup = CKFetchShareParticipantsOperation(userIdentityLookupInfos: [CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")])
        lookup.perShareParticipantResultBlock = { lookupInfo, result in
            switch result {
            case .success(let participant):
                participant.permission = .readWrite
                invitees.append(participant)
            case .failure(let error):
                XCTFail("No participant for \(lookupInfo): \(error)")
            }
        }
        lookup.fetchShareParticipantsResultBlock = { _ in lookedUp.fulfill() }
        olga.add(lookup)
        wait(for: [lookedUp], timeout: 10)

        // The album, a photo in it, and the album's share: one modify operation, on a queue of the app's own.
        let lisbon = album("lisbon", title: "Lisbon")
        let tram = photo("tram", caption: "Tram 28", in: lisbon)
        let share = CKShare(rootRecord: lisbon)
        share[CKShare.SystemFieldKey.title] = "Lisbon" as CKRecordValue
        share.publicPermission = .none
        for participant in invitees { share.addParticipant(participant) }

        var savedShare: CKShare?
        var savedNames: [String] = []
        let saved = expectation(description: "album shared")
        let save = CKModifyRecordsOperation(recordsToSave: [lisbon, tram, share], recordIDsToDelete: nil)
        save.perRecordSaveBlock = { recordID, result in
            switch result {
            case .success(let record):
                savedNames.append(record.recordID.recordName)
                if let share = record as? CKShare { savedShare = share }
            case .failure(let error):
                XCTFail("Could not save \(recordID.recordName): \(error)")
            }
        }
        save.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { XCTFail("Could not share the album: \(error)") }
            saved.fulfill()
        }
        save.database = database
        save.qualityOfService = .userInitiated
        let queue = OperationQueue()
        queue.addOperation(save)
        wait(for: [saved], timeout: 10)

        XCTAssertEqual(Set(savedNames), ["lisbon", "tram", share.recordID.recordName])
        let url = try XCTUnwrap(savedShare?.url, "a saved share has its URL")
        XCTAssertEqual(savedShare?.participants.count, 2, "Olga and Ann")

        // Ann opens the link: her app fetches the share's metadata, with the root record.
        var fetchedMetadata: CKShare.Metadata?
        let metadataFetched = expectation(description: "metadata fetched")
        let fetchMetadata = CKFetchShareMetadataOperation(shareURLs: [url])
        fetchMetadata.shouldFetchRootRecord = true
        fetchMetadata.rootRecordDesiredKeys = ["name"]
        fetchMetadata.perShareMetadataResultBlock = { url, result in
            switch result {
            case .success(let metadata): fetchedMetadata = metadata
            case .failure(let error): XCTFail("No metadata for \(url): \(error)")
            }
        }
        fetchMetadata.fetchShareMetadataResultBlock = { _ in metadataFetched.fulfill() }
        ann.add(fetchMetadata)
        wait(for: [metadataFetched], timeout: 10)

        let metadata = try XCTUnwrap(fetchedMetadata)
        XCTAssertEqual(metadata.participantRole, .privateUser)
        XCTAssertEqual(metadata.participantStatus, .pending)
        XCTAssertEqual(metadata.participantPermission, .readWrite)
        XCTAssertEqual(metadata.hierarchicalRootRecordID?.recordName, "lisbon")
        XCTAssertEqual(metadata.rootRecord?["name"] as? String, "Lisbon")
        XCTAssertEqual(metadata.share[CKShare.SystemFieldKey.title] as? String, "Lisbon")

        // What the scene delegate does with the metadata the system hands it.
        guard metadata.containerIdentifier == containerIdentifier else {
            return XCTFail("The share belongs to \(metadata.containerIdentifier)")
        }
        var acceptedShare: CKShare?
        let accepted = expectation(description: "share accepted")
        let accept = CKAcceptSharesOperation(shareMetadatas: [metadata])
        accept.perShareResultBlock = { metadata, result in
            switch result {
            case .success(let share): acceptedShare = share
            case .failure(let error): XCTFail("Could not accept the share of \(String(describing: metadata.hierarchicalRootRecordID)): \(error)")
            }
        }
        accept.acceptSharesResultBlock = { result in
            if case .failure(let error) = result { XCTFail("Could not accept: \(error)") }
            accepted.fulfill()
        }
        accept.qualityOfService = .utility
        ann.add(accept)
        wait(for: [accepted], timeout: 10)
        XCTAssertEqual(acceptedShare?.currentUserParticipant?.acceptanceStatus, .accepted)

        // Ann's shared database now has Olga's zone, named by Olga's user record.
        var sharedZoneIDs: [CKRecordZone.ID] = []
        let zonesFetched = expectation(description: "shared zones fetched")
        let fetchZones = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        fetchZones.perRecordZoneResultBlock = { zoneID, result in
            if case .success = result { sharedZoneIDs.append(zoneID) }
        }
        fetchZones.fetchRecordZonesResultBlock = { _ in zonesFetched.fulfill() }
        ann.sharedCloudDatabase.add(fetchZones)
        wait(for: [zonesFetched], timeout: 10)
        XCTAssertEqual(sharedZoneIDs, [olgasZoneAsOthersSeeIt])

        // Every shared record, with a change operation over the shared zones.
        var sharedRecords: [String: CKRecord] = [:]
        var tokens: [CKRecordZone.ID: CKServerChangeToken] = [:]
        let changesFetched = expectation(description: "changes fetched")
        let fetchChanges = CKFetchRecordZoneChangesOperation(recordZoneIDs: sharedZoneIDs, configurationsByRecordZoneID: [:])
        fetchChanges.recordWasChangedBlock = { recordID, result in
            if case .success(let record) = result { sharedRecords[recordID.recordName] = record }
        }
        fetchChanges.recordZoneFetchResultBlock = { zoneID, result in
            if case .success(let fetched) = result { tokens[zoneID] = fetched.serverChangeToken }
        }
        fetchChanges.fetchRecordZoneChangesResultBlock = { result in
            if case .failure(let error) = result { XCTFail("Could not fetch changes: \(error)") }
            changesFetched.fulfill()
        }
        ann.sharedCloudDatabase.add(fetchChanges)
        wait(for: [changesFetched], timeout: 10)

        XCTAssertEqual(sharedRecords["lisbon"]?["name"] as? String, "Lisbon")
        XCTAssertEqual(sharedRecords["tram"]?.parent?.recordID.recordName, "lisbon")
        XCTAssertTrue(sharedRecords[share.recordID.recordName] is CKShare, "the share comes with the records it shares")
        XCTAssertEqual(tokens.count, 1)

        // Ann may edit: she adds a photo to the album, in Olga's zone as she sees it.
        let sharedAlbum = try XCTUnwrap(sharedRecords["lisbon"])
        let beach = photo("beach", caption: "Praia", in: sharedAlbum)
        let added = expectation(description: "photo added")
        let addPhoto = CKModifyRecordsOperation(recordsToSave: [beach], recordIDsToDelete: nil)
        addPhoto.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { XCTFail("Ann could not add a photo: \(error)") }
            added.fulfill()
        }
        ann.sharedCloudDatabase.add(addPhoto)
        wait(for: [added], timeout: 10)

        // Olga finds it in her own zone.
        var olgasCopy: CKRecord?
        let found = expectation(description: "photo found")
        let fetchPhoto = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "beach", zoneID: zoneID)])
        fetchPhoto.perRecordResultBlock = { _, result in olgasCopy = try? result.get() }
        fetchPhoto.fetchRecordsResultBlock = { _ in found.fulfill() }
        database.add(fetchPhoto)
        wait(for: [found], timeout: 10)
        XCTAssertEqual(olgasCopy?["caption"] as? String, "Praia")
        XCTAssertEqual(olgasCopy?.parent?.recordID, lisbon.recordID)
    }

    // MARK: - async/await, as Apple's sharing sample writes it

    /// The sample's `fetchOrCreateShare`: the first call creates the share with its root in one
    /// modify call, a later one finds it through the root's `share` reference and
    /// `record(for:) as? CKShare`. Ben joins read-only with `shareMetadata(for:)` and
    /// `accept(_:)`, reads the album through his shared database, is refused a write, and
    /// leaves by deleting the share from his shared database.
    func testFetchOrCreateAShareAndReadItThroughTheSharedDatabase() async throws {
        let database = olga.privateCloudDatabase
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
        let porto = album("porto", title: "Porto")
        _ = try await database.modifyRecords(saving: [porto, photo("bridge", caption: "Dom Luís I", in: porto)], deleting: [])

        let fetchedAlbum = try await database.record(for: porto.recordID)
        XCTAssertNil(fetchedAlbum.share, "not shared yet")
        let share = try await fetchOrCreateShare(for: fetchedAlbum, in: database)
        XCTAssertEqual(share[CKShare.SystemFieldKey.title] as? String, "Album: Porto")

        // Later, from the album as fetched again: the same share, found through the reference.
        let sharedAlbum = try await database.record(for: porto.recordID)
        XCTAssertEqual(sharedAlbum.share?.recordID, share.recordID)
        let again = try await fetchOrCreateShare(for: sharedAlbum, in: database)
        XCTAssertEqual(again.recordID, share.recordID)
        XCTAssertEqual(again.url, share.url)

        // Olga invites Ben, read-only, and saves the share again (it already has its root).
        let participants = try await olga.shareParticipants(forEmailAddresses: ["ben@example.com"])
        for (email, result) in participants {
            switch result {
            case .success(let participant):
                participant.permission = .readOnly
                again.addParticipant(participant)
            case .failure(let error):
                XCTFail("No participant for \(email): \(error)")
            }
        }
        let (saveResults, _) = try await database.modifyRecords(saving: [again], deleting: [])
        let invited = try XCTUnwrap(try saveResults[again.recordID]?.get() as? CKShare)
        let url = try XCTUnwrap(invited.url)

        // Ben opens the link and accepts.
        let metadata = try await ben.shareMetadata(for: url)
        XCTAssertEqual(metadata.participantPermission, .readOnly)
        XCTAssertEqual(metadata.ownerIdentity.userRecordID?.recordName, olgasZoneAsOthersSeeIt.ownerName)
        let joined = try await ben.accept(metadata)
        XCTAssertEqual(joined.currentUserParticipant?.acceptanceStatus, .accepted)

        // His shared database shows the album and its photo, in Olga's zone.
        let zones = try await ben.sharedCloudDatabase.allRecordZones()
        XCTAssertEqual(zones.map(\.zoneID), [olgasZoneAsOthersSeeIt])
        let records = try await recordsInSharedZones(of: ben)
        XCTAssertEqual(Set(records.keys), ["porto", "bridge", share.recordID.recordName])
        XCTAssertEqual(records["bridge"]?["caption"] as? String, "Dom Luís I")
        let porto2 = try await ben.sharedCloudDatabase.record(for: CKRecord.ID(recordName: "porto", zoneID: olgasZoneAsOthersSeeIt))
        XCTAssertEqual(porto2.share?.recordID.recordName, share.recordID.recordName)

        // Read-only: his edit is refused.
        porto2["name"] = "Ben's Porto"
        do {
            _ = try await ben.sharedCloudDatabase.save(porto2)
            XCTFail("a read-only participant cannot edit")
        } catch let error as CKError where error.code == .permissionFailure {
            // expected
        }

        // Ben leaves: he deletes the share from his shared database. The share stays Olga's.
        let shareID = CKRecord.ID(recordName: share.recordID.recordName, zoneID: olgasZoneAsOthersSeeIt)
        _ = try await ben.sharedCloudDatabase.deleteRecord(withID: shareID)
        let zonesAfter = try await ben.sharedCloudDatabase.allRecordZones()
        XCTAssertTrue(zonesAfter.isEmpty)
        let olgasShare = try await database.record(for: share.recordID) as? CKShare
        XCTAssertEqual(olgasShare?.participants.map(\.role), [.owner])
    }

    /// Managing the people of an existing share: the owner fetches the share, changes a
    /// participant's permission, removes another, and saves the share on its own.
    func testChangeAndRemoveParticipantsOfAnExistingShare() async throws {
        let database = olga.privateCloudDatabase
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
        let faro = album("faro", title: "Faro")
        let share = CKShare(rootRecord: faro)
        for (_, result) in try await olga.shareParticipants(forEmailAddresses: ["ann@example.com", "ben@example.com"]) {
            share.addParticipant(try result.get())           // read-only unless set
        }
        let (saveResults, _) = try await database.modifyRecords(saving: [faro, share], deleting: [])
        let url = try XCTUnwrap((try saveResults[share.recordID]?.get() as? CKShare)?.url)
        let friends: [CKContainer] = [ann, ben]
        for friend in friends {
            _ = try await friend.accept(try await friend.shareMetadata(for: url))
        }

        // Olga lets Ann edit and removes Ben.
        let root = try await database.record(for: faro.recordID)
        guard let reference = root.share, let current = try await database.record(for: reference.recordID) as? CKShare else {
            return XCTFail("the album is shared")
        }
        let annsUser = server.userRecordName(account: "ann", containerIdentifier: containerIdentifier)
        for participant in current.participants where participant.role != .owner {
            if participant.userIdentity.userRecordID?.recordName == annsUser {
                participant.permission = .readWrite
            } else {
                current.removeParticipant(participant)
            }
        }
        _ = try await database.save(current)

        // Ann can now add a photo to the album; Ben no longer sees the zone.
        let sharedFaro = try await ann.sharedCloudDatabase.record(for: CKRecord.ID(recordName: "faro", zoneID: olgasZoneAsOthersSeeIt))
        _ = try await ann.sharedCloudDatabase.save(photo("marina", caption: "Marina", in: sharedFaro))
        let marina = try await database.record(for: CKRecord.ID(recordName: "marina", zoneID: zoneID))
        XCTAssertEqual(marina.parent?.recordID, faro.recordID)
        let bensZones = try await ben.sharedCloudDatabase.allRecordZones()
        XCTAssertTrue(bensZones.isEmpty)
        let updated = try await database.record(for: share.recordID) as? CKShare
        XCTAssertEqual(updated?.participants.count, 2, "Olga and Ann")
        XCTAssertEqual(updated?.participants.first { $0.role != .owner }?.permission, .readWrite)
    }

    // MARK: - Zone-wide shares

    /// A zone shared as a whole (`CKShare(recordZoneID:)`), open to anyone with the link: it
    /// covers every record of the zone, those added later too. The owner finds it again through
    /// the zone's `share` or by its well-known record name, and stops sharing by deleting it.
    func testShareAWholeZoneWithALinkAndStopSharing() async throws {
        let database = olga.privateCloudDatabase
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
        _ = try await database.modifyRecords(saving: [album("sintra", title: "Sintra"), album("evora", title: "Évora")], deleting: [])

        let share = CKShare(recordZoneID: zoneID)
        share[CKShare.SystemFieldKey.title] = "All my albums" as CKRecordValue
        share.publicPermission = .readOnly
        let (saveResults, _) = try await database.modifyRecords(saving: [share], deleting: [])
        let url = try XCTUnwrap((try saveResults[share.recordID]?.get() as? CKShare)?.url)

        // Finding the zone's share again, two ways.
        let zone = try await database.recordZone(for: zoneID)
        XCTAssertEqual(zone.share?.recordID.recordName, CKRecordNameZoneWideShare)
        let shareID = CKRecord.ID(recordName: CKRecordNameZoneWideShare, zoneID: zoneID)
        let existing = try await database.record(for: shareID) as? CKShare
        XCTAssertEqual(existing?.url, url)

        // Cleo, who was not invited, opens the link and joins as a public user.
        let metadatas = try await cleo.shareMetadatas(for: [url])
        let metadata = try XCTUnwrap(try metadatas[url]?.get())
        XCTAssertNil(metadata.hierarchicalRootRecordID, "a zone-wide share has no root")
        XCTAssertEqual(metadata.participantRole, .publicUser)
        let results = try await cleo.accept([metadata])
        XCTAssertEqual(try results[metadata]?.get().currentUserParticipant?.role, .publicUser)

        // Olga adds an album after sharing: it is shared too.
        _ = try await database.save(album("douro", title: "Douro"))
        let changes = try await cleo.sharedCloudDatabase.databaseChanges(since: nil)
        XCTAssertEqual(changes.modifications.map(\.zoneID), [olgasZoneAsOthersSeeIt])
        let records = try await recordsInSharedZones(of: cleo)
        XCTAssertEqual(Set(records.keys), ["sintra", "evora", "douro", CKRecordNameZoneWideShare])

        // Olga stops sharing: she deletes the share. The zone leaves Cleo's shared database.
        _ = try await database.deleteRecord(withID: shareID)
        let later = try await cleo.sharedCloudDatabase.databaseChanges(since: changes.changeToken)
        XCTAssertEqual(later.deletions.map(\.zoneID), [olgasZoneAsOthersSeeIt])
        let zonesAfter = try await cleo.sharedCloudDatabase.allRecordZones()
        XCTAssertTrue(zonesAfter.isEmpty)
        do {
            _ = try await cleo.sharedCloudDatabase.record(for: CKRecord.ID(recordName: "sintra", zoneID: olgasZoneAsOthersSeeIt))
            XCTFail("no longer shared")
        } catch let error as CKError where error.code == .zoneNotFound {
            // expected
        }
        let olgasZone = try await database.recordZone(for: zoneID)
        XCTAssertNil(olgasZone.share, "the zone stays Olga's, no longer shared")
        let olgasAlbums = try await database.records(for: [CKRecord.ID(recordName: "douro", zoneID: zoneID)])
        XCTAssertNotNil(try olgasAlbums.values.first?.get())
    }
}
