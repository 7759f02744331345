import Foundation
import StratusWire
import XCTest

/// Whole-request errors over HTTP: the status each CloudKit Web Services code goes out with
/// (the reference's §6.1), the error a non-2xx answer means with and without CKWS's error
/// object, and every `CKError` code crossing exactly.
final class WireErrorHTTPTests: XCTestCase {
    func testEachCloudKitWebServicesCodeHasTheReferencesStatus() {
        let statuses = [
            "ACCESS_DENIED": 403, "ATOMIC_ERROR": 400, "AUTHENTICATION_FAILED": 401, "AUTHENTICATION_REQUIRED": 421,
            "BAD_REQUEST": 400, "CONFLICT": 409, "EXISTS": 409, "INTERNAL_ERROR": 500, "NOT_FOUND": 404,
            "QUOTA_EXCEEDED": 413, "THROTTLED": 429, "TRY_AGAIN_LATER": 503, "VALIDATING_REFERENCE_ERROR": 412,
            "ZONE_NOT_FOUND": 404, "UNIQUE_FIELD_ERROR": 409,
        ]
        for (code, status) in statuses {
            XCTAssertEqual(WireError.httpStatus(forServerErrorCode: code), status, code)
        }
        XCTAssertEqual(WireError.httpStatus(forServerErrorCode: "SOMETHING_NEW"), 500)
    }

    func testStratusErrorsGoOutWithTheStatusOfTheirNearestCode() {
        XCTAssertEqual(WireError(.notAuthenticated, "sign in").httpStatus, 421)
        XCTAssertEqual(WireError(.requestRateLimited, "slow down", retryAfter: 3).httpStatus, 429)
        XCTAssertEqual(WireError(.zoneBusy, "busy", retryAfter: 1).httpStatus, 503)
        XCTAssertEqual(WireError(.limitExceeded, "too many").httpStatus, 400)
        XCTAssertEqual(WireError(.changeTokenExpired, "old").httpStatus, 400)
        XCTAssertEqual(WireError(.userDeletedZone, "gone").httpStatus, 404)
        XCTAssertEqual(WireError(.participantMayNeedVerification, "who").httpStatus, 403)
    }

    func testEveryCodeCrossesExactlyWithItsStatusAndBody() throws {
        for code in CKErrorCode.allCases {
            let sent = WireError(code, "reason \(code.rawValue)", retryAfter: 2.5)
            let received = WireError(httpStatus: sent.httpStatus, body: try WireJSON.encode(sent))
            XCTAssertEqual(received.code, code)
            XCTAssertEqual(received.message, sent.message)
            XCTAssertEqual(received.retryAfter, 2.5)
        }
    }

    func testAnAppleErrorObjectIsReadByItsServerErrorCode() {
        let body = Data(#"{"uuid":"4C6C","serverErrorCode":"THROTTLED","reason":"slow down","retryAfter":3}"#.utf8)
        let error = WireError(httpStatus: 429, body: body)
        XCTAssertEqual(error.code, .requestRateLimited)
        XCTAssertEqual(error.message, "slow down")
        XCTAssertEqual(error.retryAfter, 3)
    }

    func testAnAnswerWithoutAnErrorObjectMeansWhatItsStatusMeans() {
        let html = Data("<html><body>Bad Gateway</body></html>".utf8)
        let expected: [(Int, CKErrorCode)] = [
            (400, .invalidArguments), (401, .notAuthenticated), (421, .notAuthenticated), (403, .permissionFailure),
            (404, .unknownItem), (409, .serverRecordChanged), (412, .referenceViolation), (413, .quotaExceeded),
            (429, .requestRateLimited), (500, .serviceUnavailable), (502, .serviceUnavailable), (503, .serviceUnavailable),
            (302, .internalError), (418, .internalError),
        ]
        for (status, code) in expected {
            let error = WireError(httpStatus: status, body: html)
            XCTAssertEqual(error.code, code, "\(status)")
            XCTAssertTrue(error.message.contains("HTTP \(status)"), error.message)
            XCTAssertNil(error.retryAfter)
        }
        XCTAssertEqual(WireError(httpStatus: 503, body: Data()).code, .serviceUnavailable)
        XCTAssertEqual(WireError(httpStatus: 400, body: Data(#"{"serverErrorCode":"NO_SUCH_CODE"}"#.utf8)).code, .invalidArguments)
    }
}
