/// A failure reported across the client/server boundary, for a whole request or for one item.
///
/// The client turns it into a `CKError` with the same ``CKErrorCode``, so nothing is lost
/// between the two.
public struct WireError: Error, Hashable, Sendable {
    /// What went wrong.
    public var code: CKErrorCode
    /// A message a developer can act on, naming the item, field or limit at fault.
    public var message: String
    /// Seconds to wait before retrying, when the server asks for a delay.
    public var retryAfter: Double?
    /// The server's current copy of the record, with ``CKErrorCode/serverRecordChanged``.
    public var serverRecord: WireRecord?
    /// With ``CKErrorCode/zoneNotFound``: the zone went away because the user reset their
    /// encrypted data (`CKErrorUserDidResetEncryptedDataKey`).
    public var userDidResetEncryptedData: Bool

    /// Creates an error.
    public init(_ code: CKErrorCode, _ message: String, retryAfter: Double? = nil, serverRecord: WireRecord? = nil, userDidResetEncryptedData: Bool = false) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.serverRecord = serverRecord
        self.userDidResetEncryptedData = userDidResetEncryptedData
    }
}
