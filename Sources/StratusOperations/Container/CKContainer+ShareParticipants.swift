import StratusCore

// The share participant convenience methods of CKContainer, with CloudKit's names: the
// batch forms of its Swift overlay (`shareParticipants(forEmailAddresses:)`, …) and the single
// forms of its Objective-C API (`shareParticipant(forEmailAddress:)`,
// `fetchShareParticipant(withEmailAddress:completionHandler:)`, …). Each runs one
// `CKFetchShareParticipantsOperation`, so each costs one request, at `.userInitiated` quality of
// service unless `configuredWith` says otherwise.
//
// Inviting needs no opt-in: anyone is found, discoverable or not (see the operation). Batch
// methods throw only when the whole request fails and put each item's outcome in their
// results; single methods throw the item's own error.

extension CKContainer {
    // MARK: - Batches

    /// New participants for the people with these email addresses.
    ///
    /// - Returns: Each participant, or why the address names no one (`invalidArguments` for
    ///   an empty one), keyed by the addresses you passed.
    /// - Throws: Only when the whole request fails (`notAuthenticated` without an account).
    public func shareParticipants(forEmailAddresses emails: [String]) async throws -> [String: Result<CKShare.Participant, any Error>] {
        try await shareParticipants(for: emails, CKUserIdentity.LookupInfo.init(emailAddress:))
    }

    /// New participants for the people with these phone numbers, keyed by the numbers you
    /// passed; see ``shareParticipants(forEmailAddresses:)``.
    public func shareParticipants(forPhoneNumbers phoneNumbers: [String]) async throws -> [String: Result<CKShare.Participant, any Error>] {
        try await shareParticipants(for: phoneNumbers, CKUserIdentity.LookupInfo.init(phoneNumber:))
    }

    /// New participants for the users with these user record IDs, keyed by the IDs you
    /// passed; see ``shareParticipants(forEmailAddresses:)``.
    public func shareParticipants(forUserRecordIDs userRecordIDs: [CKRecord.ID]) async throws -> [CKRecord.ID: Result<CKShare.Participant, any Error>] {
        try await shareParticipants(for: userRecordIDs, CKUserIdentity.LookupInfo.init(userRecordID:))
    }

    /// New participants for the people these lookup infos name (by email address, phone
    /// number or user record ID, each as ``CKFetchShareParticipantsOperation`` finds it),
    /// keyed by the lookup infos you passed; see ``shareParticipants(forEmailAddresses:)``.
    ///
    /// CloudKit's name and signature (`shareParticipants(for:)`, iOS 26; lookup infos that are
    /// equal are one key). One request for all of them.
    public func shareParticipants(for lookupInfos: [CKUserIdentity.LookupInfo]) async throws -> [CKUserIdentity.LookupInfo: Result<CKShare.Participant, any Error>] {
        try await shareParticipants(for: lookupInfos) { $0 }
    }

    /// Passes new participants for the people these lookup infos name, or the request's
    /// error, to `completionHandler`; see ``shareParticipants(for:)``.
    ///
    /// Apple's documentation lists the `async` form only; this completion form is named as
    /// CloudKit names the completion forms of the other batches
    /// (`fetchShareParticipants(forUserRecordIDs:completionHandler:)`).
    @preconcurrency
    public func fetchShareParticipants(
        for lookupInfos: [CKUserIdentity.LookupInfo],
        completionHandler: @escaping @Sendable (Result<[CKUserIdentity.LookupInfo: Result<CKShare.Participant, any Error>], any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.shareParticipants(for: lookupInfos) }
    }

    /// Passes new participants for the people with these email addresses, or the request's
    /// error, to `completionHandler`.
    @preconcurrency
    public func fetchShareParticipants(
        forEmailAddresses emails: [String],
        completionHandler: @escaping @Sendable (Result<[String: Result<CKShare.Participant, any Error>], any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.shareParticipants(forEmailAddresses: emails) }
    }

    /// Passes new participants for the people with these phone numbers, or the request's
    /// error, to `completionHandler`.
    @preconcurrency
    public func fetchShareParticipants(
        forPhoneNumbers phoneNumbers: [String],
        completionHandler: @escaping @Sendable (Result<[String: Result<CKShare.Participant, any Error>], any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.shareParticipants(forPhoneNumbers: phoneNumbers) }
    }

    /// Passes new participants for the users with these user record IDs, or the request's
    /// error, to `completionHandler`.
    @preconcurrency
    public func fetchShareParticipants(
        forUserRecordIDs userRecordIDs: [CKRecord.ID],
        completionHandler: @escaping @Sendable (Result<[CKRecord.ID: Result<CKShare.Participant, any Error>], any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.shareParticipants(forUserRecordIDs: userRecordIDs) }
    }

    // MARK: - One at a time

    /// A new participant for the person with `emailAddress`.
    ///
    /// - Throws: `invalidArguments` for an empty address, or the request's error.
    public func shareParticipant(forEmailAddress emailAddress: String) async throws -> CKShare.Participant {
        try await shareParticipant(for: CKUserIdentity.LookupInfo(emailAddress: emailAddress))
    }

    /// A new participant for the person with `phoneNumber`.
    ///
    /// - Throws: `invalidArguments` for a number without digits, or the request's error.
    public func shareParticipant(forPhoneNumber phoneNumber: String) async throws -> CKShare.Participant {
        try await shareParticipant(for: CKUserIdentity.LookupInfo(phoneNumber: phoneNumber))
    }

    /// A new participant for the user whose user record is `userRecordID`.
    ///
    /// - Throws: `invalidArguments` for an invalid record name, or the request's error.
    public func shareParticipant(forUserRecordID userRecordID: CKRecord.ID) async throws -> CKShare.Participant {
        try await shareParticipant(for: CKUserIdentity.LookupInfo(userRecordID: userRecordID))
    }

    /// Passes a new participant for the person with `emailAddress`, or the error, to
    /// `completionHandler`.
    @preconcurrency
    public func fetchShareParticipant(withEmailAddress emailAddress: String, completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.shareParticipant(forEmailAddress: emailAddress) }
    }

    /// Passes a new participant for the person with `phoneNumber`, or the error, to
    /// `completionHandler`.
    @preconcurrency
    public func fetchShareParticipant(withPhoneNumber phoneNumber: String, completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.shareParticipant(forPhoneNumber: phoneNumber) }
    }

    /// Passes a new participant for the user whose user record is `userRecordID`, or the
    /// error, to `completionHandler`.
    @preconcurrency
    public func fetchShareParticipant(withUserRecordID userRecordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.shareParticipant(forUserRecordID: userRecordID) }
    }

    // MARK: - Running the operation

    /// One lookup, one request: the item's participant or its own error.
    private func shareParticipant(for info: CKUserIdentity.LookupInfo) async throws -> CKShare.Participant {
        let results = try await runShareParticipantsOperation([info])
        guard let result = results.first?.1 else {
            throw CKError(.internalError, message: "no result for the lookup info \(info)")
        }
        return try result.get()
    }

    /// Looks up `keys`, made into lookup infos by `makeInfo`, and keys the outcomes by them.
    private func shareParticipants<Key: Hashable>(
        for keys: [Key],
        _ makeInfo: (Key) -> CKUserIdentity.LookupInfo
    ) async throws -> [Key: Result<CKShare.Participant, any Error>] {
        let results = try await runShareParticipantsOperation(keys.map(makeInfo))
        var byKey: [Key: Result<CKShare.Participant, any Error>] = [:]
        for (key, (_, result)) in zip(keys, results) { byKey[key] = result }
        return byKey
    }

    /// Runs one `CKFetchShareParticipantsOperation` on the container's queue, with the
    /// convenience calls' configuration, and returns each lookup info's outcome in order.
    ///
    /// - Throws: The request's error; a `partialFailure` is not thrown, its items are returned.
    private func runShareParticipantsOperation(
        _ infos: [CKUserIdentity.LookupInfo]
    ) async throws -> [(CKUserIdentity.LookupInfo, Result<CKShare.Participant, any Error>)] {
        try await runItemOperation(CKFetchShareParticipantsOperation(userIdentityLookupInfos: infos)) { operation, item, final in
            operation.perShareParticipantResultBlock = item
            operation.fetchShareParticipantsResultBlock = final
        }
    }
}
