import Foundation
import StratusCore

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
public struct AccountAvailable: OperationCondition {
    /// The container whose account is checked; nil checks the CloudKit operation's own
    /// container, or `CKContainer.default()` for any other operation.
    public let container: CKContainer?

    /// Creates the condition.
    ///
    /// - Parameter container: The container to check; nil for the operation's own.
    public init(container: CKContainer? = nil) {
        self.container = container
    }

    /// Asks for the account status. - SeeAlso: ``OperationCondition/evaluate(for:)``
    public func evaluate(for operation: Operation) async -> OperationConditionResult {
        let container = self.container ?? (operation as? CKOperation)?.effectiveContainer ?? CKContainer.default()
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
