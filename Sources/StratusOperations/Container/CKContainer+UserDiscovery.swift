import StratusCore
import StratusWire

// User discovery and the application-permission API of CKContainer. Each call is one request.
//
// A user is found only after granting `userDiscoverability` in the container
// (`requestApplicationPermission(.userDiscoverability)` from one of the user's devices). A user
// who did not, and a user nobody knows, give the same answer: no identity (nil), and no error.
// Every call needs an iCloud account and fails with `notAuthenticated` without one.
//
// As CloudKit's header says, lookups run at a low priority (`.utility`); use
// `CKDiscoverUserIdentitiesOperation` to choose another. The permission calls run at
// `.userInitiated`, as other container calls do.

extension CKContainer {
    // MARK: - Looking users up

    /// The user with `email` as email address, or nil when no user who granted
    /// `userDiscoverability` in this container has it. Addresses match ignoring case.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @discardableResult
    public func userIdentity(forEmailAddress email: String) async throws -> CKUserIdentity? {
        try await lookUpUser(CKUserIdentity.LookupInfo(emailAddress: email))
    }

    /// The user with `phoneNumber`, or nil when no user who granted `userDiscoverability` in
    /// this container has it. Numbers match by their last ten digits.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @discardableResult
    public func userIdentity(forPhoneNumber phoneNumber: String) async throws -> CKUserIdentity? {
        try await lookUpUser(CKUserIdentity.LookupInfo(phoneNumber: phoneNumber))
    }

    /// The user whose user record is `userRecordID`, or nil when that user did not grant
    /// `userDiscoverability` in this container (or there is no such user).
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @discardableResult
    public func userIdentity(forUserRecordID userRecordID: CKRecord.ID) async throws -> CKUserIdentity? {
        try await lookUpUser(CKUserIdentity.LookupInfo(userRecordID: userRecordID))
    }

    /// Passes the user with `email` as email address, or nil, to `completionHandler`.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @preconcurrency
    public func discoverUserIdentity(withEmailAddress email: String, completionHandler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void) {
        completeLookup(completionHandler) { try await self.userIdentity(forEmailAddress: email) }
    }

    /// Passes the user with `phoneNumber`, or nil, to `completionHandler`.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @preconcurrency
    public func discoverUserIdentity(withPhoneNumber phoneNumber: String, completionHandler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void) {
        completeLookup(completionHandler) { try await self.userIdentity(forPhoneNumber: phoneNumber) }
    }

    /// Passes the user whose user record is `userRecordID`, or nil, to `completionHandler`.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @preconcurrency
    public func discoverUserIdentity(withUserRecordID userRecordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void) {
        completeLookup(completionHandler) { try await self.userIdentity(forUserRecordID: userRecordID) }
    }

    /// The user's contacts who use the app and granted `userDiscoverability` in this
    /// container; see ``CKDiscoverAllUserIdentitiesOperation`` for what is found.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @discardableResult
    public func allUserIdentitiesFromContacts() async throws -> [CKUserIdentity] {
        let response = try await privateCloudDatabase.requestPath(qualityOfService: .utility).send { service, context async throws(WireError) in
            try await service.lookupContacts(context)
        }.get()
        return response.identities.map { CKUserIdentity(wire: $0) }
    }

    /// Passes the user's discoverable contacts, or the error, to `completionHandler`.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @preconcurrency
    public func discoverAllIdentities(completionHandler: @escaping @Sendable ([CKUserIdentity]?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.allUserIdentitiesFromContacts() }
    }

    /// One lookup, one request.
    private func lookUpUser(_ info: CKUserIdentity.LookupInfo) async throws -> CKUserIdentity? {
        let wire = info.wireValue
        let response = try await privateCloudDatabase.requestPath(qualityOfService: .utility).send { service, context async throws(WireError) in
            try await service.lookupUsers(WireUsersLookupRequest(context: context, ids: [wire]))
        }.get()
        return response.results.first.flatMap { $0 }.map { CKUserIdentity(wire: $0, lookupInfo: info) }
    }

    /// Hands a lookup's identity (nil when nobody was found, with no error) or its error to
    /// `handler`.
    private func completeLookup(
        _ handler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void,
        _ body: @escaping @Sendable () async throws -> CKUserIdentity?
    ) {
        Task {
            do {
                handler(try await body(), nil)
            } catch {
                handler(nil, error)
            }
        }
    }

    // MARK: - Application permissions

    /// The user's status for `applicationPermission` in this container: `.initialState` until
    /// the app asks with ``requestApplicationPermission(_:)``.
    ///
    /// - Throws: `notAuthenticated` without an iCloud account; `invalidArguments` for an empty
    ///   or unknown permission.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @discardableResult
    public func applicationPermissionStatus(for applicationPermission: ApplicationPermissions) async throws -> ApplicationPermissionStatus {
        try await sendPermissionRequest(applicationPermission) { service, request async throws(WireError) in
            try await service.applicationPermissionStatus(request)
        }
    }

    /// Passes the user's status for `applicationPermission` to `completionHandler`; on failure,
    /// `.couldNotComplete` and the error.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @preconcurrency
    public func status(forApplicationPermission applicationPermission: ApplicationPermissions, completionHandler: @escaping @Sendable (ApplicationPermissionStatus, (any Error)?) -> Void) {
        completePermission(completionHandler) { try await self.applicationPermissionStatus(for: applicationPermission) }
    }

    /// Asks the user to grant `applicationPermission` in this container, and returns the
    /// outcome. Only the first request asks (Stratus's server answers for the user: see
    /// `CloudServer.userDiscoverabilityPromptAnswer`); once the user has answered, on any
    /// device, every later request returns that answer without asking.
    ///
    /// Granting `.userDiscoverability` makes the user findable by others through the
    /// discovery calls and operations.
    ///
    /// - Throws: `notAuthenticated` without an iCloud account; `invalidArguments` for an empty
    ///   or unknown permission.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @discardableResult
    public func requestApplicationPermission(_ applicationPermission: ApplicationPermissions) async throws -> ApplicationPermissionStatus {
        try await sendPermissionRequest(applicationPermission) { service, request async throws(WireError) in
            try await service.requestApplicationPermission(request)
        }
    }

    /// Asks the user to grant `applicationPermission` and passes the outcome to
    /// `completionHandler`; on failure, `.couldNotComplete` and the error.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    @preconcurrency
    public func requestApplicationPermission(_ applicationPermission: ApplicationPermissions, completionHandler: @escaping @Sendable (ApplicationPermissionStatus, (any Error)?) -> Void) {
        completePermission(completionHandler) { try await self.requestApplicationPermission(applicationPermission) }
    }

    /// Sends one request about `applicationPermission` (a convenience call: `.userInitiated`)
    /// and returns the status the service answers.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    private func sendPermissionRequest(
        _ applicationPermission: ApplicationPermissions,
        _ call: @escaping @Sendable (any CloudService, WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus
    ) async throws -> ApplicationPermissionStatus {
        let permission = WireApplicationPermissions(rawValue: applicationPermission.rawValue)
        let status = try await privateCloudDatabase.requestPath(qualityOfService: .userInitiated).send { service, context async throws(WireError) in
            try await call(service, WireApplicationPermissionRequest(context: context, permission: permission))
        }.get()
        return ApplicationPermissionStatus(status)
    }

    /// Runs `body` in a task and hands its status to `handler`; on failure,
    /// `.couldNotComplete` and the error.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    private func completePermission(
        _ handler: @escaping @Sendable (ApplicationPermissionStatus, (any Error)?) -> Void,
        _ body: @escaping @Sendable () async throws -> ApplicationPermissionStatus
    ) {
        Task {
            do {
                handler(try await body(), nil)
            } catch {
                handler(.couldNotComplete, error)
            }
        }
    }
}
