import Foundation
import Stratus
import XCTest

/// The rules of a modify request hold at the `CloudService` boundary, whatever a client
/// checked first, and the client and the server answer alike.
final class ServerRuleTests: ServerTestCase {
    private func wireNote(_ name: String, zone: WireZoneID = .defaultZone, key: String = "text") -> WireRecordSave {
        WireRecordSave(record: WireRecord(recordID: WireRecordID(recordName: name, zoneID: zone), recordType: "Note", fields: [key: .string(name)]))
    }

    private func codes(_ response: WireRecordsModifyResponse) -> (saves: [CKErrorCode?], deletes: [CKErrorCode?]) {
        (response.saveResults.map { (try? $0.result.get()) == nil ? $0.result.errorCode : nil },
         response.deleteResults.map { (try? $0.result.get()) == nil ? $0.result.errorCode : nil })
    }

    func testTheSameRecordTwiceInOneRequestFailsEveryOneOfItsItems() async throws {
        let database = device("john").privateCloudDatabase
        let response = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database),
            saves: [wireNote("twice"), wireNote("twice"), wireNote("once")],
            deletes: [WireRecordID(recordName: "saved-and-deleted")],
            isAtomic: false
        ))
        XCTAssertEqual(codes(response).saves, [.invalidArguments, .invalidArguments, nil])
        let both = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database),
            saves: [wireNote("both")],
            deletes: [WireRecordID(recordName: "both")],
            isAtomic: false
        ))
        XCTAssertEqual(codes(both).saves, [.invalidArguments])
        XCTAssertEqual(codes(both).deletes, [.invalidArguments])
        await assertThrowsCKError(.unknownItem) { try await database.record(for: CKRecord.ID(recordName: "twice")) }
    }

    func testAnAtomicRequestWithABrokenRuleFailsItsZoneEvenTheDefaultZone() async throws {
        let database = device("john").privateCloudDatabase
        let response = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database),
            saves: [wireNote("bad", key: "_reserved"), wireNote("good")],
            isAtomic: true
        ))
        XCTAssertEqual(codes(response).saves, [.invalidArguments, .batchRequestFailed])
        await assertThrowsCKError(.unknownItem) { try await database.record(for: CKRecord.ID(recordName: "good")) }

        // The client, checking first, gives the same answers without a request.
        let before = server.requestCount
        let bad = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "bad"))
        bad["text"] = "x"
        bad.encryptedValues["ref"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "good"), action: .none)
        let good = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "good"))
        let failure = await assertThrowsCKError(.partialFailure) {
            try await database.modifyRecords(saving: [bad, good], deleting: [], atomically: true)
        }
        let itemErrors = failure?.partialErrorsByItemID ?? [:]
        XCTAssertEqual((itemErrors[bad.recordID] as? CKError)?.code, .invalidArguments)
        XCTAssertEqual((itemErrors[good.recordID] as? CKError)?.code, .batchRequestFailed)
        XCTAssertEqual(server.requestCount, before)
    }

    func testAConflictFailsOnlyItsItemInTheDefaultZoneButTheWholeAtomicZone() async throws {
        let database = device("john").privateCloudDatabase
        _ = try await server.modifyRecords(WireRecordsModifyRequest(context: rawContext(database), saves: [wireNote("existing")]))
        let defaultZone = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database),
            saves: [wireNote("existing"), wireNote("new")],
            isAtomic: true
        ))
        XCTAssertEqual(codes(defaultZone).saves, [.serverRecordChanged, nil], "the default zone is not atomic")

        _ = try await database.save(CKRecordZone(zoneName: "Trips"))
        let trips = WireZoneID(zoneName: "Trips")
        _ = try await server.modifyRecords(WireRecordsModifyRequest(context: rawContext(database), saves: [wireNote("existing", zone: trips)]))
        let atomicZone = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database),
            saves: [wireNote("existing", zone: trips), wireNote("new", zone: trips)],
            isAtomic: true
        ))
        XCTAssertEqual(codes(atomicZone).saves, [.serverRecordChanged, .batchRequestFailed])
        let nonAtomic = try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database),
            saves: [wireNote("existing", zone: trips), wireNote("new", zone: trips)],
            isAtomic: false
        ))
        XCTAssertEqual(codes(nonAtomic).saves, [.serverRecordChanged, nil])
    }
}

private extension Result where Failure == WireError {
    var errorCode: CKErrorCode? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
