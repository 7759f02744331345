import Foundation
import StratusWire

extension CKError {
    /// The error a ``WireError`` from the service becomes, with its message and retry-after.
    ///
    /// The records of a ``Code/serverRecordChanged`` are added by the caller, which knows the
    /// client's record.
    package init(_ wire: WireError) {
        let extra: [String: Any] = wire.userDidResetEncryptedData ? [CKErrorUserDidResetEncryptedDataKey: NSNumber(value: true)] : [:]
        self.init(wire.code, message: wire.message, retryAfter: wire.retryAfter, extra: extra)
    }

    /// Creates an error with a message and, for retryable codes, a retry-after delay.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: What a developer should read, naming the item, field or limit at fault.
    ///   - retryAfter: Seconds to wait before retrying, stored as an `NSNumber` under
    ///     ``CKErrorRetryAfterKey``.
    ///   - extra: More userInfo entries.
    package init(_ code: Code, message: String, retryAfter: Double? = nil, extra: [String: Any] = [:]) {
        var info = extra
        info[NSLocalizedDescriptionKey] = message
        if let retryAfter { info[CKErrorRetryAfterKey] = NSNumber(value: retryAfter) }
        self.init(code, userInfo: info)
    }
}
