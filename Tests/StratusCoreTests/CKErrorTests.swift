import Foundation
import StratusCore
import XCTest

/// CKError as CloudKit code handles it: codes, userInfo, accessors, matching and bridging.
final class CKErrorTests: XCTestCase {
    func testCodesHaveCloudKitsRawValues() {
        let expected: [(CKError.Code, Int)] = [
            (.internalError, 1), (.partialFailure, 2), (.networkUnavailable, 3), (.networkFailure, 4),
            (.badContainer, 5), (.serviceUnavailable, 6), (.requestRateLimited, 7), (.missingEntitlement, 8),
            (.notAuthenticated, 9), (.permissionFailure, 10), (.unknownItem, 11), (.invalidArguments, 12),
            (.resultsTruncated, 13), (.serverRecordChanged, 14), (.serverRejectedRequest, 15),
            (.assetFileNotFound, 16), (.assetFileModified, 17), (.incompatibleVersion, 18),
            (.constraintViolation, 19), (.operationCancelled, 20), (.changeTokenExpired, 21),
            (.batchRequestFailed, 22), (.zoneBusy, 23), (.badDatabase, 24), (.quotaExceeded, 25),
            (.zoneNotFound, 26), (.limitExceeded, 27), (.userDeletedZone, 28), (.tooManyParticipants, 29),
            (.alreadyShared, 30), (.referenceViolation, 31), (.managedAccountRestricted, 32),
            (.participantMayNeedVerification, 33), (.serverResponseLost, 34), (.assetNotAvailable, 35),
            (.accountTemporarilyUnavailable, 36), (.participantAlreadyInvited, 37),
        ]
        XCTAssertEqual(expected.count, CKError.Code.allCases.count)
        for (code, raw) in expected {
            XCTAssertEqual(code.rawValue, raw, "\(code)")
            XCTAssertEqual(CKError.Code(rawValue: raw), code)
        }
        // As with CloudKit's imported enum, any raw value makes a code; one CloudKit does not
        // define is none of the known codes, and a switch meets it in `@unknown default`.
        for raw in [0, 38] {
            let undefined = CKError.Code(rawValue: raw)
            XCTAssertEqual(undefined.map { CKError.Code.allCases.contains($0) }, false)
            XCTAssertEqual(undefined?.description, "CKErrorCode(rawValue: \(raw))")
        }
    }

    func testStaticShortcutsAreTheCodes() {
        XCTAssertEqual(CKError.zoneBusy, CKError.Code.zoneBusy)
        XCTAssertEqual(CKError.serverRecordChanged, .serverRecordChanged)
        XCTAssertEqual(CKError.participantAlreadyInvited, .participantAlreadyInvited)
    }

    func testUserInfoKeysAndDomainAreCloudKits() {
        XCTAssertEqual(CKErrorDomain, "CKErrorDomain")
        XCTAssertEqual(CKError.errorDomain, "CKErrorDomain")
        XCTAssertEqual(CKPartialErrorsByItemIDKey, "CKPartialErrors")
        XCTAssertEqual(CKErrorRetryAfterKey, "CKRetryAfter")
        XCTAssertEqual(CKRecordChangedErrorServerRecordKey, "ServerRecord")
        XCTAssertEqual(CKRecordChangedErrorClientRecordKey, "ClientRecord")
        XCTAssertEqual(CKRecordChangedErrorAncestorRecordKey, "AncestorRecord")
    }

    func testRetryAfterReadsTheNumberUnderCloudKitsKey() {
        XCTAssertEqual(CKError(.zoneBusy, userInfo: [CKErrorRetryAfterKey: NSNumber(value: 2.5)]).retryAfterSeconds, 2.5)
        XCTAssertEqual(CKError(.serviceUnavailable, userInfo: [CKErrorRetryAfterKey: 3]).retryAfterSeconds, 3)
        XCTAssertNil(CKError(.zoneBusy).retryAfterSeconds)
    }

    func testPartialErrorsAreKeyedByTheItemIDs() throws {
        let saved = CKRecord.ID(recordName: "ok")
        let failed = CKRecord.ID(recordName: "conflict")
        let error = CKError(.partialFailure, userInfo: [
            CKPartialErrorsByItemIDKey: [failed: CKError(.serverRecordChanged)] as [AnyHashable: any Error],
        ])
        let partial = try XCTUnwrap(error.partialErrorsByItemID)
        XCTAssertEqual(partial.count, 1)
        XCTAssertNil(partial[saved])
        let itemError = try XCTUnwrap(partial[CKRecord.ID(recordName: "conflict")] as? CKError)
        XCTAssertEqual(itemError.code, .serverRecordChanged)
        XCTAssertNil(CKError(.zoneBusy).partialErrorsByItemID)
    }

    func testRecordChangedAccessorsReturnTheRecords() {
        let server = CKRecord(recordType: "Party")
        let client = CKRecord(recordType: "Party")
        let ancestor = CKRecord(recordType: "Party")
        let error = CKError(.serverRecordChanged, userInfo: [
            CKRecordChangedErrorServerRecordKey: server,
            CKRecordChangedErrorClientRecordKey: client,
            CKRecordChangedErrorAncestorRecordKey: ancestor,
        ])
        XCTAssertTrue(error.serverRecord === server)
        XCTAssertTrue(error.clientRecord === client)
        XCTAssertTrue(error.ancestorRecord === ancestor)
        XCTAssertNil(CKError(.serverRecordChanged).serverRecord)
    }

    func testCatchByCodeWorksOnAnyError() {
        func fail() throws { throw CKError(.zoneBusy) }
        do {
            try fail()
            XCTFail("no error")
        } catch CKError.requestRateLimited {
            XCTFail("wrong code matched")
        } catch CKError.zoneBusy {
            // expected
        } catch {
            XCTFail("not matched: \(error)")
        }
        let error: any Error = CKError(.unknownItem)
        switch error {
        case CKError.zoneBusy: XCTFail("wrong case")
        case CKError.unknownItem: break
        default: XCTFail("not matched")
        }
        XCTAssertFalse(CKError.Code.zoneBusy ~= (CocoaError(.fileNoSuchFile) as any Error))
    }

    func testCatchAsCKErrorAndSwitchOnTheCode() {
        do {
            throw CKError(.limitExceeded)
        } catch let error as CKError {
            switch error.code {
            case .limitExceeded: break
            default: XCTFail("wrong code \(error.code)")
            }
        } catch {
            XCTFail("not a CKError")
        }
    }

    func testLocalizedDescriptionCarriesTheMessageAlsoThroughAnyError() {
        let error = CKError(.invalidArguments, userInfo: [NSLocalizedDescriptionKey: "field key '_x' is reserved"])
        XCTAssertEqual(error.localizedDescription, "field key '_x' is reserved")
        let erased: any Error = error
        XCTAssertEqual(erased.localizedDescription, "field key '_x' is reserved")
        XCTAssertEqual((erased as NSError).localizedDescription, "field key '_x' is reserved")
    }

    func testEveryCodeHasADefaultMessageADeveloperCanActOn() {
        for code in CKError.Code.allCases {
            let erased: any Error = CKError(code)
            XCTAssertFalse(erased.localizedDescription.isEmpty, "\(code)")
            XCTAssertFalse(erased.localizedDescription.contains("CKErrorDomain error"), "\(code): \(erased.localizedDescription)")
        }
        XCTAssertTrue((CKError(.limitExceeded) as any Error).localizedDescription.contains("split"))
    }

    func testBridgesToNSErrorWithDomainCodeAndUserInfo() {
        let error: any Error = CKError(.zoneBusy, userInfo: [CKErrorRetryAfterKey: NSNumber(value: 3)])
        let bridged = error as NSError
        XCTAssertEqual(bridged.domain, "CKErrorDomain")
        XCTAssertEqual(bridged.code, 23)
        XCTAssertEqual((bridged.userInfo[CKErrorRetryAfterKey] as? NSNumber)?.doubleValue, 3)
    }

    func testErrorsStaySwiftValuesThroughAnyError() throws {
        let erased: any Error = CKError(.quotaExceeded)
        let cast = try XCTUnwrap(erased as? CKError)
        XCTAssertEqual(cast.code, .quotaExceeded)
    }

    func testEqualityComparesCodeAndUserInfo() {
        XCTAssertEqual(CKError(.zoneBusy), CKError(.zoneBusy))
        XCTAssertNotEqual(CKError(.zoneBusy), CKError(.serviceUnavailable))
        XCTAssertNotEqual(CKError(.zoneBusy, userInfo: [CKErrorRetryAfterKey: 1]), CKError(.zoneBusy, userInfo: [CKErrorRetryAfterKey: 2]))
        XCTAssertEqual(Set([CKError(.zoneBusy), CKError(.zoneBusy)]).count, 1)
    }

    func testDescriptionNamesTheCodeAndRetryAfter() {
        let text = CKError(.zoneBusy, userInfo: [CKErrorRetryAfterKey: 2]).description
        XCTAssertTrue(text.contains("23"), text)
        XCTAssertTrue(text.contains("Zone Busy"), text)
        XCTAssertTrue(text.contains("retry after 2.0"), text)
    }
}
