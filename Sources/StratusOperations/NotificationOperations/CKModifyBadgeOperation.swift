import StratusCore
import StratusWire

/// Sets the badge count the server keeps for the user in the container: the count that
/// subscriptions whose notification info has `shouldBadge` raise with each notification. The
/// iOS 8 way to clear the app icon's badge on every device; set the badge with
/// UserNotifications in new code.
///
/// ```swift
/// let operation = CKModifyBadgeOperation(badgeValue: 0)
/// operation.modifyBadgeCompletionBlock = { error in … }
/// container.add(operation)
/// ```
///
/// The next badging notification counts up from the new value. A negative value fails with
/// `invalidArguments`. Tests read the server's count with
/// `CloudServer.badgeValue(account:containerIdentifier:)`.
///
/// - Note: Deprecated in iOS 11 ("will cease working") and made unavailable in the iOS 18
///   SDK. Stratus keeps it working because the WWDC 2014 and 2015 CloudKit talks use it.
///
/// CloudKit document: *CKModifyBadgeOperation*.
@available(*, deprecated, message: "No longer supported, will cease working at some point in the future")
public final class CKModifyBadgeOperation: CKOperation, @unchecked Sendable {
    // MARK: - Properties

    /// The badge count to set: 0, the default, clears the badge.
    @_Locked public var badgeValue: Int = 0

    /// Creates an operation that sets the badge to `badgeValue`.
    public convenience init(badgeValue: Int) {
        self.init()
        self.badgeValue = badgeValue
    }

    // MARK: - Completion

    /// Called once, last: nil when the badge was set, or the error.
    @_OperationBlock public var modifyBadgeCompletionBlock: (((any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let value = badgeValue
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.modifyBadge(WireModifyBadgeRequest(context: context, badgeValue: value))
        }
        switch response {
        case .success:
            finish(with: nil) { self.modifyBadgeCompletionBlock?(nil) }
        case .failure(let error):
            finish(with: error) { self.modifyBadgeCompletionBlock?(error) }
        }
    }

    override func reportFailure(_ error: CKError) {
        modifyBadgeCompletionBlock?(error)
    }
}
