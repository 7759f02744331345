import Foundation

// A whole-request error over HTTP: a non-2xx status and CKWS's error object as the body
// (§6.1 and §6.2 of the reference). Per-item errors stay inside a 200 answer.

extension WireError {
    /// The HTTP status this error goes out with as a whole-request error: the status CKWS gives
    /// its ``serverErrorCode(for:)`` (`BAD_REQUEST` 400, `AUTHENTICATION_REQUIRED` 421,
    /// `THROTTLED` 429, `TRY_AGAIN_LATER` 503, …).
    public var httpStatus: Int {
        Self.httpStatus(forServerErrorCode: Self.serverErrorCode(for: code))
    }

    /// The HTTP status CKWS answers a whole-request error of `serverErrorCode` with; 500 for a
    /// code CKWS does not have. `UNIQUE_FIELD_ERROR`, which only CloudKit JS lists, is a
    /// conflict (409), as `EXISTS` is.
    public static func httpStatus(forServerErrorCode serverErrorCode: String) -> Int {
        switch serverErrorCode {
        case "ATOMIC_ERROR", "BAD_REQUEST": 400
        case "AUTHENTICATION_FAILED": 401
        case "ACCESS_DENIED": 403
        case "NOT_FOUND", "ZONE_NOT_FOUND": 404
        case "CONFLICT", "EXISTS", "UNIQUE_FIELD_ERROR": 409
        case "VALIDATING_REFERENCE_ERROR": 412
        case "QUOTA_EXCEEDED": 413
        case "AUTHENTICATION_REQUIRED": 421
        case "THROTTLED": 429
        case "TRY_AGAIN_LATER": 503
        default: 500
        }
    }

    /// The `CKError` code a non-2xx status means when the body is not a CKWS error object
    /// (the reference's last rule): 400 `invalidArguments`, 401 and 421 `notAuthenticated`,
    /// 403 `permissionFailure`, 404 `unknownItem`, 409 `serverRecordChanged`, 412
    /// `referenceViolation`, 413 `quotaExceeded`, 429 `requestRateLimited`, any 5xx
    /// `serviceUnavailable`; any other status `internalError`.
    public static func code(forHTTPStatus status: Int) -> CKErrorCode {
        switch status {
        case 400: .invalidArguments
        case 401, 421: .notAuthenticated
        case 403: .permissionFailure
        case 404: .unknownItem
        case 409: .serverRecordChanged
        case 412: .referenceViolation
        case 413: .quotaExceeded
        case 429: .requestRateLimited
        case 500...599: .serviceUnavailable
        default: .internalError
        }
    }

    /// The error a non-2xx answer carries: its body read as a CKWS error object, or, when the
    /// body is not one (empty, HTML from a proxy, malformed), the error its status means
    /// (``code(forHTTPStatus:)``), with the status in the message.
    public init(httpStatus status: Int, body: Data) {
        if let error = try? WireJSON.decode(WireError.self, from: body) {
            self = error
        } else {
            self.init(Self.code(forHTTPStatus: status), "the service answered HTTP \(status) without a CloudKit error")
        }
    }
}
