import Stratus
@testable import StratusServer
import XCTest

/// Assets: the server keeps its own copy of an asset's bytes, the client gets a local copy it
/// may read, a save whose file is missing fails, and the server's files and the client's
/// copies are removed when nothing uses them any more.
final class AssetsTests: ServerTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("assets-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
        scratch = nil
        try super.tearDownWithError()
    }

    private func file(_ name: String, _ contents: Data) throws -> URL {
        let url = scratch.appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }

    private func photo(_ name: String, asset: CKAsset) -> CKRecord {
        let record = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: name))
        record["image"] = asset
        return record
    }

    private let original = Data("the clowns arrive at noon".utf8)

    // MARK: - Copies

    func testASavedAssetKeepsItsBytesWhenTheOriginalFileChanges() async throws {
        let source = try file("photo.jpg", original)
        let db = device("john").privateCloudDatabase
        let record = photo("p", asset: CKAsset(fileURL: source))
        _ = try await db.save(record)

        try Data("something else entirely".utf8).write(to: source)

        let fetched = try await device("john").privateCloudDatabase.record(for: record.recordID)
        let asset = try XCTUnwrap(fetched["image"] as? CKAsset)
        let url = try XCTUnwrap(asset.fileURL)
        XCTAssertNotEqual(url.standardizedFileURL, source.standardizedFileURL)
        XCTAssertEqual(try Data(contentsOf: url), original)
    }

    func testASavedAssetKeepsItsBytesWhenTheOriginalFileIsDeleted() async throws {
        let source = try file("photo.jpg", original)
        let db = device("john").privateCloudDatabase
        let record = photo("p", asset: CKAsset(fileURL: source))
        _ = try await db.save(record)

        try FileManager.default.removeItem(at: source)

        let fetched = try await db.record(for: record.recordID)
        let url = try XCTUnwrap((fetched["image"] as? CKAsset)?.fileURL)
        XCTAssertNotEqual(url.standardizedFileURL, source.standardizedFileURL)
        XCTAssertEqual(try Data(contentsOf: url), original)
    }

    func testChangingAFetchedAssetFileDoesNotChangeTheServersCopy() async throws {
        let source = try file("photo.jpg", original)
        let db = device("john").privateCloudDatabase
        let record = photo("p", asset: CKAsset(fileURL: source))
        _ = try await db.save(record)

        let first = try await db.record(for: record.recordID)
        let firstURL = try XCTUnwrap((first["image"] as? CKAsset)?.fileURL)
        try Data("scribbled over".utf8).write(to: firstURL)

        let second = try await db.record(for: record.recordID)
        let secondURL = try XCTUnwrap((second["image"] as? CKAsset)?.fileURL)
        XCTAssertEqual(try Data(contentsOf: secondURL), original)
    }

    func testFetchingAnAssetAgainReusesItsLocalCopy() async throws {
        let source = try file("photo.jpg", original)
        let db = device("john").privateCloudDatabase
        _ = try await db.save(photo("p", asset: CKAsset(fileURL: source)))
        var urls: [URL] = []
        for _ in 0..<3 {
            let fetched = try await db.record(for: CKRecord.ID(recordName: "p"))
            urls.append(try XCTUnwrap((fetched["image"] as? CKAsset)?.fileURL))
        }
        XCTAssertEqual(Set(urls).count, 1, "one local copy, however often the asset is fetched")
        let directory = urls[0].deletingLastPathComponent()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).count, 1)
    }

    func testTheSavedRecordsAssetIsAlsoACopy() async throws {
        let source = try file("photo.jpg", original)
        let db = device("john").privateCloudDatabase
        let saved = try await db.save(photo("p", asset: CKAsset(fileURL: source)))
        try FileManager.default.removeItem(at: source)
        let url = try XCTUnwrap((saved["image"] as? CKAsset)?.fileURL)
        XCTAssertNotEqual(url.standardizedFileURL, source.standardizedFileURL)
        XCTAssertEqual(try Data(contentsOf: url), original)
    }

    /// The server's record a conflict carries has its assets downloaded like any fetched
    /// record's, so an app merging from it can read them.
    func testTheServerRecordOfAConflictHasItsAssetsAsLocalFiles() async throws {
        let source = try file("photo.jpg", original)
        let phone = device("john").privateCloudDatabase
        let laptop = device("john").privateCloudDatabase
        let saved = try await phone.save(photo("p", asset: CKAsset(fileURL: source)))
        let stale = try XCTUnwrap(saved.copy() as? CKRecord)
        let newer = try await laptop.record(for: saved.recordID)
        newer["title"] = "from the laptop"
        _ = try await laptop.save(newer)

        stale["title"] = "from the phone"
        do {
            _ = try await phone.save(stale)
            XCTFail("a save over a newer record succeeded")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .serverRecordChanged)
            let server = try XCTUnwrap(error.serverRecord)
            let url = try XCTUnwrap((server["image"] as? CKAsset)?.fileURL, "the conflict's server record has no local file for its asset")
            XCTAssertEqual(try Data(contentsOf: url), original)
        }
    }

    func testAssetsInAListAreCopied() async throws {
        let first = try file("one.txt", Data("one".utf8))
        let second = try file("two.txt", Data("two".utf8))
        let db = device("john").privateCloudDatabase
        let record = CKRecord(recordType: "Album", recordID: CKRecord.ID(recordName: "album"))
        record["pages"] = [CKAsset(fileURL: first), CKAsset(fileURL: second)]
        _ = try await db.save(record)
        try FileManager.default.removeItem(at: first)
        try FileManager.default.removeItem(at: second)

        let fetched = try await db.record(for: record.recordID)
        let pages = try XCTUnwrap(fetched["pages"] as? [CKAsset])
        XCTAssertEqual(pages.count, 2)
        let contents = try pages.map { try Data(contentsOf: XCTUnwrap($0.fileURL)) }
        XCTAssertEqual(contents, [Data("one".utf8), Data("two".utf8)])
    }

    // MARK: - Uploads and downloads

    func testASaveWithAssetsAsksForUploadURLsThenModifies() async throws {
        let db = device("john").privateCloudDatabase
        let before = server.requestCount
        let album = CKRecord(recordType: "Album", recordID: CKRecord.ID(recordName: "album"))
        album["cover"] = CKAsset(fileURL: try file("cover.jpg", original))
        album["pages"] = try (0..<3).map { CKAsset(fileURL: try file("page-\($0).jpg", Data("page \($0)".utf8))) }
        _ = try await db.save(album)
        XCTAssertEqual(server.requestCount, before + 2, "one assets/upload for the record's four assets, then records/modify")
        XCTAssertEqual(server.requestLog.suffix(2).map(\.endpoint), [.uploadAssets, .modifyRecords])

        let plain = CKRecord(recordType: "Note")
        plain["text"] = "no assets"
        _ = try await db.save(plain)
        XCTAssertEqual(server.requestCount, before + 3, "a save without assets uploads nothing")
    }

    func testMoreThanTwoHundredAssetsInOneZoneTakeMoreThanOneUploadRequest() async throws {
        let db = device("john").privateCloudDatabase
        let source = try file("shared.jpg", original)
        let records = (0..<201).map { photo("p\($0)", asset: CKAsset(fileURL: source)) }
        let before = server.requestCount
        _ = try await db.modifyRecords(saving: records, deleting: [])
        XCTAssertEqual(server.requestLog.suffix(server.requestCount - before).map(\.endpoint), [.uploadAssets, .uploadAssets, .modifyRecords])
    }

    func testAssetsAFetchDidNotAskForAreNotDownloaded() async throws {
        let record = photo("p", asset: CKAsset(fileURL: try file("photo.jpg", original)))
        record["title"] = "Clowns at noon"
        _ = try await device("john").privateCloudDatabase.save(record)

        let laptop = device("john")
        let results = try await laptop.privateCloudDatabase.records(for: [record.recordID], desiredKeys: ["title"])
        let fetched = try XCTUnwrap(results[record.recordID]).get()
        XCTAssertNil(fetched["image"])
        XCTAssertEqual(fetched["title"] as? String, "Clowns at noon")
        XCTAssertFalse(FileManager.default.fileExists(atPath: laptop.device.assetCache.directory.path), "nothing was downloaded")

        let full = try await laptop.privateCloudDatabase.record(for: record.recordID)
        let url = try XCTUnwrap((full["image"] as? CKAsset)?.fileURL)
        XCTAssertEqual(url.deletingLastPathComponent().standardizedFileURL, laptop.device.assetCache.directory.standardizedFileURL)
        XCTAssertEqual(try Data(contentsOf: url), original)
        let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(permissions?.intValue, 0o444, "the local copy is read-only")
    }

    func testAFileOverTheLimitFailsItsRecordAndTheOthersOfItsAtomicZone() async throws {
        let db = device("john").privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Album")
        _ = try await db.save(zone)
        let big = scratch.appendingPathComponent("big.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: UInt64(WireLimits.maximumAssetBytes + 1))
        try handle.close()
        let tooBig = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "big", zoneID: zone.zoneID))
        tooBig["image"] = CKAsset(fileURL: big)
        let fine = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "fine", zoneID: zone.zoneID))
        fine["image"] = CKAsset(fileURL: try file("fine.jpg", original))
        let before = server.requestCount

        let error = await assertThrowsCKError(.partialFailure) { try await db.modifyRecords(saving: [tooBig, fine], deleting: [], atomically: true) }
        let items = error?.partialErrorsByItemID ?? [:]
        XCTAssertEqual((items[tooBig.recordID] as? CKError)?.code, .limitExceeded)
        XCTAssertEqual((items[fine.recordID] as? CKError)?.code, .batchRequestFailed)
        XCTAssertEqual(server.requestLog.suffix(server.requestCount - before).map(\.endpoint), [.uploadAssets], "nothing was modified")
        let stored = try await db.records(for: [fine.recordID])
        XCTAssertEqual(code(stored[fine.recordID]), .unknownItem)
    }

    // MARK: - Missing files

    func testAMissingAssetFileFailsTheItemWithAssetFileNotFound() async throws {
        let db = device("john").privateCloudDatabase
        let missing = scratch.appendingPathComponent("never-written.jpg")
        let record = photo("p", asset: CKAsset(fileURL: missing))
        await assertThrowsCKError(.assetFileNotFound) { try await db.save(record) }
        let results = try await db.records(for: [record.recordID])
        XCTAssertEqual(code(results[record.recordID]), .unknownItem)
    }

    func testAMissingAssetFileFailsOnlyItsItemInANonAtomicBatch() async throws {
        let db = device("john").privateCloudDatabase
        let broken = photo("broken", asset: CKAsset(fileURL: scratch.appendingPathComponent("gone.jpg")))
        let fine = photo("fine", asset: CKAsset(fileURL: try file("fine.jpg", original)))
        let (saveResults, _) = try await db.modifyRecords(saving: [broken, fine], deleting: [], atomically: false)
        XCTAssertEqual(code(saveResults[broken.recordID]), .assetFileNotFound)
        XCTAssertNotNil(try? saveResults[fine.recordID]?.get())
    }

    // MARK: - Lifetime

    /// Saves and fetches an asset on a server of its own; returns the server's asset
    /// directory, the device's cache directory (where the fetched copy is), and the server,
    /// weakly. Every object that holds the server is local to this function.
    private func directoriesOfAServerThatIsGone() async throws -> (server: URL, cache: URL, box: WeakBox) {
        let localServer = CloudServer(clock: ManualClock())
        let container = localServer.container(identifier: identifier, account: "john")
        let record = photo("p", asset: CKAsset(fileURL: try file("photo.jpg", original)))
        _ = try await container.privateCloudDatabase.save(record)
        let fetched = try await container.privateCloudDatabase.record(for: record.recordID)
        let url = try XCTUnwrap((fetched["image"] as? CKAsset)?.fileURL)
        XCTAssertEqual(try Data(contentsOf: url), original)
        let root = localServer.assets.root
        XCTAssertTrue(root.lastPathComponent.hasPrefix("stratus-"), root.path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.path))
        XCTAssertFalse(url.path.hasPrefix(root.path), "the client's copy is not the server's file")
        return (root, url.deletingLastPathComponent(), WeakBox(localServer))
    }

    /// Waits until nothing holds the server any more: the operation that made the last call
    /// may still be unwinding on another thread when the call returns.
    private func waitForRelease(_ box: WeakBox, file: StaticString = #filePath, line: UInt = #line) async {
        let released = expectation(description: "server released")
        Task.detached {
            while box.object != nil { await Task.yield() }
            released.fulfill()
        }
        await fulfillment(of: [released], timeout: 10)
        XCTAssertNil(box.object, "something still holds the server", file: file, line: line)
    }

    /// Waits until `directory` is gone: the last reference may be dropped on another thread,
    /// which then runs its deinitialiser while this test goes on.
    private func waitForRemoval(of directory: URL, file: StaticString = #filePath, line: UInt = #line) async {
        let removed = expectation(description: "directory removed")
        let path = directory.path
        Task.detached {
            while FileManager.default.fileExists(atPath: path) { await Task.yield() }
            removed.fulfill()
        }
        await fulfillment(of: [removed], timeout: 10)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(path) is still there", file: file, line: line)
    }

    final class WeakBox: @unchecked Sendable {
        weak var object: CloudServer?
        init(_ object: CloudServer) { self.object = object }
    }

    func testTheServersAssetDirectoryAndTheClientsCopiesAreRemovedWhenNothingUsesThem() async throws {
        let (root, cache, box) = try await directoriesOfAServerThatIsGone()
        await waitForRelease(box)
        await waitForRemoval(of: root)
        await waitForRemoval(of: cache)
    }

    func testAFetchedAssetsCopyOutlivesTheContainerThatFetchedIt() async throws {
        let source = try file("photo.jpg", original)
        var fetched: CKRecord?
        do {
            let container = server.container(identifier: identifier, account: "john")
            _ = try await container.privateCloudDatabase.save(photo("p", asset: CKAsset(fileURL: source)))
            fetched = try await container.privateCloudDatabase.record(for: CKRecord.ID(recordName: "p"))
        }
        let url = try XCTUnwrap((fetched?["image"] as? CKAsset)?.fileURL)
        XCTAssertEqual(try Data(contentsOf: url), original, "the record still holds its asset's copy")
        fetched = nil
        await waitForRemoval(of: url.deletingLastPathComponent())
    }

    func testTheAssetDirectoryOfTheTestsServerIsRemovedWhenTheTestDropsIt() async throws {
        var john: CKContainer? = device("john")
        let record = photo("p", asset: CKAsset(fileURL: try file("photo.jpg", original)))
        _ = try await john?.privateCloudDatabase.save(record)
        let root = try XCTUnwrap(server?.assets.root)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.path))

        let box = WeakBox(try XCTUnwrap(server))
        john = nil
        server = nil
        await waitForRelease(box)
        await waitForRemoval(of: root)
    }
}


extension AssetsTests {
    func testAnAssetThatIsNotARegularFileOrTooLargeIsRefused() async throws {
        let db = device("john").privateCloudDatabase
        let device = photo("dev", asset: CKAsset(fileURL: URL(fileURLWithPath: "/dev/zero")))
        await assertThrowsCKError(.assetFileNotFound) { try await db.save(device) }
        let big = try file("big.bin", Data())
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: UInt64(WireLimits.maximumAssetBytes + 1))
        try handle.close()
        await assertThrowsCKError(.limitExceeded) { try await db.save(self.photo("big", asset: CKAsset(fileURL: big))) }
    }

    func testConcurrentFetchesOfOneAssetAllGetItsBytes() async throws {
        let source = try file("photo.jpg", original)
        let db = device("john").privateCloudDatabase
        _ = try await db.save(photo("p", asset: CKAsset(fileURL: source)))
        let original = self.original
        try await withThrowingTaskGroup(of: Data?.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let record = try await db.record(for: CKRecord.ID(recordName: "p"))
                    return (record["image"] as? CKAsset)?.fileURL.flatMap { try? Data(contentsOf: $0) }
                }
            }
            for try await bytes in group { XCTAssertEqual(bytes, original) }
        }
    }
}
