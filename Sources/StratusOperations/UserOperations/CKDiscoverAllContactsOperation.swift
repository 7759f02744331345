import Foundation
import StratusCore
import StratusWire

/// The iOS 8 way to find the user's contacts who use the app and let themselves be
/// discovered, in one request. Use ``CKDiscoverAllUserIdentitiesOperation`` in new code.
///
/// ```swift
/// let operation = CKDiscoverAllContactsOperation()
/// operation.discoverAllContactsCompletionBlock = { userInfos, error in … }
/// container.add(operation)
/// ```
///
/// It finds the same users as ``CKDiscoverAllUserIdentitiesOperation`` and hands them over
/// all at once, as ``CKDiscoveredUserInfo``s; on failure the array is nil.
///
/// CloudKit document: *CKDiscoverAllContactsOperation* (iOS 8–9 SDK).
@available(*, deprecated, message: "Replaced by CKDiscoverAllUserIdentitiesOperation")
public final class CKDiscoverAllContactsOperation: CKOperation, @unchecked Sendable {
    /// Called once, last, with the discovered users, or nil and the request's error.
    @_OperationBlock public var discoverAllContactsCompletionBlock: (([CKDiscoveredUserInfo]?, (any Error)?) -> Void)?

    override func run() async {
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.lookupContacts(context)
        }
        switch response {
        case .success(let response):
            let userInfos = response.identities.map { CKDiscoveredUserInfo(identity: CKUserIdentity(wire: $0)) }
            finish(with: nil) { self.discoverAllContactsCompletionBlock?(userInfos, nil) }
        case .failure(let error):
            finish(with: error) { self.discoverAllContactsCompletionBlock?(nil, error) }
        }
    }

    override func reportFailure(_ error: CKError) {
        discoverAllContactsCompletionBlock?(nil, error)
    }
}
