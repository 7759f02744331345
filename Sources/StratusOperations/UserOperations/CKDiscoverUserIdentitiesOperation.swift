import Foundation
import StratusCore
import StratusWire

/// Finds the users that lookup infos name (email addresses, phone numbers, user record IDs),
/// in one request.
///
/// ```swift
/// let operation = CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: CKUserIdentity.LookupInfo.lookupInfos(withEmails: emails))
/// operation.userIdentityDiscoveredBlock = { identity, lookupInfo in … }
/// operation.discoverUserIdentitiesResultBlock = { result in … }
/// container.add(operation)
/// ```
///
/// Only users who granted `userDiscoverability` in the container are found, each reported
/// once to ``userIdentityDiscoveredBlock`` with the lookup info that found it, in the order of
/// ``userIdentityLookupInfos``. A lookup info that finds nobody, because the user is unknown
/// or did not opt in, is simply not reported: it is no error, and the final result is success.
/// The request needs an iCloud account (`notAuthenticated` without one), and at most 400 lookup
/// infos (`limitExceeded` beyond).
///
/// CloudKit document: *CKDiscoverUserIdentitiesOperation*.
@available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
public final class CKDiscoverUserIdentitiesOperation: CKOperation, @unchecked Sendable {
    // MARK: - Properties

    /// The users to look up.
    @_Locked public var userIdentityLookupInfos: [CKUserIdentity.LookupInfo] = []

    /// Creates an operation that looks up the users `userIdentityLookupInfos` name.
    public convenience init(userIdentityLookupInfos: [CKUserIdentity.LookupInfo]) {
        self.init()
        self.userIdentityLookupInfos = userIdentityLookupInfos
    }

    // MARK: - Per-item callback

    /// Called once per user found, with the lookup info that found it.
    @_OperationBlock public var userIdentityDiscoveredBlock: ((CKUserIdentity, CKUserIdentity.LookupInfo) -> Void)?

    // MARK: - Completion

    /// Called once, last: success (whether or not anyone was found) or the request's error.
    @_OperationBlock public var discoverUserIdentitiesResultBlock: ((Result<Void, any Error>) -> Void)?

    /// The legacy final block; ignored when ``discoverUserIdentitiesResultBlock`` is set.
    @available(*, deprecated, message: "Use discoverUserIdentitiesResultBlock instead")
    @_OperationBlock public var discoverUserIdentitiesCompletionBlock: (((any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let lookupInfos = userIdentityLookupInfos
        guard !lookupInfos.isEmpty else {
            report([], failure: nil)
            return
        }
        let wireInfos = lookupInfos.map(\.wireValue)
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.lookupUsers(WireUsersLookupRequest(context: context, ids: wireInfos))
        }
        switch response {
        case .success(let response):
            let found = zip(lookupInfos, response.results).compactMap { info, identity in
                identity.map { (CKUserIdentity(wire: $0, lookupInfo: info), info) }
            }
            report(found, failure: nil)
        case .failure(let error):
            report([], failure: error)
        }
    }

    override func reportFailure(_ error: CKError) {
        deliverResults([], failure: error)
    }

    // MARK: - Result mapping

    private func report(_ found: [(CKUserIdentity, CKUserIdentity.LookupInfo)], failure: CKError?) {
        finish(with: failure) { self.deliverResults(found, failure: failure) }
    }

    /// Calls the per-user block in order, then the final block. Runs on the callback queue.
    private func deliverResults(_ found: [(CKUserIdentity, CKUserIdentity.LookupInfo)], failure: CKError?) {
        if let discovered = userIdentityDiscoveredBlock {
            for (identity, info) in found { discovered(identity, info) }
        }
        if let final = discoverUserIdentitiesResultBlock {
            final(failure.map { .failure($0) } ?? .success(()))
        } else if let legacyFinal: ((any Error)?) -> Void = blocks[\CKDiscoverUserIdentitiesOperation._discoverUserIdentitiesCompletionBlock] {
            legacyFinal(failure)
        }
    }
}
