import Stratus
import XCTest

// CloudKit code as apps in the Swift 5 language mode write it, compiled against `import
// Stratus` alone. CloudKit declares its completion-handler methods `@preconcurrency`, so Swift 5
// code may capture and change local state in a handler without warnings; its enums are not
// frozen, so a `switch` with `@unknown default` draws no warning either. The build treats
// warnings as errors, so a declaration that breaks either fails here.

final class Swift5SnippetsTests: XCTestCase {
    func testCompletionHandlersMayCaptureAndChangeLocalState() throws {
        let server = CloudServer(clock: ManualClock())
        let container = server.container(identifier: "iCloud.com.example.clowns", account: "john")
        let database = container.privateCloudDatabase
        let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "bash"))
        party["title"] = "Clowns at the park"

        var savedTag: String?
        var fetchedTitle: String?
        var zoneNames: [String] = []
        var status = CKAccountStatus.couldNotDetermine
        let saved = expectation(description: "saved")
        database.save(party) { record, error in
            XCTAssertNil(error)
            savedTag = record?.recordChangeTag
            saved.fulfill()
        }
        wait(for: [saved], timeout: 10)

        let fetched = expectation(description: "fetched")
        database.fetch(withRecordID: party.recordID) { record, _ in
            fetchedTitle = record?["title"] as? String
            fetched.fulfill()
        }
        let zones = expectation(description: "zones")
        database.fetchAllRecordZones { recordZones, _ in
            zoneNames = (recordZones ?? []).map { $0.zoneID.zoneName }
            zones.fulfill()
        }
        let account = expectation(description: "account")
        container.accountStatus { accountStatus, _ in
            status = accountStatus
            account.fulfill()
        }
        wait(for: [fetched, zones, account], timeout: 10)

        XCTAssertNotNil(savedTag)
        XCTAssertEqual(fetchedTitle, "Clowns at the park")
        XCTAssertEqual(zoneNames, [CKRecordZone.ID.defaultZoneName])
        XCTAssertEqual(status, .available)
    }

    func testOperationBlocksMayShareLocalState() throws {
        let server = CloudServer(clock: ManualClock())
        let database = server.container(identifier: "iCloud.com.example.clowns", account: "john").privateCloudDatabase
        let records = (0..<3).map { CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "note-\($0)")) }
        var savedNames: [String] = []
        var finalError: Error?
        let done = expectation(description: "done")
        let operation = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
        operation.perRecordSaveBlock = { recordID, result in
            if case .success = result { savedNames.append(recordID.recordName) }
        }
        operation.modifyRecordsResultBlock = { result in
            if case .failure(let error) = result { finalError = error }
            done.fulfill()
        }
        database.add(operation)
        wait(for: [done], timeout: 10)
        XCTAssertNil(finalError)
        XCTAssertEqual(savedNames.sorted(), ["note-0", "note-1", "note-2"])
    }

    func testSwitchesOverCloudKitEnumsWithUnknownDefault() {
        func describe(_ status: CKAccountStatus) -> String {
            switch status {
            case .available: return "available"
            case .noAccount: return "no account"
            case .restricted: return "restricted"
            case .couldNotDetermine: return "could not determine"
            case .temporarilyUnavailable: return "temporarily unavailable"
            @unknown default: return "unknown"
            }
        }
        func describe(_ scope: CKDatabase.Scope) -> String {
            switch scope {
            case .public: return "public"
            case .private: return "private"
            case .shared: return "shared"
            @unknown default: return "unknown"
            }
        }
        func isTransient(_ code: CKError.Code) -> Bool {
            switch code {
            case .networkUnavailable, .networkFailure, .serviceUnavailable, .requestRateLimited, .zoneBusy:
                return true
            case .internalError, .partialFailure, .badContainer, .missingEntitlement, .notAuthenticated,
                 .permissionFailure, .unknownItem, .invalidArguments, .resultsTruncated, .serverRecordChanged,
                 .serverRejectedRequest, .assetFileNotFound, .assetFileModified, .incompatibleVersion,
                 .constraintViolation, .operationCancelled, .changeTokenExpired, .batchRequestFailed,
                 .badDatabase, .quotaExceeded, .zoneNotFound, .limitExceeded, .userDeletedZone,
                 .tooManyParticipants, .alreadyShared, .referenceViolation, .managedAccountRestricted,
                 .participantMayNeedVerification, .serverResponseLost, .assetNotAvailable,
                 .accountTemporarilyUnavailable, .participantAlreadyInvited:
                return false
            @unknown default:
                return false
            }
        }
        XCTAssertEqual(describe(.available), "available")
        XCTAssertEqual(describe(CKAccountStatus(rawValue: 99) ?? .available), "unknown")
        XCTAssertEqual(describe(.shared), "shared")
        XCTAssertTrue(isTransient(.zoneBusy))
        XCTAssertFalse(isTransient(.unknownItem))
    }
}
