import Foundation
import StratusCore
import StratusOperations

/// A condition that passes only while the device has a usable iCloud account.
///
/// Stratus-only, after `CloudContainerCondition` in the WWDC 2015 session "Advanced
/// NSOperations". It asks the container's `accountStatus()` (which costs no request) when the
/// operation is about to run:
///
/// | status | result |
/// |---|---|
/// | `.available` | satisfied |
/// | `.noAccount`, `.restricted`, `.couldNotDetermine` | `CKError(.notAuthenticated)`, saying which |
/// | `.temporarilyUnavailable` | `CKError(.accountTemporarilyUnavailable)` |
///
/// A CloudKit operation stopped by it sends no request and reports that error to its final
/// and per-item blocks:
///
/// ```swift
/// let save = CKModifyRecordsOperation(recordsToSave: [favourite])
/// save.database = database
/// queue.addOperation(save, conditions: [AccountAvailable()])
/// ```
///
/// Which container it checks, without `container:`: that of the operation it guards. A
/// CloudKit operation's is its database's container (or its configuration's; one that names
/// neither runs in `CKContainer.default()`, as in CloudKit, so that is the one checked); a
/// recipe's (``RetryOperation``, ``QueryAllOperation``, ``BatchModifyOperation``, …) is its
/// database's. Any other operation (a ``GroupOperation``, a ``DelayOperation``, your own)
/// works in no container the condition can see, and it refuses to guess one: it fails with an
/// ``OperationConditionError`` that says to pass `container:`.
public struct AccountAvailable: OperationCondition {
    /// The container whose account is checked; nil checks the container of the operation the
    /// condition guards (see above).
    public let container: CKContainer?

    /// Creates the condition.
    ///
    /// - Parameter container: The container to check; nil for that of the operation the
    ///   condition guards, which must be a CloudKit operation or a recipe.
    public init(container: CKContainer? = nil) {
        self.container = container
    }

    /// Asks for the account status. - SeeAlso: ``OperationCondition/evaluate(for:)``
    public func evaluate(for operation: Operation) async -> OperationConditionResult {
        guard let container = self.container ?? (operation as? any ContainerCarrying)?.carriedContainer else {
            let reason = "\(Toolkit.describe(operation)) works in no container it can see, and it does not guess one; "
                + "create the condition with AccountAvailable(container:)"
            return .failed(OperationConditionError(conditionName: name, reason: reason))
        }
        let status: CKAccountStatus
        do {
            status = try await container.accountStatus()
        } catch {
            return .failed(error)
        }
        let subject = "AccountAvailable stopped \(Toolkit.describe(operation)) before it sent anything"
        switch status {
        case .available:
            return .satisfied
        case .noAccount:
            return .failed(CKError(.notAuthenticated, message: "no iCloud account is signed in on this device (\(container.containerIdentifier ?? "container")): \(subject); sign in, then try again when .CKAccountChanged is posted"))
        case .restricted:
            return .failed(CKError(.notAuthenticated, message: "the device's iCloud account is restricted (parental controls or device management): \(subject)"))
        case .temporarilyUnavailable:
            return .failed(CKError(.accountTemporarilyUnavailable, message: "the device's iCloud account is temporarily unavailable: \(subject); try again when .CKAccountChanged is posted"))
        case .couldNotDetermine:
            return .failed(CKError(.notAuthenticated, message: "the device's iCloud account status could not be determined: \(subject)"))
        @unknown default:
            return .failed(CKError(.notAuthenticated, message: "the device's iCloud account status (\(status.rawValue)) is not usable: \(subject)"))
        }
    }
}
