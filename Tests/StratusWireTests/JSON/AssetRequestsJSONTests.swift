import Foundation
@testable import StratusWire
import XCTest

/// The JSON of assets: CloudKit Web Services' asset dictionary (`fileChecksum`, `size`,
/// `receipt` when saving, `downloadURL` when fetching; never a local file), `assets/upload`'s
/// `tokens` both ways, the `singleFile` answer to an upload, and the Stratus extensions for
/// the bytes (`url` and base64 `data`); anything else is `invalidArguments` naming the key.
final class AssetRequestsJSONTests: XCTestCase {
    private let context = WireRequestContext(containerIdentifier: "iCloud.com.example.clowns", database: .private, deviceID: "device-7", sessionToken: "session-9")
    private let party = WireZoneID(zoneName: "Party", ownerName: WireZoneID.currentUserOwnerName)

    // MARK: - The asset dictionary

    func testASavedAssetIsTheDictionaryTheUploadAnsweredAndNoFilePath() throws {
        var asset = WireAsset(fileChecksum: "AX4nZDx", size: 1_024, receipt: "Ab1Cd2")
        asset.localFileURL = URL(fileURLWithPath: "/Users/john/Pictures/clown.jpg")
        let text = try json(WireFieldValue.asset(asset))
        XCTAssertEqual(text, #"{"type":"ASSETID","value":{"fileChecksum":"AX4nZDx","receipt":"Ab1Cd2","size":1024}}"#)
        XCTAssertFalse(text.contains("clown.jpg"), "a local path never crosses")
        let back = try WireJSON.decode(WireFieldValue.self, from: Data(text.utf8))
        XCTAssertEqual(back, .asset(WireAsset(fileChecksum: "AX4nZDx", size: 1_024, receipt: "Ab1Cd2")))
    }

    func testAFetchedAssetFromCloudKitWebServicesDecodesWithItsDownloadURL() throws {
        // The reference's §8: a fetched asset is typed ASSETID and carries a downloadURL; the
        // private database adds wrappingKey and referenceChecksum; unknown keys are ignored.
        let text = #"{"value":{"fileChecksum":"AX4nZDx","size":1024,"wrappingKey":"wK","referenceChecksum":"rC","downloadURL":"https://cvws.icloud-content.com/B/AX4nZDx/${f}?o=x","extra":1},"type":"ASSETID"}"#
        let value = try WireJSON.decode(WireFieldValue.self, from: Data(text.utf8))
        XCTAssertEqual(value, .asset(WireAsset(
            fileChecksum: "AX4nZDx", size: 1_024, wrappingKey: "wK", referenceChecksum: "rC",
            downloadURL: "https://cvws.icloud-content.com/B/AX4nZDx/${f}?o=x"
        )))
        let untyped = try WireJSON.decode(WireFieldValue.self, from: Data(#"{"value":{"fileChecksum":"c","size":1,"receipt":"r"}}"#.utf8))
        XCTAssertEqual(untyped, .asset(WireAsset(fileChecksum: "c", size: 1, receipt: "r")), "an untyped asset dictionary is an asset")
        let list = try WireJSON.decode(WireFieldValue.self, from: Data(#"{"type":"ASSETID_LIST","value":[{"receipt":"a"},{"receipt":"b"}]}"#.utf8))
        XCTAssertEqual(list, .list([.asset(WireAsset(receipt: "a")), .asset(WireAsset(receipt: "b"))]))
    }

    func testAMalformedAssetIsInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireFieldValue.self, #"{"type":"ASSETID","value":{"size":-1}}"#), naming: "size")
        assertInvalid(decodeError(WireFieldValue.self, #"{"type":"ASSETID","value":{"size":"big"}}"#), naming: "size")
        assertInvalid(decodeError(WireFieldValue.self, #"{"type":"ASSETID","value":{"receipt":7}}"#), naming: "receipt")
        assertInvalid(decodeError(WireFieldValue.self, #"{"type":"ASSETID","value":{"downloadURL":[]}}"#), naming: "downloadURL")
    }

    // MARK: - assets/upload

    func testAnUploadRequestIsCloudKitWebServicesTokensAndComesBackExactly() throws {
        let request = WireAssetsUploadRequest(context: context, zoneID: party, tokens: [
            WireAssetUploadTokenRequest(recordName: "photo-1", recordType: "Photo", fieldName: "image"),
            WireAssetUploadTokenRequest(recordName: nil, recordType: "Photo", fieldName: "thumbnail"),
        ])
        let text = try json(request)
        XCTAssertEqual(text, #"{"tokens":[{"fieldName":"image","recordName":"photo-1","recordType":"Photo"},{"fieldName":"thumbnail","recordType":"Photo"}],"zoneID":{"ownerRecordName":"__defaultOwner__","zoneName":"Party"}}"#)
        XCTAssertFalse(text.contains("session-9"), "the context is not in the body")
        let back = try WireJSON.decode(WireAssetsUploadRequest.self, from: Data(text.utf8), context: context)
        XCTAssertEqual(back.tokens, request.tokens)
        XCTAssertEqual(back.zoneID, party)
        XCTAssertEqual(back.context, context)
    }

    func testAnUploadRequestAsTheReferenceWritesItDecodes() throws {
        // The reference's assets/upload row: zoneID optional, recordName optional, fieldName required.
        let text = #"{"tokens":[{"recordType":"Photo","fieldName":"image"}]}"#
        let request = try WireJSON.decode(WireAssetsUploadRequest.self, from: Data(text.utf8), context: context)
        XCTAssertNil(request.zoneID)
        XCTAssertEqual(request.tokens, [WireAssetUploadTokenRequest(recordName: nil, recordType: "Photo", fieldName: "image")])
        assertInvalid(decodeError(WireAssetsUploadRequest.self, #"{"tokens":[{"recordType":"Photo"}]}"#, context: context), naming: "fieldName")
        assertInvalid(decodeError(WireAssetsUploadRequest.self, #"{"zoneID":{}}"#, context: context), naming: "tokens")
        assertInvalid(decodeError(WireAssetsUploadRequest.self, #"{"tokens":[{"recordType":1,"fieldName":"x"}]}"#, context: context), naming: "recordType")
        assertMangledCopiesDecodeOrAreInvalid(WireAssetsUploadRequest.self, text, context: context)
    }

    func testAnUploadResponseIsCloudKitWebServicesTokens() throws {
        let text = #"{"tokens":[{"recordName":"photo-1","fieldName":"image","url":"https://p01-ckdatabasews.icloud.com/upload/abc"}]}"#
        let response = try WireJSON.decode(WireAssetsUploadResponse.self, from: Data(text.utf8))
        XCTAssertEqual(response.tokens, [WireAssetUploadToken(recordName: "photo-1", fieldName: "image", url: "https://p01-ckdatabasews.icloud.com/upload/abc")])
        XCTAssertEqual(try json(response), #"{"tokens":[{"fieldName":"image","recordName":"photo-1","url":"https://p01-ckdatabasews.icloud.com/upload/abc"}]}"#)
        assertInvalid(decodeError(WireAssetsUploadResponse.self, #"{"tokens":[{"recordName":"p","fieldName":"image"}]}"#), naming: "url")
    }

    // MARK: - The bytes

    func testAnUploadOfBytesAndItsSingleFileAnswerComeBackExactly() throws {
        let upload = WireAssetFileUploadRequest(url: "stratus://embedded/assets/1/upload/abc", data: Data("clown".utf8))
        XCTAssertEqual(try json(upload), #"{"data":"Y2xvd24=","url":"stratus://embedded/assets/1/upload/abc"}"#)
        let back = try WireJSON.decode(WireAssetFileUploadRequest.self, from: try WireJSON.encode(upload))
        XCTAssertEqual(back.url, upload.url)
        XCTAssertEqual(back.data, upload.data)
        assertInvalid(decodeError(WireAssetFileUploadRequest.self, #"{"url":"u","data":"not base64!"}"#), naming: "data")
        assertInvalid(decodeError(WireAssetFileUploadRequest.self, #"{"data":""}"#), naming: "url")

        // The reference's §8: the answer to the upload is {"singleFile": {fileChecksum, size, receipt, wrappingKey, referenceChecksum}}.
        let answer = #"{"singleFile":{"fileChecksum":"AX4nZDx","size":5,"receipt":"Ab1Cd2","wrappingKey":"wK","referenceChecksum":"rC"}}"#
        let response = try WireJSON.decode(WireAssetFileUploadResponse.self, from: Data(answer.utf8))
        XCTAssertEqual(response.singleFile, WireAsset(fileChecksum: "AX4nZDx", size: 5, receipt: "Ab1Cd2", wrappingKey: "wK", referenceChecksum: "rC"))
        XCTAssertEqual(try WireJSON.decode(WireAssetFileUploadResponse.self, from: try WireJSON.encode(response)).singleFile, response.singleFile)
        assertInvalid(decodeError(WireAssetFileUploadResponse.self, #"{}"#), naming: "singleFile")
    }

    func testADownloadAndItsBytesComeBackExactly() throws {
        let download = WireAssetFileDownloadRequest(url: "stratus://embedded/assets/1/download/xyz")
        XCTAssertEqual(try json(download), #"{"url":"stratus://embedded/assets/1/download/xyz"}"#)
        XCTAssertEqual(try WireJSON.decode(WireAssetFileDownloadRequest.self, from: try WireJSON.encode(download)).url, download.url)
        let bytes = WireAssetFileDownloadResponse(data: Data(0..<255))
        XCTAssertEqual(try WireJSON.decode(WireAssetFileDownloadResponse.self, from: try WireJSON.encode(bytes)).data, bytes.data)
        assertInvalid(decodeError(WireAssetFileDownloadResponse.self, #"{"data":"%%"}"#), naming: "data")
        assertMangledCopiesDecodeOrAreInvalid(WireAssetFileUploadResponse.self, #"{"singleFile":{"fileChecksum":"c","size":5,"receipt":"r"}}"#)
    }
}
