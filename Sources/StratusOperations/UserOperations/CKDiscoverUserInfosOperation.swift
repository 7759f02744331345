import Foundation
import StratusCore
import StratusWire

/// The iOS 8 way to find users by email address and user record ID, in one request. Use
/// ``CKDiscoverUserIdentitiesOperation`` in new code.
///
/// ```swift
/// let operation = CKDiscoverUserInfosOperation(emailAddresses: ["ann@example.com"], userRecordIDs: nil)
/// operation.discoverUserInfosCompletionBlock = { byEmail, byRecordID, error in … }
/// container.add(operation)
/// ```
///
/// The completion block gets the users found, keyed by the email addresses and user record IDs
/// you passed; an address or ID that finds nobody (unknown, or not opted in to discoverability)
/// is simply absent. On failure both dictionaries are nil.
///
/// CloudKit document: *CKDiscoverUserInfosOperation* (iOS 8–9 SDK).
@available(*, deprecated, message: "Replaced by CKDiscoverUserIdentitiesOperation")
public final class CKDiscoverUserInfosOperation: CKOperation, @unchecked Sendable {
    /// The email addresses to look up.
    @_Locked public var emailAddresses: [String]? = nil

    /// The user record IDs to look up.
    @_Locked public var userRecordIDs: [CKRecord.ID]? = nil

    /// Creates an operation that looks up users by email address and by user record ID.
    public convenience init(emailAddresses: [String]?, userRecordIDs: [CKRecord.ID]?) {
        self.init()
        self.emailAddresses = emailAddresses
        self.userRecordIDs = userRecordIDs
    }

    /// Called once, last, with the users found by email address and by user record ID, or
    /// nil, nil and the request's error.
    @_OperationBlock public var discoverUserInfosCompletionBlock: (([String: CKDiscoveredUserInfo]?, [CKRecord.ID: CKDiscoveredUserInfo]?, (any Error)?) -> Void)?

    override func run() async {
        let emails = emailAddresses ?? []
        let recordIDs = userRecordIDs ?? []
        guard !emails.isEmpty || !recordIDs.isEmpty else {
            finish(with: nil) { self.discoverUserInfosCompletionBlock?([:], [:], nil) }
            return
        }
        let infos = emails.map { WireUserLookupInfo(emailAddress: $0) } + recordIDs.map { WireUserLookupInfo(userRecordID: $0.wireValue) }
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.lookupUsers(WireUsersLookupRequest(context: context, ids: infos))
        }
        switch response {
        case .success(let response):
            var byEmail: [String: CKDiscoveredUserInfo] = [:]
            var byRecordID: [CKRecord.ID: CKDiscoveredUserInfo] = [:]
            for (index, identity) in response.results.enumerated() {
                guard let identity else { continue }
                let userInfo = CKDiscoveredUserInfo(identity: CKUserIdentity(wire: identity))
                if index < emails.count {
                    byEmail[emails[index]] = userInfo
                } else if index - emails.count < recordIDs.count {
                    byRecordID[recordIDs[index - emails.count]] = userInfo
                }
            }
            finish(with: nil) { self.discoverUserInfosCompletionBlock?(byEmail, byRecordID, nil) }
        case .failure(let error):
            finish(with: error) { self.discoverUserInfosCompletionBlock?(nil, nil, error) }
        }
    }

    override func reportFailure(_ error: CKError) {
        discoverUserInfosCompletionBlock?(nil, nil, error)
    }
}
