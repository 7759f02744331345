import Stratus
import XCTest

// Error handling as CloudKit's documentation and the 2015 "CloudKit Tips and Tricks" talk write it.

final class ErrorHandlingSnippetsTests: XCTestCase {
    private enum Next: Equatable {
        case retry(after: Double)
        case merge(String?)
        case splitBatch
        case resetToken
        case giveUp(Int)
    }

    /// The shape of most apps' CloudKit error handler.
    private func next(after error: Error) -> Next {
        guard let ckError = error as? CKError else { return .giveUp(-1) }
        switch ckError.code {
        case .networkUnavailable, .networkFailure, .serviceUnavailable, .requestRateLimited, .zoneBusy:
            return .retry(after: ckError.retryAfterSeconds ?? 1)
        case .serverRecordChanged:
            guard let serverRecord = ckError.serverRecord, let clientRecord = ckError.clientRecord else { return .giveUp(14) }
            serverRecord["title"] = clientRecord["title"]
            return .merge(serverRecord["title"] as? String)
        case .limitExceeded:
            return .splitBatch
        case .changeTokenExpired:
            return .resetToken
        default:
            return .giveUp(ckError.errorCode)
        }
    }

    func testRetryableErrorsHonourRetryAfter() {
        XCTAssertEqual(next(after: CKError(.zoneBusy, userInfo: [CKErrorRetryAfterKey: 3.0])), .retry(after: 3))
        XCTAssertEqual(next(after: CKError(.networkFailure)), .retry(after: 1))
    }

    func testConflictIsMergedIntoTheServerRecord() {
        let server = CKRecord(recordType: "Note")
        server["title"] = "server"
        let client = CKRecord(recordType: "Note")
        client["title"] = "client"
        let error = CKError(.serverRecordChanged, userInfo: [
            CKRecordChangedErrorServerRecordKey: server,
            CKRecordChangedErrorClientRecordKey: client,
        ])
        XCTAssertEqual(next(after: error), .merge("client"))
    }

    func testOtherCodesAreHandledByCode() {
        XCTAssertEqual(next(after: CKError(.limitExceeded)), .splitBatch)
        XCTAssertEqual(next(after: CKError(.changeTokenExpired)), .resetToken)
        XCTAssertEqual(next(after: CKError(.permissionFailure)), .giveUp(10))
    }

    func testCatchClausesByCode() {
        var caught: [String] = []
        for error in [CKError(.notAuthenticated), CKError(.quotaExceeded), CKError(.unknownItem)] {
            do {
                throw error
            } catch CKError.notAuthenticated {
                caught.append("sign in")
            } catch CKError.quotaExceeded {
                caught.append("free space")
            } catch let error as CKError {
                caught.append("code \(error.code.rawValue)")
            } catch {
                caught.append("other")
            }
        }
        XCTAssertEqual(caught, ["sign in", "free space", "code 11"])
    }

    /// Walking a partial failure's per-item errors, as batch code does.
    func testPartialFailureWalk() {
        let failedID = CKRecord.ID(recordName: "b")
        let error: Error = CKError(.partialFailure, userInfo: [
            CKPartialErrorsByItemIDKey: [failedID: CKError(.serverRecordChanged)] as [AnyHashable: Error],
        ])
        var conflicts: [CKRecord.ID] = []
        if let ckError = error as? CKError, ckError.code == .partialFailure,
           let partialErrors = ckError.partialErrorsByItemID {
            for (itemID, itemError) in partialErrors {
                if let recordID = itemID as? CKRecord.ID, (itemError as? CKError)?.code == .serverRecordChanged {
                    conflicts.append(recordID)
                }
            }
        }
        XCTAssertEqual(conflicts, [failedID])
    }

    func testAccountChangeNotificationName() {
        let name: Notification.Name = .CKAccountChanged
        XCTAssertEqual(name, Notification.Name.CKAccountChanged)
    }
}
