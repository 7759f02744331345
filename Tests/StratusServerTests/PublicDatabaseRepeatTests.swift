import Foundation
@_spi(Testing) import Stratus
import XCTest

/// A modify request resent with the same `clientChangeTokenData` after its answer was lost is
/// recognised in the public database too: a save the server holds exactly as sent, written by
/// the caller, is answered saved and not written again; anything else is applied as a new
/// request, under the security roles.
final class PublicDatabaseRepeatTests: ServerTestCase {
    private var alice: CKDatabase!

    override func setUp() {
        super.setUp()
        server.isRecordingWrites = true
        alice = device("alice").publicCloudDatabase
    }

    override func tearDown() {
        alice = nil
        super.tearDown()
    }

    private func note(_ name: String, text: String, tag: String? = nil) -> WireRecordSave {
        WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: name), recordType: "Note", changeTag: tag, fields: ["text": .string(text)]))
    }

    private func send(_ saves: [WireRecordSave], from database: CKDatabase, token: Data?) async throws -> [Result<WireRecord, WireError>] {
        let response = try await server.modifyRecords(WireRecordsModifyRequest(context: rawContext(database), saves: saves, clientChangeTokenData: token))
        return response.saveResults.map(\.result)
    }

    func testANewRecordSavedAgainWithTheSameTokenIsAnsweredSavedAndWrittenOnce() async throws {
        let first = try await send([note("n", text: "hello")], from: alice, token: Data([1])).first?.get()
        let again = try await send([note("n", text: "hello")], from: alice, token: Data([1])).first?.get()

        XCTAssertEqual(again?.changeTag, first?.changeTag, "the answer is the record as the server holds it")
        XCTAssertEqual(again?.fields["text"], .string("hello"))
        XCTAssertEqual(again?.creatorUserRecordName, WireZoneID.currentUserOwnerName)
        XCTAssertEqual(server.recordedWrites.count, 1, "the repeat wrote nothing")
    }

    func testAnUpdateSavedAgainWithTheSameTokenIsAnsweredSavedAndWrittenOnce() async throws {
        let sent = try await send([note("n", text: "one")], from: alice, token: Data([1]))
        let created = try XCTUnwrap(try sent.first?.get())
        let update = note("n", text: "two", tag: created.changeTag)
        let updated = try await send([update], from: alice, token: Data([2])).first?.get()
        let again = try await send([update], from: alice, token: Data([2])).first?.get()

        XCTAssertEqual(again?.changeTag, updated?.changeTag)
        XCTAssertEqual(server.recordedWrites.count, 2)
    }

    func testASaveWithAnAssetSavedAgainWithTheSameTokenIsAnsweredSaved() async throws {
        let asset = try await rawUpload(Data("a photo".utf8), recordName: "p", to: alice)
        let photo = WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: "p"), recordType: "Photo", fields: ["image": .asset(asset)]))

        let first = try await send([photo], from: alice, token: Data([1])).first?.get()
        let again = try await send([photo], from: alice, token: Data([1])).first?.get()

        XCTAssertEqual(again?.changeTag, first?.changeTag, "the same bytes are what the server holds")
        XCTAssertEqual(server.recordedWrites.count, 1)
    }

    func testARepeatIsAppliedAsNewOnceTheServerNoLongerHoldsWhatWasSent() async throws {
        let sent = try await send([note("n", text: "hello")], from: alice, token: Data([1]))
        let first = try XCTUnwrap(try sent.first?.get())
        // Alice's other device changes the record in between.
        let tablet = device("alice").publicCloudDatabase
        _ = try await send([note("n", text: "changed", tag: first.changeTag)], from: tablet, token: Data([9])).first?.get()

        let again = try await send([note("n", text: "hello")], from: alice, token: Data([1]))

        guard case .failure(let error)? = again.first else { return XCTFail("expected a conflict, got \(again)") }
        XCTAssertEqual(error.code, .serverRecordChanged, "the server no longer holds what was sent: a conflict the app resolves")
        XCTAssertEqual(error.serverRecord?.fields["text"], .string("changed"))
    }

    func testOnlyTheItemsHeldAsSentAreAnsweredAsRepeatsTheOthersAreApplied() async throws {
        _ = try await send([note("a", text: "a")], from: alice, token: Data([1]))
        let results = try await send([note("a", text: "a"), note("b", text: "b")], from: alice, token: Data([1]))

        XCTAssertNotNil(try? results[0].get(), "held as sent")
        XCTAssertNotNil(try? results[1].get(), "never saved before: applied")
        XCTAssertEqual(server.recordedWrites.map(\.recordID.recordName), ["a", "b"])
    }

    func testAnotherUsersRecordIsNeverAnsweredAsARepeat() async throws {
        server.setPermissions(RecordPermissions(world: [], authenticated: [.create], creator: [.read, .write]), forRecordType: "Secret", containerIdentifier: identifier)
        let mallory = device("mallory").publicCloudDatabase
        let diary = WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: "diary"), recordType: "Secret", fields: ["text": .string("my secret")]))
        _ = try await send([diary], from: alice, token: nil)
        let mine = WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: "mine"), recordType: "Secret", fields: ["text": .string("mine")]))
        _ = try await send([mine], from: mallory, token: Data([7]))

        // The same fields as alice's record, guessed: still not mallory's write.
        let guess = try await send([diary], from: mallory, token: Data([7]))

        guard case .failure(let error)? = guess.first else { return XCTFail("mallory got alice's record: \(guess)") }
        XCTAssertNotEqual(error.serverRecord?.fields["text"], .string("my secret"))
    }
}
