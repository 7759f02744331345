import Foundation
import Stratus
import XCTest
import _StratusTestSupport

/// Records decoded from forged archives (bytes changed and the checksum recomputed, so only
/// the payload parser stands between them and the client) are sent straight to the service:
/// whatever the server keeps still follows every rule, and nothing already stored is lost.
final class ForgedSaveFuzzTests: ServerTestCase {
    private func sample() -> WireRecord {
        WireRecord(
            recordID: WireRecordID(recordName: "forged"),
            recordType: "Note",
            fields: [
                "title": .string("Clowns"),
                "count": .int64(12),
                "ratio": .double(0.5),
                "when": .date(Date(timeIntervalSince1970: 1_000)),
                "tags": .list([.string("a"), .string("b")]),
                "scores": .list([.int64(1), .int64(2)]),
                "data": .bytes(Data([1, 2, 3])),
            ],
            encryptedFields: ["secret": .string("s")]
        )
    }

    func testForgedRecordsSentToTheServiceNeverBreakItsRules() async throws {
        let database = device("john").privateCloudDatabase
        let keeper = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "keeper"))
        keeper["title"] = "stays"
        _ = try await database.save(keeper)

        var writer = BinaryWriter()
        sample().write(to: &writer)
        let payload = writer.bytes
        var generator = SeededGenerator(seed: 0xF0F0)
        var decoded = 0
        var stored = 0
        for round in 0..<(300 * stressScale) {
            var damaged = payload
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            var reader = BinaryReader(damaged)
            guard var record = try? WireRecord.read(from: &reader) else { continue }
            decoded += 1
            record.recordID = WireRecordID(recordName: "forged-\(round)")
            record.changeTag = nil
            let response = try await server.modifyRecords(WireRecordsModifyRequest(
                context: rawContext(database), saves: [WireRecordSave(record: record)], savePolicy: .allKeys, isAtomic: false
            ))
            guard case .success(let saved)? = response.saveResults.first?.result else { continue }
            stored += 1
            XCTAssertNil(WireValidation.checkRecordToSave(WireRecordSave(record: saved)), "the server kept a record its rules refuse: \(saved)")
        }
        XCTAssertGreaterThan(decoded, 0, "no forged payload decoded; the loop tested nothing")
        XCTAssertGreaterThan(stored, 0)
        let kept = try await database.record(for: keeper.recordID)
        XCTAssertEqual(kept["title"] as? String, "stays")
    }
}
