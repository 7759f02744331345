import Foundation
import Stratus
import Synchronization
import XCTest
import _StratusTestSupport

/// Fetching zone and database changes with tokens, through the operations and the
/// convenience methods.
final class ChangeOperationsTests: OperationTestCase {
    private let notes = CKRecordZone.ID(zoneName: "Notes")

    private func zoneNote(_ name: String, _ text: String = "text", in zone: CKRecordZone.ID? = nil) -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: zone ?? notes))
        record["text"] = text
        return record
    }

    private func makeZone(_ zoneID: CKRecordZone.ID? = nil) async throws {
        _ = try await database.save(CKRecordZone(zoneID: zoneID ?? notes))
    }

    func testRecordZoneChangesReturnsWhatChangedSinceTheToken() async throws {
        try await makeZone()
        _ = try await database.modifyRecords(saving: [zoneNote("a"), zoneNote("b")], deleting: [])
        let first = try await database.recordZoneChanges(inZoneWith: notes, since: nil)
        XCTAssertEqual(Set(first.modificationResultsByID.keys.map(\.recordName)), ["a", "b"])
        XCTAssertTrue(first.deletions.isEmpty)
        XCTAssertFalse(first.moreComing)

        let a = try XCTUnwrap(try first.modificationResultsByID[CKRecord.ID(recordName: "a", zoneID: notes)]?.get().record)
        a["text"] = "edited"
        _ = try await database.save(a)
        _ = try await database.deleteRecord(withID: CKRecord.ID(recordName: "b", zoneID: notes))
        let second = try await database.recordZoneChanges(inZoneWith: notes, since: first.changeToken)
        XCTAssertEqual(try second.modificationResultsByID.values.map { try $0.get().record["text"] as? String }, ["edited"])
        XCTAssertEqual(second.deletions.map(\.recordID), [CKRecord.ID(recordName: "b", zoneID: notes)])
        XCTAssertEqual(second.deletions.map(\.recordType), ["Note"])

        let third = try await database.recordZoneChanges(inZoneWith: notes, since: second.changeToken)
        XCTAssertTrue(third.modificationResultsByID.isEmpty && third.deletions.isEmpty)
    }

    func testOneBatchAtATimeWithoutFetchAllChanges() async throws {
        try await makeZone()
        _ = try await database.modifyRecords(saving: (0..<5).map { zoneNote("n\($0)") }, deleting: [])
        let requestsBefore = server.requestCount
        let first = try await database.recordZoneChanges(inZoneWith: notes, since: nil, resultsLimit: 2)
        XCTAssertEqual(first.modificationResultsByID.count, 2)
        XCTAssertTrue(first.moreComing)
        var token = first.changeToken
        var seen = Set(first.modificationResultsByID.keys.map(\.recordName))
        var more = true
        while more {
            let batch = try await database.recordZoneChanges(inZoneWith: notes, since: token, resultsLimit: 2)
            seen.formUnion(batch.modificationResultsByID.keys.map(\.recordName))
            token = batch.changeToken
            more = batch.moreComing
        }
        XCTAssertEqual(seen, Set((0..<5).map { "n\($0)" }))
        XCTAssertEqual(server.requestCount - requestsBefore, 3)
    }

    func testTheOperationLoopsBatchesInCloudKitsOrder() async throws {
        try await makeZone()
        _ = try await database.modifyRecords(saving: (0..<5).map { zoneNote("n\($0)") }, deleting: [])
        _ = try await database.deleteRecord(withID: CKRecord.ID(recordName: "n0", zoneID: notes))
        let log = EventLog()
        let done = expectation(description: "final")
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [notes], configurationsByRecordZoneID: [notes: .init(resultsLimit: 2)])
        operation.recordWasChangedBlock = { recordID, _ in log.append("changed \(recordID.recordName)") }
        operation.recordWithIDWasDeletedBlock = { recordID, type in log.append("deleted \(recordID.recordName) \(type)") }
        operation.recordZoneChangeTokensUpdatedBlock = { _, token, _ in log.append("checkpoint \(token != nil)") }
        operation.recordZoneFetchResultBlock = { _, result in log.append("zone \((try? result.get().moreComing).map { "moreComing=\($0)" } ?? "failed")") }
        operation.fetchRecordZoneChangesResultBlock = { result in
            log.append("final \((try? result.get()) != nil ? "ok" : "failed")")
            done.fulfill()
        }
        let requestsBefore = server.requestCount
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, [
            "changed n1", "changed n2", "checkpoint true",
            "changed n3", "changed n4", "checkpoint true",
            "deleted n0 Note", "zone moreComing=false",
            "final ok",
        ])
        XCTAssertEqual(server.requestCount - requestsBefore, 3, "one request per batch")
    }

    func testAMissingZoneFailsAloneAndTheFinalResultIsAPartialFailureByZone() async throws {
        try await makeZone()
        _ = try await database.save(zoneNote("a"))
        let missing = CKRecordZone.ID(zoneName: "Missing")
        let results = Captured<[String]>([])
        let final = Captured<(any Error)?>(nil)
        let done = expectation(description: "final")
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [missing, notes])
        operation.recordZoneFetchResultBlock = { zoneID, result in
            results.value.append("\(zoneID.zoneName) \((try? result.get()) == nil ? ((result.failureCode).map { "\($0)" } ?? "?") : "ok")")
        }
        operation.fetchRecordZoneChangesResultBlock = { result in
            if case .failure(let error) = result { final.value = error }
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(results.value, ["Missing zoneNotFound", "Notes ok"])
        let error = try XCTUnwrap(final.value as? CKError)
        XCTAssertEqual(error.code, .partialFailure)
        XCTAssertEqual((error.partialErrorsByItemID?[missing] as? CKError)?.code, .zoneNotFound)
    }

    func testLegacyBlocksRunWhenTheModernOnesAreNotSet() async throws {
        try await makeZone()
        _ = try await database.save(zoneNote("a"))
        let log = EventLog()
        let done = expectation(description: "final")
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [notes])
        let legacy = operation as any LegacyRecordZoneChangesBlocks
        legacy.recordChangedBlock = { log.append("changed \($0.recordID.recordName)") }
        legacy.recordZoneFetchCompletionBlock = { zoneID, token, _, more, error in log.append("zone \(zoneID.zoneName) \(token != nil) \(more) \(error == nil)") }
        legacy.fetchRecordZoneChangesCompletionBlock = { error in
            log.append("final \(error == nil)")
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["changed a", "zone Notes true false true", "final true"])
    }

    func testAnExpiredTokenThrowsAndNilRecovers() async throws {
        try await makeZone()
        server.changeHistoryLimit = 0
        _ = try await database.save(zoneNote("kept"))
        let old = try await database.recordZoneChanges(inZoneWith: notes, since: nil).changeToken
        for index in 0..<20 {
            _ = try await database.save(zoneNote("gone-\(index)"))
            _ = try await database.deleteRecord(withID: CKRecord.ID(recordName: "gone-\(index)", zoneID: notes))
        }
        do {
            _ = try await database.recordZoneChanges(inZoneWith: notes, since: old)
            XCTFail("an expired token was accepted")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .changeTokenExpired)
        }
        let recovered = try await database.recordZoneChanges(inZoneWith: notes, since: nil)
        XCTAssertEqual(recovered.modificationResultsByID.keys.map(\.recordName), ["kept"])
    }

    func testChangesCannotBeFetchedFromTheDefaultZoneOrThePublicDatabase() async throws {
        do {
            _ = try await database.recordZoneChanges(inZoneWith: .default, since: nil)
            XCTFail("the default zone gave changes")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .invalidArguments)
        }
        do {
            _ = try await database.container.publicCloudDatabase.databaseChanges(since: nil)
            XCTFail("the public database gave changes")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .badDatabase)
        }
    }

    func testDatabaseChangesReportZonesAndTheOperationCheckpoints() async throws {
        try await makeZone()
        let trips = CKRecordZone.ID(zoneName: "Trips")
        try await makeZone(trips)
        let first = try await database.databaseChanges(since: nil)
        XCTAssertEqual(Set(first.modifications.map(\.zoneID.zoneName)), ["Notes", "Trips"])
        _ = try await database.deleteRecordZone(withID: trips)
        _ = try await database.save(zoneNote("a"))
        let second = try await database.databaseChanges(since: first.changeToken)
        XCTAssertEqual(second.deletions.map(\.zoneID), [trips])
        XCTAssertEqual(second.deletions.map(\.reason), [.deleted])
        XCTAssertEqual(second.modifications.map(\.zoneID.zoneName), ["Notes"])

        let log = EventLog()
        let done = expectation(description: "final")
        let operation = CKFetchDatabaseChangesOperation(previousServerChangeToken: nil)
        operation.resultsLimit = 1
        operation.recordZoneWithIDChangedBlock = { log.append("changed \($0.zoneName)") }
        operation.recordZoneWithIDWasDeletedBlock = { log.append("deleted \($0.zoneName)") }
        operation.changeTokenUpdatedBlock = { _ in log.append("checkpoint") }
        operation.fetchDatabaseChangesResultBlock = { result in
            log.append("final \((try? result.get().moreComing).map { "\($0)" } ?? "failed")")
            done.fulfill()
        }
        database.add(operation)
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(log.all, ["deleted Trips", "checkpoint", "changed Notes", "final false"])
    }
}
