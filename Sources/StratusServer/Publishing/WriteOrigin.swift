import StratusWire

/// Who made a write, as the observers of committed changes see it.
struct WriteOrigin: Sendable {
    /// The device whose request made the write: its own pushes are not sent back to it. Nil
    /// for the server's own writes (user records, a zone purged by a test).
    var deviceID: String?
    /// The writer's user record name, for the write history.
    var userRecordName: String?
    /// The `CKOperation.operationID` of the operation whose request made the write.
    var operationID: String?

    /// The origin of a write the server makes on its own.
    static let server = WriteOrigin()

    init(deviceID: String? = nil, userRecordName: String? = nil, operationID: String? = nil) {
        self.deviceID = deviceID
        self.userRecordName = userRecordName
        self.operationID = operationID
    }
}
