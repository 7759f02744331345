import StratusCore
import StratusWire

extension CKContainer {
    /// Whether the device has a usable iCloud account. Costs no request.
    ///
    /// Ask again when `.CKAccountChanged` is posted.
    public func accountStatus() async throws -> CKAccountStatus {
        CKAccountStatus(await service.accountStatus(privateCloudDatabase.requestContext(qualityOfService: .userInitiated)))
    }

    /// Passes the device's account status to `completionHandler`.
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
    public func userRecordID() async throws -> CKRecord.ID {
        if let hold = rateLimitHold(now: service.clock.now) { throw hold }
        do {
            let response = try await service.currentUser(privateCloudDatabase.requestContext(qualityOfService: .userInitiated))
            return CKRecord.ID(recordName: response.userRecordName)
        } catch {
            throw CKError(error)
        }
    }

    /// Passes the user record ID, or the error, to `completionHandler`.
    public func fetchUserRecordID(completionHandler: @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.userRecordID() }
    }
}
