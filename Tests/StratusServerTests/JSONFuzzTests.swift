import Foundation
import Stratus
import XCTest
import _StratusTestSupport

/// Mangled JSON bodies, decoded as requests and sent to the server as a transport would: every
/// copy either decodes (and the server answers it, or refuses it with a `CKError`) or is refused
/// with `invalidArguments`; nothing crashes, and nothing another user stored changes.
final class JSONFuzzTests: ServerTestCase {
    /// A request body for the fuzz to mangle, and how to send it once decoded.
    private struct Endpoint {
        let name: String
        let body: Data
        let send: (Data, WireRequestContext, CloudServer) async throws(WireError) -> Void
    }

    private func endpoint<Request: Codable, Response>(
        _ name: String,
        _ request: Request,
        _ call: @escaping (CloudServer, Request) async throws -> Response
    ) throws -> Endpoint {
        Endpoint(name: name, body: try WireJSON.encode(request)) { (data, context, server) async throws(WireError) in
            let decoded = try WireJSON.decode(Request.self, from: data, context: context)
            do {
                _ = try await call(server, decoded)
            } catch let error as WireError {
                throw error
            } catch {
                throw WireError(.internalError, "not a WireError: \(error)")
            }
        }
    }

    /// One valid request per endpoint, on john's private database.
    private func endpoints(_ context: WireRequestContext) throws -> [Endpoint] {
        let zone = WireZoneID(zoneName: "Party")
        var note = WireRecord(recordID: WireRecordID(recordName: "n", zoneID: zone), recordType: "Note", changeTag: "1", fields: [
            "title": .string("hi"), "count": .int64(3), "when": .date(Date(timeIntervalSinceReferenceDate: 7.5e8)),
            "tags": .list([.string("a"), .string("b")]), "place": .location(WireLocation(latitude: 1, longitude: 2)),
            "owner": .reference(WireReference(recordID: WireRecordID(recordName: "o", zoneID: zone), action: .deleteSelf)),
        ])
        note.parent = WireReference(recordID: WireRecordID(recordName: "p", zoneID: zone), action: .none)
        let query = WireQuery(recordType: "Note", predicate: .and([
            .compare(.field("count"), .greater, .value(.int64(1))),
            .beginsWith(.field("title"), "h"),
            .not(.isIn(.field("tags"), [.string("x")])),
        ]), sortDescriptors: [WireSortDescriptor(field: .field("count"), ascending: false)])
        return [
            try endpoint("records/modify", WireRecordsModifyRequest(context: context, saves: [WireRecordSave(record: note, removedKeys: ["old"], parentChanged: true)], deletes: [WireRecordID(recordName: "d", zoneID: zone)], savePolicy: .changedKeys, isAtomic: true, clientChangeTokenData: Data([1, 2]))) { try await $0.modifyRecords($1) },
            try endpoint("records/lookup", WireRecordsLookupRequest(context: context, recordIDs: [note.recordID], desiredKeys: ["title"])) { try await $0.lookupRecords($1) },
            try endpoint("records/query", WireQueryRequest(context: context, query: query, zoneID: zone, resultsLimit: 10)) { try await $0.queryRecords($1) },
            try endpoint("zones/modify", WireZonesModifyRequest(context: context, saves: [WireZone(zoneID: zone)], deletes: [WireZoneID(zoneName: "Old")])) { try await $0.modifyZones($1) },
            try endpoint("changes/zone", WireRecordChangesRequest(context: context, zoneID: zone, sinceToken: nil)) { try await $0.recordChanges($1) },
            try endpoint("changes/database", WireDatabaseChangesRequest(context: context)) { try await $0.databaseChanges($1) },
            try endpoint("subscriptions/modify", WireSubscriptionsModifyRequest(context: context, saves: [WireSubscription(subscriptionID: "s", kind: .query, recordType: "Note", predicate: query.predicate, notificationInfo: WireNotificationInfo(alertBody: "new"))])) { try await $0.modifySubscriptions($1) },
            try endpoint("users/discover", WireUsersLookupRequest(context: context, ids: [WireUserLookupInfo(emailAddress: "a@example.com")])) { try await $0.lookupUsers($1) },
            try endpoint("records/accept", WireAcceptSharesRequest(context: context, ids: ["https://www.icloud.com/share/abc"])) { try await $0.acceptShares($1) },
            try endpoint("assets/upload", WireAssetsUploadRequest(context: context, zoneID: zone, tokens: [WireAssetUploadTokenRequest(recordName: "n", recordType: "Note", fieldName: "photo"), WireAssetUploadTokenRequest(recordName: nil, recordType: "Note", fieldName: "pages")])) { try await $0.uploadAssets($1) },
            try endpoint("assets upload bytes", WireAssetFileUploadRequest(url: "stratus://embedded/assets/1/upload/AQIDBAUGBwgJ", data: Data("clown".utf8))) { try await $0.uploadAssetFile($1) },
            try endpoint("assets download", WireAssetFileDownloadRequest(url: "stratus://embedded/assets/1/download/AQIDBAUGBwgJ")) { try await $0.downloadAssetFile($1) },
            try endpoint("records/modify (asset)", WireRecordsModifyRequest(context: context, saves: [WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: "a", zoneID: zone), recordType: "Note", fields: ["photo": .asset(WireAsset(fileChecksum: String(repeating: "a", count: 64), size: 5, receipt: "AQIDBAUGBwgJ")), "pages": .list([.asset(WireAsset(receipt: "Ag"))])]))])) { try await $0.modifyRecords($1) },
        ]
    }

    /// `body` with one random change: a byte replaced (often by JSON punctuation), dropped,
    /// repeated, or the body cut short.
    private func mangled(_ body: Data, _ random: inout SeededGenerator) -> Data {
        var bytes = [UInt8](body)
        guard !bytes.isEmpty else { return body }
        let index = Int.random(in: 0..<bytes.count, using: &random)
        let punctuation: [UInt8] = Array(#"{}[]:,"0-9e.\ "#.utf8) + [0, 0xFF]
        switch Int.random(in: 0..<5, using: &random) {
        case 0: bytes[index] = punctuation.randomElement(using: &random) ?? 0
        case 1: bytes[index] = UInt8.random(in: 0...255, using: &random)
        case 2: bytes.remove(at: index)
        case 3: bytes.insert(bytes[index], at: index)
        default: bytes = Array(bytes.prefix(index))
        }
        return Data(bytes)
    }

    func testMangledRequestBodiesAreRefusedOrAnsweredNeverACrashAndOtherUsersDataStays() async throws {
        let alice = device("alice").privateCloudDatabase
        let kept = WireRecord(recordID: WireRecordID(recordName: "diary"), recordType: "Note", fields: ["text": .string("mine")])
        let before = try await rawSave(kept, to: alice).get()
        let context = rawContext(device("john").privateCloudDatabase)
        var random = SeededGenerator(seed: 0x15_0000_0014)
        var refused = 0
        var answered = 0
        for endpoint in try endpoints(context) {
            for _ in 0..<(150 * stressScale) {
                do {
                    try await endpoint.send(mangled(endpoint.body, &random), context, server)
                    answered += 1
                } catch where error.code == .invalidArguments {
                    refused += 1
                } catch {
                    answered += 1
                }
            }
        }
        XCTAssertGreaterThan(refused, 0)
        XCTAssertGreaterThan(answered, 0, "some mangled bodies are still requests the server answers")
        let after = try await server.lookupRecords(WireRecordsLookupRequest(context: rawContext(alice), recordIDs: [kept.recordID]))
        XCTAssertEqual(try after.results.first?.result.get(), before, "another user's record is untouched")
    }
}
