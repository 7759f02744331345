import Foundation
import StratusCore
import StratusWire

/// Finds the user's contacts who use the app and let themselves be discovered, in one request.
///
/// ```swift
/// let operation = CKDiscoverAllUserIdentitiesOperation()
/// operation.userIdentityDiscoveredBlock = { identity in … }
/// operation.discoverAllUserIdentitiesResultBlock = { result in … }
/// container.add(operation)
/// ```
///
/// What "all" means in Stratus: the contacts are the account's contact list on the server
/// (`CloudServer.setContacts(_:forAccount:)`, as iCloud keeps a user's contacts); a contact is
/// reported when one of its email addresses or phone numbers belongs to an account that granted
/// `userDiscoverability` in this container. Each such user is reported once, in the order of
/// the first contact that matches, with ``CKUserIdentity/contactIdentifiers`` naming every
/// contact that matches and ``CKUserIdentity/lookupInfo`` the address that matched first.
/// The user's own card counts like any other contact. The request needs an iCloud account
/// (`notAuthenticated` without one).
///
/// CloudKit document: *CKDiscoverAllUserIdentitiesOperation*.
@available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
public final class CKDiscoverAllUserIdentitiesOperation: CKOperation, @unchecked Sendable {
    // MARK: - Per-item callback

    /// Called once per discovered user.
    @_OperationBlock public var userIdentityDiscoveredBlock: ((CKUserIdentity) -> Void)?

    // MARK: - Completion

    /// Called once, last: success (whether or not anyone was found) or the request's error.
    @_OperationBlock public var discoverAllUserIdentitiesResultBlock: ((Result<Void, any Error>) -> Void)?

    /// The legacy final block; ignored when ``discoverAllUserIdentitiesResultBlock`` is set.
    @available(*, deprecated, message: "Use discoverAllUserIdentitiesResultBlock instead")
    @_OperationBlock public var discoverAllUserIdentitiesCompletionBlock: (((any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.lookupContacts(context)
        }
        switch response {
        case .success(let response):
            report(response.identities.map { CKUserIdentity(wire: $0) }, failure: nil)
        case .failure(let error):
            report([], failure: error)
        }
    }

    override func reportFailure(_ error: CKError) {
        deliverResults([], failure: error)
    }

    // MARK: - Result mapping

    private func report(_ identities: [CKUserIdentity], failure: CKError?) {
        finish(with: failure) { self.deliverResults(identities, failure: failure) }
    }

    /// Calls the per-user block in order, then the final block. Runs on the callback queue.
    private func deliverResults(_ identities: [CKUserIdentity], failure: CKError?) {
        if let discovered = userIdentityDiscoveredBlock {
            for identity in identities { discovered(identity) }
        }
        if let final = discoverAllUserIdentitiesResultBlock {
            final(failure.map { .failure($0) } ?? .success(()))
        } else if let legacyFinal: ((any Error)?) -> Void = blocks[\CKDiscoverAllUserIdentitiesOperation._discoverAllUserIdentitiesCompletionBlock] {
            legacyFinal(failure)
        }
    }
}
