import Foundation
@testable import StratusServer
import StratusWire
import XCTest

/// The server's asset files: uploaded bytes are stored by checksum, held until a save takes
/// them over or the upload expires, and a stored file lives exactly as long as something
/// references it (an upload, a save in flight, or a record). The checks on a client's own file
/// are the client's (`AssetFileReaderTests`).
final class AssetLifecycleTests: XCTestCase {
    private var store: AssetStore!
    private let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
    private var later: Date { now.addingTimeInterval(WireLimits.assetUploadLifetime) }

    override func setUp() {
        super.setUp()
        store = AssetStore()
    }

    override func tearDown() {
        store = nil
        super.tearDown()
    }

    /// Uploads `contents` and claims the upload for a save: the stored asset, held once.
    private func stored(_ contents: String, into store: AssetStore? = nil) throws -> WireAsset {
        let store = store ?? self.store!
        let (name, serial) = try store.storeUpload(Data(contents.utf8), expires: later)
        XCTAssertTrue(store.claim(upload: serial, name: name))
        return WireAsset(fileChecksum: name, size: Int64(contents.utf8.count))
    }

    private func exists(_ asset: WireAsset) -> Bool {
        asset.fileChecksum.map { FileManager.default.fileExists(atPath: store.assetsDirectory.appendingPathComponent($0).path) } ?? false
    }

    private func contents(of directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    // MARK: - Uploads

    func testAnUploadIsStoredByItsChecksumAndHeldUntilItExpires() throws {
        let (name, _) = try store.storeUpload(Data("clown".utf8), expires: later)
        XCTAssertEqual(name, SHA256.hex(Data("clown".utf8)))
        XCTAssertEqual(store.contents(of: name), Data("clown".utf8))
        store.releaseExpiredUploads(now: later.addingTimeInterval(-1))
        XCTAssertEqual(store.storedFileNames, [name], "held until it expires")
        store.releaseExpiredUploads(now: later)
        XCTAssertEqual(store.storedFileNames, [])
        XCTAssertNil(store.contents(of: name))
        XCTAssertEqual(contents(of: store.assetsDirectory), [])
    }

    func testAClaimedUploadMovesToTheSaveAndNoLongerExpires() throws {
        let asset = try stored("clown")
        XCTAssertEqual(store.referenceCount(of: asset), 1, "the upload's hold became the save's")
        XCTAssertEqual(store.pendingUploadCount, 0)
        store.releaseExpiredUploads(now: later)
        XCTAssertTrue(exists(asset))
        store.release(.asset(asset))
        XCTAssertFalse(exists(asset))
    }

    func testAClaimAfterTheHoldWasTakenNeedsTheBytesStillStored() throws {
        let (name, serial) = try store.storeUpload(Data("clown".utf8), expires: later)
        XCTAssertTrue(store.claim(upload: serial, name: name))
        XCTAssertTrue(store.claim(upload: serial, name: name), "a record still holds the bytes")
        let asset = WireAsset(fileChecksum: name)
        XCTAssertEqual(store.referenceCount(of: asset), 2)
        store.release(.asset(asset))
        store.release(.asset(asset))
        XCTAssertFalse(store.claim(upload: serial, name: name), "nothing holds them any more")
        XCTAssertFalse(store.claim(upload: 999, name: SHA256.hex(Data("never".utf8))))
    }

    func testAnUploadOverTheLimitIsRefusedAndNothingIsStored() {
        XCTAssertThrowsError(try store.storeUpload(Data(count: WireLimits.maximumAssetBytes + 1), expires: later)) { error in
            XCTAssertEqual((error as? WireError)?.code, .limitExceeded, "\(error)")
        }
        XCTAssertTrue(store.storedFileNames.isEmpty)
        XCTAssertEqual(contents(of: store.assetsDirectory), [])
    }

    // MARK: - Reference counting

    func testTheLastReleaseDeletesTheFile() throws {
        let asset = try stored("clown")
        XCTAssertEqual(store.referenceCount(of: asset), 1)
        XCTAssertEqual(store.size(of: asset), 5)
        store.release(.asset(asset))
        XCTAssertEqual(store.referenceCount(of: asset), 0)
        XCTAssertFalse(exists(asset))
        XCTAssertNil(store.contents(of: try XCTUnwrap(asset.fileChecksum)), "no bytes of a deleted file")
        XCTAssertEqual(contents(of: store.assetsDirectory), [])
    }

    func testEqualBytesShareOneFileCountedOncePerReference() throws {
        let first = try stored("same bytes")
        let second = try stored("same bytes")
        XCTAssertEqual(first, second)
        XCTAssertEqual(store.referenceCount(of: first), 2)
        store.release(.asset(first))
        XCTAssertTrue(exists(second))
        store.release(.asset(second))
        XCTAssertFalse(exists(second))
    }

    func testRetainAndReleaseWalkListsAndRecords() throws {
        let a = try stored("a")
        let b = try stored("b")
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
        let source = FileManager.default.temporaryDirectory.appendingPathComponent("mine-\(UUID().uuidString).txt")
        try Data("the client's own file".utf8).write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }
        store.retain(.asset(WireAsset(localFileURL: source)))
        store.release(.asset(WireAsset(localFileURL: source)))
        store.release(.asset(WireAsset(fileChecksum: "../../etc/passwd")))
        store.release(.asset(WireAsset()))
        store.release(.list([.string("x"), .int64(1)]))
        XCTAssertTrue(FileManager.default.fileExists(atPath: source.path), "a client's file is never touched")
        XCTAssertEqual(store.referenceCount(of: WireAsset(localFileURL: source)), 0)

        let asset = try stored("mine")
        store.release(.asset(asset))
        store.release(.asset(asset))  // one release too many does nothing
        XCTAssertEqual(store.referenceCount(of: asset), 0)
    }

    func testFortyRecordsSavedAndDeletedLeaveNoFiles() throws {
        // The write path's calls, in its order, for 40 saves and then 40 deletes.
        var records: [WireRecord] = []
        for index in 0..<40 {
            let asset = try stored(String(repeating: "\(index % 20)", count: 1_000))
            let record = WireRecord(recordID: WireRecordID(recordName: "p\(index)"), recordType: "Photo", fields: ["image": .asset(asset)])
            store.retain(record)   // the record is stored
            store.release(record)  // the save's hold goes
            records.append(record)
        }
        XCTAssertEqual(store.storedFileNames.count, 20)
        for record in records { store.release(record) }
        XCTAssertEqual(contents(of: store.assetsDirectory), [])
        XCTAssertTrue(store.storedFileNames.isEmpty)
    }

    func testConcurrentUploadsSavesAndDeletesOfTheSameBytesNeverLoseAHeldFile() async throws {
        let store = self.store!
        let later = self.later
        let kept = try stored("shared bytes")  // one record keeps the file throughout
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<50 {
                        guard let (name, serial) = try? store.storeUpload(Data("shared bytes".utf8), expires: later),
                              store.claim(upload: serial, name: name)
                        else { continue }
                        let asset = WireFieldValue.asset(WireAsset(fileChecksum: name))
                        store.retain(asset)
                        store.release(asset)
                        _ = store.contents(of: name)
                        store.release(asset)
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
        let first = try stored("again")
        store.release(.asset(first))
        XCTAssertFalse(exists(first))
        let second = try stored("again")
        XCTAssertEqual(first, second)
        XCTAssertTrue(exists(second))
        XCTAssertEqual(store.referenceCount(of: second), 1)
    }
}
