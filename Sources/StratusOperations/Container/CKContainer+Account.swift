import StratusCore
import StratusWire

extension CKContainer {
    /// Whether the device has a usable iCloud account. Costs no request.
    ///
    /// Ask again when `.CKAccountChanged` is posted.
    @discardableResult
    public func accountStatus() async throws -> CKAccountStatus {
        // Costs no request, so no timeout or hold applies; the context is still the one the
        // request path makes.
        let context = privateCloudDatabase.requestPath(qualityOfService: .userInitiated).context()
        return CKAccountStatus(await service.accountStatus(context))
    }

    /// Passes the device's account status to `completionHandler`.
    @preconcurrency
    public func accountStatus(completionHandler: @escaping @Sendable (CKAccountStatus, (any Error)?) -> Void) {
        Task {
            do {
                completionHandler(try await accountStatus(), nil)
            } catch {
                completionHandler(.couldNotDetermine, error)
            }
        }
    }

    /// The user record ID of the device's account in this container: `_` and 32 hexadecimal
    /// digits, the same on every device of the account.
    ///
    /// - Throws: `notAuthenticated` without a usable account, `accountTemporarilyUnavailable`
    ///   while the account is not ready.
    @discardableResult
    public func userRecordID() async throws -> CKRecord.ID {
        let response = try await privateCloudDatabase.requestPath(qualityOfService: .userInitiated).send { service, context async throws(WireError) in
            try await service.currentUser(context)
        }.get()
        return CKRecord.ID(recordName: response.userRecordName)
    }

    /// Passes the user record ID, or the error, to `completionHandler`.
    @preconcurrency
    public func fetchUserRecordID(completionHandler: @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.userRecordID() }
    }
}
