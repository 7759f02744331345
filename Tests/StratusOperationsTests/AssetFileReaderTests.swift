import Foundation
import StratusOperations
import StratusWire
import XCTest

/// The client's checks on an asset's file before it uploads the bytes: the 50 MB limit holds
/// on the bytes actually read, and only a regular file, opened without following a link, is an
/// asset's file.
final class AssetFileReaderTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("asset-reader-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
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

    private func read(_ url: URL?, afterSizeCheck: ((URL) -> Void)? = nil) throws -> Data {
        try AssetFileReader.bytes(of: url, field: "photo", recordName: "r", afterSizeCheck: afterSizeCheck)
    }

    func testAFileThatGrowsPastTheLimitAfterTheSizeCheckIsRefused() throws {
        let limit = WireLimits.maximumAssetBytes
        let source = try file("grows.bin", "small")
        XCTAssertThrowsError(try read(source, afterSizeCheck: { url in
            // The check saw a small file; the read finds one byte more than the limit.
            _ = truncate(url.path, off_t(limit + 1))
        })) { error in
            XCTAssertEqual((error as? WireError)?.code, .limitExceeded, "\(error)")
        }
    }

    func testAFileSwappedAfterTheSizeCheckIsReadAsItWasChecked() throws {
        let big = try sparseFile("big.bin", size: WireLimits.maximumAssetBytes + 1)
        let source = try file("swapped.bin", "the checked bytes")
        let data = try read(source, afterSizeCheck: { url in
            // Another file takes the checked file's name; the reader reads the file it checked.
            _ = rename(big.path, url.path)
        })
        XCTAssertEqual(data, Data("the checked bytes".utf8))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: source.path)[.size] as? NSNumber,
                       NSNumber(value: WireLimits.maximumAssetBytes + 1))
    }

    func testAFileOverTheLimitIsRefusedBeforeItIsRead() throws {
        let over = try sparseFile("over.bin", size: WireLimits.maximumAssetBytes + 1)
        XCTAssertThrowsError(try read(over)) { error in
            XCTAssertEqual((error as? WireError)?.code, .limitExceeded, "\(error)")
            XCTAssertEqual((error as? WireError)?.message.contains("\(WireLimits.maximumAssetBytes + 1) bytes"), true, "\(error)")
        }
        XCTAssertEqual(try read(try file("small.bin", "twelve bytes")).count, 12)
        XCTAssertEqual(try read(try sparseFile("exact.bin", size: WireLimits.maximumAssetBytes)).count, WireLimits.maximumAssetBytes)
    }

    func testADirectoryALinkAFIFOAMissingFileAndNoFileAreNotFound() throws {
        let target = try file("target.bin", "bytes")
        let link = scratch.appendingPathComponent("link.bin")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let fifo = scratch.appendingPathComponent("fifo")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        for url in [scratch!, link, fifo, scratch.appendingPathComponent("missing.bin"), URL(fileURLWithPath: "/dev/zero"), URL(string: "https://example.com/photo.jpg")!, nil] {
            XCTAssertThrowsError(try read(url)) { error in
                XCTAssertEqual((error as? WireError)?.code, .assetFileNotFound, "\(url?.absoluteString ?? "nil"): \(error)")
            }
        }
    }
}
