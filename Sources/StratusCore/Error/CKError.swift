import Foundation

/// An error from Stratus, with CloudKit's codes, domain and userInfo keys.
///
/// Catch it as CloudKit code does; errors stay Swift values all the way from the server to
/// your `catch`:
///
/// ```swift
/// do {
///     try await database.save(record)
/// } catch let error as CKError where error.code == .serverRecordChanged {
///     if let serverRecord = error.serverRecord { … merge into serverRecord and save again … }
/// } catch CKError.zoneBusy, CKError.requestRateLimited {
///     let delay = (error as? CKError)?.retryAfterSeconds ?? 1
/// }
/// ```
///
/// Like CloudKit's, it bridges to `NSError` with domain ``errorDomain`` (`CKErrorDomain`), the
/// code's raw value, and its ``userInfo``. On Linux a Swift error that has gone through `NSError`
/// cannot be cast back, so keep a `CKError` as the Swift value it is.
///
/// ``localizedDescription`` is a message a developer can act on: it names the item, field or
/// limit at fault. Its wording, like ``description``'s, is not a stable format; match on
/// ``code`` instead.
///
/// CloudKit document: *CKError*.
public struct CKError: Error, CustomNSError, Hashable, @unchecked Sendable {
    /// The error's code: what went wrong.
    public let code: Code

    /// Extra information: the message under `NSLocalizedDescriptionKey`, and CloudKit's keys
    /// (``CKErrorRetryAfterKey``, ``CKPartialErrorsByItemIDKey``, the record-changed keys).
    public let userInfo: [String: Any]

    /// Creates an error with a code and extra information.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - userInfo: Extra information; a message under `NSLocalizedDescriptionKey` becomes the
    ///     ``localizedDescription``, and a default message for the code is used when there is none.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    /// `CKErrorDomain`.
    public static var errorDomain: String { CKErrorDomain }

    /// The code's raw value.
    public var errorCode: Int { code.rawValue }

    /// ``userInfo`` with a message under `NSLocalizedDescriptionKey`, which is what `NSError`
    /// and `localizedDescription` read, also through `any Error` on Linux.
    public var errorUserInfo: [String: Any] {
        guard userInfo[NSLocalizedDescriptionKey] == nil else { return userInfo }
        var info = userInfo
        info[NSLocalizedDescriptionKey] = code.defaultMessage
        return info
    }

    /// A message that says what went wrong and, where it helps, what to do next.
    public var localizedDescription: String {
        userInfo[NSLocalizedDescriptionKey] as? String ?? code.defaultMessage
    }

    /// Two errors are equal when their codes and their userInfo are equal, as `NSError`s are.
    public static func == (lhs: CKError, rhs: CKError) -> Bool {
        lhs.code == rhs.code && NSDictionary(dictionary: lhs.userInfo).isEqual(to: rhs.userInfo)
    }

    /// Hashes the code; equal errors have equal codes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

// MARK: - Accessors for CloudKit's userInfo keys

extension CKError {
    /// The per-item errors of a ``Code/partialFailure``, keyed by the IDs exactly as the request
    /// named them (`CKRecord.ID`, `CKRecordZone.ID` or a subscription ID `String`).
    public var partialErrorsByItemID: [AnyHashable: any Error]? {
        userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: any Error]
    }

    /// With ``Code/serverRecordChanged``: the server's current copy, with its current change tag.
    /// Merge your changes into this record and save it again.
    public var serverRecord: CKRecord? {
        userInfo[CKRecordChangedErrorServerRecordKey] as? CKRecord
    }

    /// With ``Code/serverRecordChanged``: the record you tried to save.
    public var clientRecord: CKRecord? {
        userInfo[CKRecordChangedErrorClientRecordKey] as? CKRecord
    }

    /// With ``Code/serverRecordChanged``: the version your change was based on, or nil when you
    /// tried to insert a record whose ID already exists.
    public var ancestorRecord: CKRecord? {
        userInfo[CKRecordChangedErrorAncestorRecordKey] as? CKRecord
    }

    /// The seconds to wait before retrying, when the server asked for a delay
    /// (``CKErrorRetryAfterKey``). Check it on any error, as CloudKit advises.
    public var retryAfterSeconds: Double? {
        (userInfo[CKErrorRetryAfterKey] as? NSNumber)?.doubleValue
    }
}

// MARK: - Matching

/// Matches an error against a code, so that `catch CKError.zoneBusy` and, in a `switch` over an
/// `Error`, `case CKError.zoneBusy:` work as they do with CloudKit.
///
/// - Returns: Whether `error` is a ``CKError`` with that code.
public func ~= (code: CKError.Code, error: any Error) -> Bool {
    (error as? CKError)?.code == code
}

// MARK: - Descriptions

extension CKError: CustomStringConvertible, CustomDebugStringConvertible {
    /// A one-line summary such as `<CKError 14 "Server Record Changed": record to insert already exists>`.
    /// The format is not stable; match on ``code``.
    public var description: String {
        var text = "<CKError \(code.rawValue) \"\(code.title)\": \(localizedDescription)"
        if let retry = retryAfterSeconds { text += "; retry after \(retry)s" }
        if let partial = partialErrorsByItemID { text += "; \(partial.count) item errors" }
        return text + ">"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
