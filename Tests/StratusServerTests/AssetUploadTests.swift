import Foundation
@_spi(Testing) import Stratus
@testable import StratusServer
import XCTest

/// Assets at the `CloudService` boundary, as CloudKit Web Services moves them: `assets/upload`
/// hands out upload URLs, the bytes go to one and come back as a receipt, a save carries the
/// receipt, and a fetch carries a download URL. The server refuses a forged, foreign, expired or
/// misplaced receipt, and enforces the size and token limits whatever the client checked.
final class AssetUploadTests: ServerTestCase {
    private var john: CKDatabase!
    private let bytes = Data("the clowns arrive at noon".utf8)

    override func setUp() {
        super.setUp()
        john = device("john").privateCloudDatabase
    }

    override func tearDown() {
        john = nil
        super.tearDown()
    }

    private func photo(_ name: String, _ asset: WireAsset, field: String = "image", type: String = "Photo") -> WireRecord {
        WireRecord(recordID: WireRecordID(recordName: name), recordType: type, fields: [field: .asset(asset)])
    }

    private func assertRefused(_ result: Result<WireRecord, WireError>, _ code: CKErrorCode, mentioning text: String, file: StaticString = #filePath, line: UInt = #line) {
        guard case .failure(let error) = result else { return XCTFail("saved: \(result)", file: file, line: line) }
        XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        XCTAssertTrue(error.message.contains(text), "'\(text)' not in: \(error.message)", file: file, line: line)
    }

    private func download(_ record: WireRecord, field: String = "image") async throws -> Data {
        guard case .asset(let asset)? = record.fields[field], let url = asset.downloadURL else {
            throw WireError(.internalError, "no download URL in \(record.fields[field].map(String.init(describing:)) ?? "nil")")
        }
        return try await server.downloadAssetFile(WireAssetFileDownloadRequest(url: url)).data
    }

    private func lookUp(_ name: String, desiredKeys: [String]? = nil) async throws -> WireRecord {
        let response = try await server.lookupRecords(WireRecordsLookupRequest(context: rawContext(john), recordIDs: [WireRecordID(recordName: name)], desiredKeys: desiredKeys))
        return try XCTUnwrap(response.results.first).result.get()
    }

    // MARK: - The round trip

    func testUploadedBytesAreSavedByReceiptAndFetchedByDownloadURL() async throws {
        let asset = try await rawUpload(bytes, recordName: "p", to: john)
        XCTAssertEqual(asset.size, Int64(bytes.count))
        XCTAssertEqual(asset.fileChecksum, SHA256.hex(bytes))
        XCTAssertNotNil(asset.receipt)

        let saved = try await rawSave(photo("p", asset), to: john).get()
        guard case .asset(let answered)? = saved.fields["image"] else { return XCTFail("no asset in \(saved)") }
        XCTAssertNil(answered.receipt, "a receipt is never handed back")
        XCTAssertNotNil(answered.downloadURL)

        let fetched = try await lookUp("p")
        guard case .asset(let shown)? = fetched.fields["image"] else { return XCTFail("no asset in \(fetched)") }
        XCTAssertEqual(shown.fileChecksum, asset.fileChecksum)
        XCTAssertEqual(shown.size, Int64(bytes.count))
        XCTAssertNil(shown.localFileURL, "no file path crosses")
        let downloaded = try await download(fetched)
        XCTAssertEqual(downloaded, bytes)
    }

    func testAFetchWithoutTheAssetsKeyCarriesNoDownloadURL() async throws {
        let asset = try await rawUpload(bytes, recordName: "p", to: john)
        var record = photo("p", asset)
        record.fields["title"] = .string("Clowns")
        _ = try await rawSave(record, to: john).get()
        let fetched = try await lookUp("p", desiredKeys: ["title"])
        XCTAssertNil(fetched.fields["image"])
        XCTAssertEqual(fetched.fields["title"], .string("Clowns"))
    }

    func testTheTokenRequestCostsARequestAndTheBytesDoNot() async throws {
        let before = server.requestCount
        _ = try await rawUpload(bytes, recordName: "p", to: john)
        XCTAssertEqual(server.requestCount, before + 1, "assets/upload is a request; the bytes are not")
        XCTAssertEqual(server.requestLog.last?.endpoint, .uploadAssets)
    }

    func testATokenWithoutARecordNameGetsANewOne() async throws {
        let response = try await server.uploadAssets(WireAssetsUploadRequest(context: rawContext(john), tokens: [
            WireAssetUploadTokenRequest(recordName: nil, recordType: "Photo", fieldName: "image"),
            WireAssetUploadTokenRequest(recordName: "named", recordType: "Photo", fieldName: "image"),
        ]))
        XCTAssertEqual(response.tokens.count, 2)
        XCTAssertNotNil(UUID(uuidString: response.tokens[0].recordName), response.tokens[0].recordName)
        XCTAssertEqual(response.tokens[1].recordName, "named")
        XCTAssertTrue(response.tokens.allSatisfy { $0.url.hasPrefix("stratus://embedded/assets/1/upload/") && $0.fieldName == "image" })
    }

    // MARK: - Refused receipts

    func testAForgedReceiptIsRefused() async throws {
        var asset = try await rawUpload(bytes, recordName: "p", to: john)
        var receipt = Array(try XCTUnwrap(asset.receipt))
        let index = receipt.count / 2
        receipt[index] = receipt[index] == "A" ? "B" : "A"
        asset.receipt = String(receipt)
        assertRefused(try await rawSave(photo("p", asset), to: john), .invalidArguments, mentioning: "not issued by this server")

        let made = WireAsset(fileChecksum: SHA256.hex(bytes), size: Int64(bytes.count), receipt: "bm90IGEgcmVjZWlwdA")
        assertRefused(try await rawSave(photo("p", made), to: john), .invalidArguments, mentioning: "not issued by this server")
    }

    func testAnAssetWithoutAReceiptIsRefused() async throws {
        let checksumOnly = WireAsset(fileChecksum: SHA256.hex(bytes), size: Int64(bytes.count))
        assertRefused(try await rawSave(photo("p", checksumOnly), to: john), .invalidArguments, mentioning: "has no receipt")
    }

    func testAReceiptFromAnotherServerIsRefused() async throws {
        let other = CloudServer(clock: clock)
        let otherJohn = other.container(identifier: identifier, account: "john").privateCloudDatabase
        let tokens = try await other.uploadAssets(WireAssetsUploadRequest(context: otherJohn.rawRequestContext(), tokens: [
            WireAssetUploadTokenRequest(recordName: "p", recordType: "Photo", fieldName: "image"),
        ]))
        let url = try XCTUnwrap(tokens.tokens.first?.url)
        let foreign = try await other.uploadAssetFile(WireAssetFileUploadRequest(url: url, data: bytes)).singleFile
        assertRefused(try await rawSave(photo("p", foreign), to: john), .invalidArguments, mentioning: "not issued by this server")
        do {
            _ = try await server.uploadAssetFile(WireAssetFileUploadRequest(url: url, data: bytes))
            XCTFail("another server's upload URL was accepted")
        } catch {
            XCTAssertEqual(error.code, .invalidArguments)
        }
    }

    func testAReceiptForAnotherRecordFieldTypeContainerOrUserIsRefused() async throws {
        let asset = try await rawUpload(bytes, recordName: "p", to: john)
        assertRefused(try await rawSave(photo("q", asset), to: john), .invalidArguments, mentioning: "issued for another")
        assertRefused(try await rawSave(photo("p", asset, field: "thumbnail"), to: john), .invalidArguments, mentioning: "issued for another")
        assertRefused(try await rawSave(photo("p", asset, type: "Poster"), to: john), .invalidArguments, mentioning: "issued for another")

        let otherApp = server.container(identifier: "iCloud.com.example.other", account: "john").privateCloudDatabase
        assertRefused(try await rawSave(photo("p", asset), to: otherApp), .invalidArguments, mentioning: "issued for another")
        let alice = device("alice").privateCloudDatabase
        assertRefused(try await rawSave(photo("p", asset), to: alice), .invalidArguments, mentioning: "issued for another")
        let publicDatabase = device("john").publicCloudDatabase
        assertRefused(try await rawSave(photo("p", asset), to: publicDatabase), .invalidArguments, mentioning: "issued for another")

        // The receipt still serves the field it was issued for.
        let saved = try await rawSave(photo("p", asset), to: john)
        XCTAssertNotNil(try? saved.get(), "\(saved)")
    }

    func testAnAssetThatContradictsItsReceiptIsRefused() async throws {
        var asset = try await rawUpload(bytes, recordName: "p", to: john)
        asset.size = 1
        assertRefused(try await rawSave(photo("p", asset), to: john), .invalidArguments, mentioning: "size 1")
    }

    // MARK: - Expiry

    func testAnUploadURLExpiresAfterFifteenMinutesOnTheServersClock() async throws {
        let tokens = try await server.uploadAssets(WireAssetsUploadRequest(context: rawContext(john), tokens: [
            WireAssetUploadTokenRequest(recordName: "p", recordType: "Photo", fieldName: "image"),
            WireAssetUploadTokenRequest(recordName: "q", recordType: "Photo", fieldName: "image"),
        ]))
        clock.advance(by: WireLimits.assetUploadLifetime - 1)
        let early = try await server.uploadAssetFile(WireAssetFileUploadRequest(url: tokens.tokens[0].url, data: bytes))
        XCTAssertNotNil(early.singleFile.receipt, "still valid a second before fifteen minutes")
        clock.advance(by: 1)
        do {
            _ = try await server.uploadAssetFile(WireAssetFileUploadRequest(url: tokens.tokens[1].url, data: bytes))
            XCTFail("an expired upload URL was accepted")
        } catch {
            XCTAssertEqual(error.code, .invalidArguments)
            XCTAssertTrue(error.message.contains("expired"), error.message)
        }
    }

    func testAReceiptNoSaveUsedExpiresAndItsBytesAreReleased() async throws {
        let asset = try await rawUpload(bytes, recordName: "p", to: john)
        XCTAssertEqual(server.assets.storedFileNames, [SHA256.hex(bytes)], "held for the save to come")
        clock.advance(by: WireLimits.assetUploadLifetime)
        assertRefused(try await rawSave(photo("p", asset), to: john), .invalidArguments, mentioning: "expired")
        XCTAssertEqual(server.assets.storedFileNames, [], "bytes no save took are not kept")
        XCTAssertEqual(server.assets.pendingUploadCount, 0)
    }

    func testASavedAssetOutlivesItsReceiptAndGoesWithItsRecord() async throws {
        let asset = try await rawUpload(bytes, recordName: "p", to: john)
        _ = try await rawSave(photo("p", asset), to: john).get()
        XCTAssertEqual(server.assets.pendingUploadCount, 0, "the save took the upload's hold over")
        clock.advance(by: 2 * WireLimits.assetUploadLifetime)
        let fetched = try await lookUp("p")
        let downloaded = try await download(fetched)
        XCTAssertEqual(downloaded, bytes)

        _ = try await server.modifyRecords(WireRecordsModifyRequest(context: rawContext(john), deletes: [WireRecordID(recordName: "p")]))
        XCTAssertEqual(server.assets.storedFileNames, [])
        do {
            _ = try await download(fetched)
            XCTFail("bytes no record holds were downloaded")
        } catch let error as WireError {
            XCTAssertEqual(error.code, .assetNotAvailable, error.message)
        }
    }

    func testAForgedOrExpiredDownloadURLIsRefused() async throws {
        let asset = try await rawUpload(bytes, recordName: "p", to: john)
        _ = try await rawSave(photo("p", asset), to: john).get()
        let fetched = try await lookUp("p")
        guard case .asset(let shown)? = fetched.fields["image"], let url = shown.downloadURL else { return XCTFail("no download URL") }
        for forged in [url + "A", url.replacingOccurrences(of: "/download/", with: "/upload/"), "stratus://embedded/assets/1/download/", "not a url at all"] {
            do {
                _ = try await server.downloadAssetFile(WireAssetFileDownloadRequest(url: forged))
                XCTFail("\(forged) was accepted")
            } catch {
                XCTAssertEqual(error.code, .invalidArguments, forged)
            }
        }
        clock.advance(by: WireLimits.assetUploadLifetime)
        do {
            _ = try await server.downloadAssetFile(WireAssetFileDownloadRequest(url: url))
            XCTFail("an expired download URL was accepted")
        } catch {
            XCTAssertEqual(error.code, .invalidArguments)
            XCTAssertTrue(error.message.contains("expired"), error.message)
        }
    }

    // MARK: - Limits

    func testAnUploadOverFiftyMegabytesIsRefusedAndNothingIsStored() async throws {
        let tokens = try await server.uploadAssets(WireAssetsUploadRequest(context: rawContext(john), tokens: [
            WireAssetUploadTokenRequest(recordName: "big", recordType: "Photo", fieldName: "image"),
        ]))
        let url = try XCTUnwrap(tokens.tokens.first?.url)
        do {
            _ = try await server.uploadAssetFile(WireAssetFileUploadRequest(url: url, data: Data(count: WireLimits.maximumAssetBytes + 1)))
            XCTFail("an upload over the limit was accepted")
        } catch {
            XCTAssertEqual(error.code, .limitExceeded)
            XCTAssertTrue(error.message.contains("\(WireLimits.maximumAssetBytes + 1) bytes"), error.message)
        }
        XCTAssertEqual(server.assets.storedFileNames, [])
    }

    func testMoreThanTwoHundredTokensAreRefused() async throws {
        func tokens(_ count: Int) -> [WireAssetUploadTokenRequest] {
            (0..<count).map { WireAssetUploadTokenRequest(recordName: "p\($0)", recordType: "Photo", fieldName: "image") }
        }
        let allowed = try await server.uploadAssets(WireAssetsUploadRequest(context: rawContext(john), tokens: tokens(200)))
        XCTAssertEqual(allowed.tokens.count, 200)
        do {
            _ = try await server.uploadAssets(WireAssetsUploadRequest(context: rawContext(john), tokens: tokens(201)))
            XCTFail("201 tokens were handed out")
        } catch {
            XCTAssertEqual(error.code, .limitExceeded)
            XCTAssertTrue(error.message.contains("200"), error.message)
        }
    }

    func testTokensNeedAnAccountAndValidNames() async throws {
        let guest = device(nil).privateCloudDatabase
        do {
            _ = try await server.uploadAssets(WireAssetsUploadRequest(context: rawContext(guest), tokens: [
                WireAssetUploadTokenRequest(recordName: "p", recordType: "Photo", fieldName: "image"),
            ]))
            XCTFail("a device without an account got tokens")
        } catch {
            XCTAssertEqual(error.code, .notAuthenticated)
        }
        for bad in [
            WireAssetUploadTokenRequest(recordName: "p", recordType: "Photo", fieldName: "_image"),
            WireAssetUploadTokenRequest(recordName: "", recordType: "Photo", fieldName: "image"),
            WireAssetUploadTokenRequest(recordName: "p", recordType: "", fieldName: "image"),
        ] {
            do {
                _ = try await server.uploadAssets(WireAssetsUploadRequest(context: rawContext(john), tokens: [bad]))
                XCTFail("\(bad) got a token")
            } catch {
                XCTAssertEqual(error.code, .invalidArguments, "\(bad)")
            }
        }
    }
}
