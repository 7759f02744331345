import Foundation
import Stratus
import XCTest

/// `CKOperationGroup` archives as one versioned blob, like every Stratus archivable type: what
/// it encoded comes back, and anything malformed decodes to nil.
final class OperationGroupArchiveTests: XCTestCase {
    private func roundTrip(_ group: CKOperationGroup) throws -> CKOperationGroup {
        let data = try NSKeyedArchiver.archivedData(withRootObject: group, requiringSecureCoding: true)
        return try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKOperationGroup.self, from: data))
    }

    /// A keyed archive whose top level holds `blob` under the blob key, decoded as a group.
    private func decodeGroup(blob: Data?) throws -> CKOperationGroup? {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        if let blob { archiver.encode(blob, forKey: SecureCodingBlob.key) }
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.requiresSecureCoding = true
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        return CKOperationGroup(coder: unarchiver)
    }

    private func blob(of group: CKOperationGroup) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        group.encode(with: archiver)
        archiver.finishEncoding()
        let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        return (unarchiver?.decodeObject(of: NSData.self, forKey: SecureCodingBlob.key) as Data?) ?? Data()
    }

    func testEveryPropertyAndTheSetConfigurationValuesComeBack() throws {
        let group = CKOperationGroup()
        group.name = "Import photos"
        group.quantity = 250
        group.expectedSendSize = .megabytes
        group.expectedReceiveSize = .kilobytes
        group.defaultConfiguration.qualityOfService = .utility
        group.defaultConfiguration.timeoutIntervalForRequest = 30
        group.defaultConfiguration.isLongLived = true

        let decoded = try roundTrip(group)
        XCTAssertEqual(decoded.operationGroupID, group.operationGroupID)
        XCTAssertEqual(decoded.name, "Import photos")
        XCTAssertEqual(decoded.quantity, 250)
        XCTAssertEqual(decoded.expectedSendSize, .megabytes)
        XCTAssertEqual(decoded.expectedReceiveSize, .kilobytes)
        XCTAssertEqual(decoded.defaultConfiguration.qualityOfService, .utility)
        XCTAssertEqual(decoded.defaultConfiguration.timeoutIntervalForRequest, 30)
        XCTAssertTrue(decoded.defaultConfiguration.isLongLived)
        XCTAssertTrue(decoded.defaultConfiguration.allowsCellularAccess)
    }

    func testADecodedGroupGivesItsOperationsOnlyTheValuesItSet() throws {
        let group = CKOperationGroup()
        group.defaultConfiguration.qualityOfService = .background
        let decoded = try roundTrip(group)

        let operation = CKFetchRecordsOperation(recordIDs: [])
        operation.configuration.timeoutIntervalForRequest = 5
        operation.group = decoded
        XCTAssertEqual(operation.qualityOfService, .background, "set on the group")

        let unset = CKFetchRecordsOperation(recordIDs: [])
        unset.configuration.qualityOfService = .userInitiated
        unset.group = try roundTrip(CKOperationGroup())
        XCTAssertEqual(unset.qualityOfService, .userInitiated, "a group that set nothing overrides nothing")
    }

    func testAMissingBlobGivesNil() throws {
        XCTAssertNil(try decodeGroup(blob: nil))
    }

    func testEveryFlippedByteAndEveryTruncationGiveNil() throws {
        let group = CKOperationGroup()
        group.name = "Import"
        let bytes = blob(of: group)
        XCTAssertNotNil(try decodeGroup(blob: bytes))
        for index in bytes.indices {
            var flipped = bytes
            flipped[index] ^= 0x5A
            XCTAssertNil(try decodeGroup(blob: flipped), "byte \(index)")
        }
        for length in 0..<bytes.count {
            XCTAssertNil(try decodeGroup(blob: bytes.prefix(length)), "length \(length)")
        }
    }

    func testTheBlobOfAnotherTypeGivesNil() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        CKRecord.ID(recordName: "not-a-group").encode(with: archiver)
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        XCTAssertNil(CKOperationGroup(coder: unarchiver))
    }
}
