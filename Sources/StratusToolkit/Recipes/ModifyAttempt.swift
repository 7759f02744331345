import Foundation
import StratusCore
import StratusOperations
import StratusWire

/// Builds the `CKModifyRecordsOperation` of one attempt of a modify recipe from the records it
/// saves and deletes this time. Called once per attempt, so each attempt is a fresh operation;
/// use it to set a configuration, a group or a quality of service. The recipe then sets the
/// operation's records, `savePolicy`, `isAtomic`, `clientChangeTokenData` and its blocks, over
/// whatever the closure set.
public typealias ModifyOperationFactory = @Sendable (_ recordsToSave: [CKRecord], _ recordIDsToDelete: [CKRecord.ID]) -> CKModifyRecordsOperation

/// One request of a modify recipe: a fresh `CKModifyRecordsOperation` and what each item got.
struct ModifyAttempt {
    /// Each save's result, in the order of the saves sent.
    var saveResults: [Result<CKRecord, any Error>]
    /// Each delete's result, in the order of the deletes sent.
    var deleteResults: [Result<Void, any Error>]
    /// The request's own error, when it failed as a whole (never `partialFailure`).
    var requestError: CKError?

    /// The default factory: a plain operation for the items.
    static let plainOperation: ModifyOperationFactory = { saves, deletes in
        CKModifyRecordsOperation(recordsToSave: saves, recordIDsToDelete: deletes)
    }

    /// Runs one operation for `saves` and `deletes` on `database` and waits for its final block.
    /// Cancelling the calling task cancels the operation.
    static func run(
        on database: CKDatabase,
        saving saves: [CKRecord],
        deleting deletes: [CKRecord.ID],
        options: ModifyRecipeOptions,
        clientChangeTokenData: Data
    ) async -> ModifyAttempt {
        let operation = freshOperation(saves, deletes, factory: options.makeOperation)
        operation.recordsToSave = saves
        operation.recordIDsToDelete = deletes
        operation.savePolicy = options.savePolicy
        operation.isAtomic = options.isAtomic
        operation.clientChangeTokenData = clientChangeTokenData
        if options.appliesConvenienceSettings { database.applyConvenienceSettings(to: operation) }

        let collected = Locked(ModifyAttempt(saveResults: [], deleteResults: [], requestError: nil))
        operation.perRecordSaveBlock = { _, result in collected.withValue { $0.saveResults.append(result) } }
        operation.perRecordDeleteBlock = { _, result in collected.withValue { $0.deleteResults.append(result) } }
        let final: Result<Void, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                operation.modifyRecordsResultBlock = { continuation.resume(returning: $0) }
                database.add(operation)
            }
        } onCancel: {
            operation.cancel()
        }
        var attempt = collected.value
        if case .failure(let error) = final, !error.isPartialFailure {
            attempt.requestError = (error as? CKError) ?? CKError(.internalError, message: "the operation failed with \(error)")
        }
        // An item the operation did not report gets the request's error, so counts always match.
        let missing = attempt.requestError ?? CKError(.internalError, message: "the modify operation reported no result for this item")
        while attempt.saveResults.count < saves.count { attempt.saveResults.append(.failure(missing)) }
        while attempt.deleteResults.count < deletes.count { attempt.deleteResults.append(.failure(missing)) }
        return attempt
    }

    /// The factory's operation, or a plain one when the factory returned one that was already
    /// added or run (adding it again would never call its blocks).
    private static func freshOperation(_ saves: [CKRecord], _ deletes: [CKRecord.ID], factory: ModifyOperationFactory) -> CKModifyRecordsOperation {
        let operation = factory(saves, deletes)
        guard operation.isFinished || operation.isExecuting || operation.isEnqueuedByStratus.value else { return operation }
        runtimeWarning("a modify recipe's factory returned an operation that was already added or run; a plain operation is used instead")
        return plainOperation(saves, deletes)
    }

    /// New bytes for `clientChangeTokenData`, so the server applies the attempt rather than
    /// answering it as a repeat of the device's last modify in a zone.
    static func freshClientChangeTokenData() -> Data {
        withUnsafeBytes(of: UUID().uuid) { Data($0) }
    }
}
