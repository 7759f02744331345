import StratusCore
import StratusWire

/// Marks notifications of the user read on the server, for every device of the account: the
/// iOS 8 companion of ``CKFetchNotificationChangesOperation``. Use ``CKDatabaseSubscription``,
/// ``CKFetchDatabaseChangesOperation`` and ``CKFetchRecordZoneChangesOperation`` in new code.
///
/// ```swift
/// let operation = CKMarkNotificationsReadOperation(notificationIDsToMarkRead: seenIDs)
/// operation.markNotificationsReadCompletionBlock = { markedIDs, error in … }
/// container.add(operation)
/// ```
///
/// A notification marked read comes once more to every device's next
/// ``CKFetchNotificationChangesOperation``, as a `.readNotification` entry with only its ID,
/// so the other devices learn that it was dealt with. Marking a notification that is already
/// read succeeds and changes nothing.
///
/// Each ID succeeds or fails on its own. An ID the account has no notification for (never
/// had, belongs to another account, or fell out of the kept history) fails with
/// `unknownItem`; the completion block then gets the IDs that were marked and a
/// `partialFailure` whose `partialErrorsByItemID` is keyed by `CKNotification.ID`. More than
/// 400 IDs in one operation fail as a whole with `limitExceeded`. An operation with no IDs
/// sends no request and succeeds.
///
/// - Note: Deprecated in iOS 11 and made unavailable in the iOS 18 SDK. Stratus keeps it
///   working because the WWDC 2014 and 2015 CloudKit talks use it.
///
/// CloudKit document: *CKMarkNotificationsReadOperation*.
@available(*, deprecated, message: "Instead of iterating notifications, consider using CKDatabaseSubscription, CKFetchDatabaseChangesOperation, and CKFetchRecordZoneChangesOperation as appropriate")
public final class CKMarkNotificationsReadOperation: CKOperation, @unchecked Sendable {
    // MARK: - Properties

    /// The IDs of the notifications to mark read.
    @_Locked public var notificationIDs: [CKNotification.ID]? = nil

    /// Creates an operation that marks the notifications `notificationIDs` read.
    public convenience init(notificationIDsToMarkRead notificationIDs: [CKNotification.ID]) {
        self.init()
        self.notificationIDs = notificationIDs
    }

    // MARK: - Completion

    /// Called once, last: the IDs now marked read, in the order given (each once), and nil;
    /// those IDs and a `partialFailure` when some IDs failed; or nil and the request's error.
    @_OperationBlock public var markNotificationsReadCompletionBlock: (([CKNotification.ID]?, (any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let notificationIDs = self.notificationIDs ?? []
        guard !notificationIDs.isEmpty else {
            finish(with: nil) { self.markNotificationsReadCompletionBlock?([], nil) }
            return
        }
        let values = notificationIDs.map(\.value)
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.markNotificationsRead(WireMarkNotificationsReadRequest(context: context, ids: values))
        }
        switch response {
        case .success(let response):
            var answers = response.results.makeIterator()
            let results = notificationIDs.map { notificationID -> (CKNotification.ID, Result<Void, any Error>) in
                guard let answer = answers.next() else {
                    return (notificationID, .failure(CKError(.internalError, message: "the server gave no result for notification '\(notificationID.value.prefix(80))'")))
                }
                return (notificationID, answer.result.mapError { CKError($0) as any Error })
            }
            var marked: [CKNotification.ID] = []
            for (notificationID, result) in results where result.isSuccess && !marked.contains(notificationID) {
                marked.append(notificationID)
            }
            let error = CKError.partialFailure(of: results)
            finish(with: error) { self.markNotificationsReadCompletionBlock?(marked, error) }
        case .failure(let error):
            finish(with: error) { self.markNotificationsReadCompletionBlock?(nil, error) }
        }
    }

    override func reportFailure(_ error: CKError) {
        markNotificationsReadCompletionBlock?(nil, error)
    }
}

private extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
