@_spi(Testing) import Stratus
import XCTest

/// A fresh server per test, with a clock that moves only when the test advances it, and the
/// devices of the Clown Central story.
class ServerTestCase: XCTestCase {
    let identifier = "iCloud.com.example.clowns"
    var clock: ManualClock!
    var server: CloudServer!

    override func setUp() {
        super.setUp()
        clock = ManualClock()
        server = CloudServer(clock: clock)
    }

    override func tearDown() {
        server = nil
        clock = nil
        super.tearDown()
    }

    func device(_ account: String?) -> CKContainer {
        server.container(identifier: identifier, account: account)
    }

    /// The context a request from `database` made now carries, for tests that call the
    /// `CloudService` directly, as a network transport would, without the client's checks.
    func rawContext(_ database: CKDatabase) -> WireRequestContext {
        database.rawRequestContext()
    }

    /// Saves `record` by calling the `CloudService` directly, without the client's checks, as
    /// a network transport or a forged client would; the one save's result.
    func rawSave(_ record: WireRecord, to database: CKDatabase, policy: WireSavePolicy = .ifServerRecordUnchanged) async throws -> Result<WireRecord, WireError> {
        let response = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database),
            saves: [WireRecordSave(record: record)],
            savePolicy: policy,
            isAtomic: false
        ))
        XCTAssertEqual(response.saveResults.count, 1)
        return response.saveResults.first?.result ?? .failure(WireError(.internalError, "no result"))
    }

    /// Uploads `data` for the field `field` of the record `recordName` by calling the
    /// `CloudService` directly, as a client does before a save: `assets/upload`, then the
    /// bytes to the token's URL. Returns the asset dictionary to save (checksum, size, receipt).
    func rawUpload(
        _ data: Data,
        field: String = "image",
        recordName: String,
        recordType: String = "Photo",
        zoneID: WireZoneID? = nil,
        to database: CKDatabase
    ) async throws -> WireAsset {
        let tokens = try await server.uploadAssets(WireAssetsUploadRequest(
            context: rawContext(database), zoneID: zoneID,
            tokens: [WireAssetUploadTokenRequest(recordName: recordName, recordType: recordType, fieldName: field)]
        ))
        let url = try XCTUnwrap(tokens.tokens.first?.url)
        return try await server.uploadAssetFile(WireAssetFileUploadRequest(url: url, data: data)).singleFile
    }

    /// Asserts that `body` throws a CKError with `code`, and returns it.
    @discardableResult
    func assertThrowsCKError<T>(
        _ code: CKError.Code,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ body: () async throws -> T
    ) async -> CKError? {
        do {
            _ = try await body()
            XCTFail("expected \(code), got success", file: file, line: line)
        } catch let error as CKError {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("expected \(code), got \(error)", file: file, line: line)
        }
        return nil
    }

    /// The CKError code of a failed item result, or nil.
    func code<T>(_ result: Result<T, any Error>?) -> CKError.Code? {
        guard case .failure(let error)? = result else { return nil }
        return (error as? CKError)?.code
    }
}
