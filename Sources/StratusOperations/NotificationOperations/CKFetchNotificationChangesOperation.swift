import Foundation
import StratusCore
import StratusWire

/// Fetches the notifications the server kept for the user since a change token: the iOS 8 way
/// to catch up on pushes that APNs coalesced or dropped. Use ``CKDatabaseSubscription``,
/// ``CKFetchDatabaseChangesOperation`` and ``CKFetchRecordZoneChangesOperation`` in new code.
///
/// ```swift
/// let operation = CKFetchNotificationChangesOperation(previousServerChangeToken: storedToken)
/// operation.notificationChangedBlock = { notification in … }
/// operation.fetchNotificationChangesCompletionBlock = { token, error in
///     // keep the token; run another operation from it while `operation.moreComing`
/// }
/// container.add(operation)
/// ```
///
/// The server keeps every notification the account's subscriptions produce in the container,
/// whatever became of the push. The operation sends one request and reports, in order, each
/// notification added or marked read since the token, once, in its state now:
/// - an unread notification comes as the subclass its subscription makes
///   (``CKQueryNotification``, ``CKRecordZoneNotification``, ``CKDatabaseNotification``), with
///   everything it carries and never pruned;
/// - a notification marked read (by any device, with ``CKMarkNotificationsReadOperation``)
///   comes as a plain ``CKNotification`` whose ``CKNotification/notificationType`` is
///   `.readNotification`, carrying only its ID and container. A device that fetched it
///   unread before sees it once more, as read; one that had not sees only that it was read.
///   (CloudKit's users report the same: fetches return read entries with empty content.)
///
/// When more notifications wait than one request returns, ``moreComing`` is true by the time
/// the completion block runs: run another operation from the token it was given. A token
/// older than the notifications the server keeps (see `CloudServer.notificationHistoryLimit`)
/// fails with `changeTokenExpired`: fetch again from nil. A token that was altered, or that
/// belongs to another account, container or server, fails with `invalidArguments`.
///
/// The operation works on the container it is added to, for the account signed in there.
///
/// - Note: Deprecated in iOS 11 and made unavailable in the iOS 18 SDK. Stratus keeps it
///   working because the WWDC 2014 and 2015 CloudKit talks use it.
///
/// CloudKit document: *CKFetchNotificationChangesOperation*.
@available(*, deprecated, message: "Instead of iterating notifications to enumerate changed record zones, use CKDatabaseSubscription, CKFetchDatabaseChangesOperation, and CKFetchRecordZoneChangesOperation")
public final class CKFetchNotificationChangesOperation: CKOperation, @unchecked Sendable {
    // MARK: - Properties

    /// Where to start: the token an earlier fetch handed to its completion block, or nil for
    /// every notification the server still keeps.
    @_Locked public var previousServerChangeToken: CKServerChangeToken? = nil

    /// The most notifications the request returns. 0, the default, lets the server choose
    /// (Stratus's server returns up to 200); larger values are capped at that too, and values
    /// below 0 count as 0.
    @_Locked public var resultsLimit: Int = 0

    /// Whether more notifications wait after those reported: set before the completion block
    /// runs. When true, run another operation from the token the completion block received.
    @_Locked public private(set) var moreComing = false

    /// Creates an operation that fetches the notifications added or marked read since
    /// `previousServerChangeToken`; nil fetches every notification the server keeps.
    public convenience init(previousServerChangeToken: CKServerChangeToken?) {
        self.init()
        self.previousServerChangeToken = previousServerChangeToken
    }

    // MARK: - Callbacks

    /// Called once per notification added or marked read since the token, oldest change
    /// first, before the completion block.
    @_OperationBlock public var notificationChangedBlock: ((CKNotification) -> Void)?

    /// Called once, last: the token to keep and nil, or nil and the error (such as
    /// `changeTokenExpired`). Check ``moreComing`` here.
    @_OperationBlock public var fetchNotificationChangesCompletionBlock: ((CKServerChangeToken?, (any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let since = previousServerChangeToken.map { Array($0.bytes) }
        let limit = max(0, resultsLimit)
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.notificationChanges(WireNotificationChangesRequest(context: context, sinceToken: since, resultsLimit: limit))
        }
        switch response {
        case .success(let response):
            let notifications = response.notifications.map { CKNotification.make($0) }
            let token = CKServerChangeToken(bytes: Data(response.token))
            moreComing = response.moreComing
            deliver {
                guard let changed = self.notificationChangedBlock else { return }
                notifications.forEach(changed)
            }
            finish(with: nil) { self.fetchNotificationChangesCompletionBlock?(token, nil) }
        case .failure(let error):
            finish(with: error) { self.fetchNotificationChangesCompletionBlock?(nil, error) }
        }
    }

    override func reportFailure(_ error: CKError) {
        fetchNotificationChangesCompletionBlock?(nil, error)
    }
}
