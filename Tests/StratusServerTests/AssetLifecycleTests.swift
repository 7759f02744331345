import Foundation
@testable import StratusServer
import StratusWire
import XCTest

/// The server's asset files: the 50 MB limit holds on the bytes actually read, and a stored
/// file lives exactly as long as something references it (a save in flight or a record).
final class AssetLifecycleTests: XCTestCase {
    private var scratch: URL!
    private var store: AssetStore!

    override func setUpWithError() throws {
        try super.setUpWithError()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("asset-lifecycle-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        store = AssetStore()
    }

    override func tearDownWithError() throws {
        store = nil
        try? FileManager.default.removeItem(at: scratch)
        scratch = nil
        try super.tearDownWithError()
    }

    private func file(_ name: String, _ contents: String) throws -> URL {
        let url = scratch.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url
    }

    /// A sparse file of `size` bytes: no disk is used for its zeros.
    private func sparseFile(_ name: String, size: Int) throws -> URL {
        let url = scratch.appendingPathComponent(name)
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        return url
    }

    private func stored(_ url: URL, into store: AssetStore? = nil) throws -> WireAsset {
        try (store ?? self.store).store(WireAsset(fileURL: url), field: "photo", recordName: "r").0
    }

    private func exists(_ asset: WireAsset) -> Bool {
        asset.fileURL.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
    }

    private func contents(of directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    // MARK: - The size limit

    func testAFileThatGrowsPastTheLimitAfterTheSizeCheckIsRefused() throws {
        let limit = WireLimits.maximumAssetBytes
        let store = AssetStore(afterSizeCheck: { url in
            // The check saw a small file; the read finds one byte more than the limit.
            _ = truncate(url.path, off_t(limit + 1))
        })
        let source = try file("grows.bin", "small")
        XCTAssertThrowsError(try stored(source, into: store)) { error in
            XCTAssertEqual((error as? WireError)?.code, .limitExceeded, "\(error)")
        }
        XCTAssertTrue(store.storedFileNames.isEmpty)
        XCTAssertEqual(contents(of: store.assetsDirectory).filter { !$0.hasPrefix(".") }, [])
    }

    func testAFileSwappedAfterTheSizeCheckIsStoredAsItWasChecked() throws {
        let big = try sparseFile("big.bin", size: WireLimits.maximumAssetBytes + 1)
        let store = AssetStore(afterSizeCheck: { url in
            // Another file takes the checked file's name; the store reads the file it checked.
            _ = rename(big.path, url.path)
        })
        let source = try file("swapped.bin", "the checked bytes")
        let asset = try stored(source, into: store)
        XCTAssertEqual(try Data(contentsOf: XCTUnwrap(asset.fileURL)), Data("the checked bytes".utf8))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: source.path)[.size] as? NSNumber,
                       NSNumber(value: WireLimits.maximumAssetBytes + 1))
    }

    func testAFileOverTheLimitIsRefusedBeforeItIsRead() throws {
        let over = try sparseFile("over.bin", size: WireLimits.maximumAssetBytes + 1)
        XCTAssertThrowsError(try stored(over)) { error in
            XCTAssertEqual((error as? WireError)?.code, .limitExceeded, "\(error)")
            XCTAssertEqual((error as? WireError)?.message.contains("\(WireLimits.maximumAssetBytes + 1) bytes"), true, "\(error)")
        }
        let small = try file("small.bin", "twelve bytes")
        let (asset, size) = try store.store(WireAsset(fileURL: small), field: "photo", recordName: "r")
        XCTAssertEqual(size, 12)
        XCTAssertEqual(store.size(of: asset), 12)
    }

    func testADirectoryALinkAndAMissingFileAreNotFound() throws {
        let target = try file("target.bin", "bytes")
        let link = scratch.appendingPathComponent("link.bin")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        for url in [scratch!, link, scratch.appendingPathComponent("missing.bin")] {
            XCTAssertThrowsError(try stored(url)) { error in
                XCTAssertEqual((error as? WireError)?.code, .assetFileNotFound, "\(url.path): \(error)")
            }
        }
    }

    // MARK: - Reference counting

    func testStoringTakesOneReferenceAndTheLastReleaseDeletesTheFileAndItsClientCopy() throws {
        let asset = try stored(try file("a.txt", "clown"))
        XCTAssertEqual(store.referenceCount(of: asset), 1)
        let copy = store.clientCopy(of: asset)
        XCTAssertTrue(exists(asset))
        XCTAssertTrue(exists(copy))

        store.release(.asset(asset))
        XCTAssertEqual(store.referenceCount(of: asset), 0)
        XCTAssertFalse(exists(asset))
        XCTAssertFalse(exists(copy))
        XCTAssertNil(store.clientCopy(of: asset).fileURL, "no copy of a deleted file")
        XCTAssertEqual(contents(of: store.assetsDirectory), [])
        XCTAssertEqual(contents(of: store.downloadsDirectory), [])
    }

    func testEqualBytesShareOneFileCountedOncePerReference() throws {
        let first = try stored(try file("one.txt", "same bytes"))
        let second = try stored(try file("two.txt", "same bytes"))
        XCTAssertEqual(first, second)
        XCTAssertEqual(store.referenceCount(of: first), 2)
        store.release(.asset(first))
        XCTAssertTrue(exists(second))
        store.release(.asset(second))
        XCTAssertFalse(exists(second))
    }

    func testRetainAndReleaseWalkListsAndRecords() throws {
        let a = try stored(try file("a.txt", "a"))
        let b = try stored(try file("b.txt", "b"))
        let record = WireRecord(
            recordID: WireRecordID(recordName: "r"),
            recordType: "Album",
            fields: ["cover": .asset(a), "pages": .list([.asset(a), .asset(b)]), "title": .string("Clowns")]
        )
        store.retain(record)
        XCTAssertEqual(store.referenceCount(of: a), 3)
        XCTAssertEqual(store.referenceCount(of: b), 2)
        // The save's holds go; the record keeps the files.
        store.release(.asset(a))
        store.release(.asset(b))
        XCTAssertTrue(exists(a) && exists(b))
        store.release(record)
        XCTAssertFalse(exists(a))
        XCTAssertFalse(exists(b))
        XCTAssertTrue(store.storedFileNames.isEmpty)
    }

    func testValuesThatAreNotStoredFilesAreIgnored() throws {
        let source = try file("mine.txt", "the client's own file")
        store.retain(.asset(WireAsset(fileURL: source)))
        store.release(.asset(WireAsset(fileURL: source)))
        store.release(.asset(WireAsset(fileURL: nil)))
        store.release(.list([.string("x"), .int64(1)]))
        XCTAssertTrue(FileManager.default.fileExists(atPath: source.path), "the client's file is never deleted")
        XCTAssertEqual(store.referenceCount(of: WireAsset(fileURL: source)), 0)

        let asset = try stored(source)
        store.release(.asset(asset))
        store.release(.asset(asset))  // one release too many does nothing
        XCTAssertEqual(store.referenceCount(of: asset), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: source.path))
    }

    func testAFailedStoreOfASaveGivesBackTheFilesItAlreadyStored() throws {
        let good = try file("good.txt", "stored first")
        let save = WireRecordSave(record: WireRecord(
            recordID: WireRecordID(recordName: "r"),
            recordType: "Photo",
            fields: [
                "a": .asset(WireAsset(fileURL: good)),
                "b": .list([.asset(WireAsset(fileURL: good)), .asset(WireAsset(fileURL: scratch.appendingPathComponent("missing")))]),
            ]
        ))
        XCTAssertThrowsError(try store.storeAssets(of: save)) { error in
            XCTAssertEqual((error as? WireError)?.code, .assetFileNotFound)
        }
        XCTAssertTrue(store.storedFileNames.isEmpty)
        XCTAssertEqual(contents(of: store.assetsDirectory), [])
    }

    func testASaveThatIsNeverKeptLeavesNothingBehind() throws {
        // A save stored its files, then failed (say, a conflict): the write path only gives
        // back the save's holds.
        let save = WireRecordSave(record: WireRecord(
            recordID: WireRecordID(recordName: "r"),
            recordType: "Photo",
            fields: ["a": .asset(WireAsset(fileURL: try file("a.txt", "a"))), "n": .int64(1)]
        ))
        let prepared = try store.storeAssets(of: save)
        guard case .asset(let asset)? = prepared.record.fields["a"] else { return XCTFail("not stored") }
        XCTAssertEqual(prepared.record.fields["n"], .int64(1))
        XCTAssertTrue(exists(asset))
        store.release(prepared.record)
        XCTAssertFalse(exists(asset))
    }

    func testFortyRecordsSavedAndDeletedLeaveNoFiles() throws {
        // The write path's calls, in its order, for 40 saves and then 40 deletes.
        var records: [WireRecord] = []
        for index in 0..<40 {
            let source = try file("photo-\(index).bin", String(repeating: "\(index % 20)", count: 1_000))
            let save = WireRecordSave(record: WireRecord(
                recordID: WireRecordID(recordName: "p\(index)"),
                recordType: "Photo",
                fields: ["image": .asset(WireAsset(fileURL: source))]
            ))
            let prepared = try store.storeAssets(of: save)
            store.retain(prepared.record)   // the record is stored
            store.release(prepared.record)  // the save's hold goes
            records.append(prepared.record)
            if case .asset(let asset)? = prepared.record.fields["image"] { _ = store.clientCopy(of: asset) }
        }
        XCTAssertEqual(store.storedFileNames.count, 20)
        for record in records { store.release(record) }
        XCTAssertEqual(contents(of: store.assetsDirectory), [])
        XCTAssertEqual(contents(of: store.downloadsDirectory), [])
        XCTAssertTrue(store.storedFileNames.isEmpty)
    }

    func testConcurrentSavesAndDeletesOfTheSameBytesNeverLoseAHeldFile() async throws {
        let source = try file("shared.txt", "shared bytes")
        let store = self.store!
        let kept = try stored(source)  // one record keeps the file throughout
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<50 {
                        guard let asset = try? store.store(WireAsset(fileURL: source), field: "f", recordName: "r").0 else { continue }
                        store.retain(.asset(asset))
                        store.release(.asset(asset))
                        _ = store.clientCopy(of: asset)
                        store.release(.asset(asset))
                    }
                }
            }
        }
        XCTAssertEqual(store.referenceCount(of: kept), 1)
        XCTAssertTrue(exists(kept))
        store.release(.asset(kept))
        XCTAssertFalse(exists(kept))
    }

    func testStoringAgainAfterTheLastReleaseStoresTheFileAgain() throws {
        let source = try file("again.txt", "again")
        let first = try stored(source)
        store.release(.asset(first))
        XCTAssertFalse(exists(first))
        let second = try stored(source)
        XCTAssertEqual(first, second)
        XCTAssertTrue(exists(second))
        XCTAssertEqual(store.referenceCount(of: second), 1)
    }
}
