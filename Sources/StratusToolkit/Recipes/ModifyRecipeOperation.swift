import Foundation
import StratusCore
import StratusOperations

/// The base of the modify recipes as operations — ``RetryModifyRecordsOperation``,
/// ``BatchModifyOperation`` and ``ConflictResolvingSaveOperation`` — with the blocks and
/// settings of a `CKModifyRecordsOperation`.
///
/// Its blocks report each record once, as if one `CKModifyRecordsOperation` had run, however
/// many requests the recipe sent: ``perRecordSaveBlock`` and ``perRecordDeleteBlock`` once per
/// item in the order given, then ``modifyRecordsResultBlock`` once. A record is reported saved
/// only when the server saved it.
public class ModifyRecipeOperation: RecipeOperation, @unchecked Sendable {
    /// The database the recipe saves to and deletes from.
    public let database: CKDatabase

    init(database: CKDatabase, recordsToSave: [CKRecord], recordIDsToDelete: [CKRecord.ID]) {
        self.database = database
        _recordsToSave = _Locked(wrappedValue: recordsToSave)
        _recordIDsToDelete = _Locked(wrappedValue: recordIDsToDelete)
        super.init()
    }

    // MARK: - Settings

    /// The records to save; they are not changed.
    @_Locked public var recordsToSave: [CKRecord]

    /// The records to delete.
    @_Locked public var recordIDsToDelete: [CKRecord.ID]

    /// How saves treat the server's copies: `.ifServerRecordUnchanged` unless set.
    @_Locked public var savePolicy: CKRecordSavePolicy = CKRecordSavePolicy.ifServerRecordUnchanged

    /// Whether each atomic zone applies its part of a request all or nothing: true unless set.
    @_Locked public var isAtomic: Bool = true

    /// The `clientChangeTokenData` of the first request; nil sends fresh bytes. Every retry of
    /// items sends fresh bytes, so the server applies it rather than answering it as a repeat.
    @_Locked public var clientChangeTokenData: Data? = nil

    /// Builds each request's `CKModifyRecordsOperation` from the items it sends (see
    /// ``ModifyOperationFactory``): a plain operation unless set. Released (reset to a plain
    /// operation) once the recipe finishes.
    @_Locked public var makeOperation: ModifyOperationFactory = ModifyAttempt.plainOperation

    override func releaseClosures() {
        makeOperation = ModifyAttempt.plainOperation
    }

    // MARK: - Blocks

    /// Called once per record to save, in the order given: the saved record, or why it was not
    /// saved in the end.
    @_OperationBlock public var perRecordSaveBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?

    /// Called once per record to delete, in the order given.
    @_OperationBlock public var perRecordDeleteBlock: ((CKRecord.ID, Result<Void, any Error>) -> Void)?

    /// Called once, last: success; the error of the request when every item failed with it;
    /// or a `partialFailure` whose `partialErrorsByItemID` holds every failed item.
    @_OperationBlock public var modifyRecordsResultBlock: ((Result<Void, any Error>) -> Void)?

    // MARK: - Running

    /// The options of this recipe, from the settings; subclasses add their own.
    func recipeOptions() -> ModifyRecipeOptions {
        var options = ModifyRecipeOptions()
        options.savePolicy = savePolicy
        options.isAtomic = isAtomic
        options.clientChangeTokenData = clientChangeTokenData
        options.makeOperation = makeOperation
        return options
    }

    override func execute() async {
        var run = ModifyRecipeRun(database: database, saving: recordsToSave, deleting: recordIDsToDelete, options: recipeOptions())
        deliver(await run.run())
    }

    override func reportFailure(_ error: CKError) {
        let saves = recordsToSave.map { ($0.recordID, Result<CKRecord, any Error>.failure(error)) }
        let deletes = recordIDsToDelete.map { ($0, Result<Void, any Error>.failure(error)) }
        deliver(ModifyRecipeOutcome(saves: saves, deletes: deletes, failure: saves.isEmpty && deletes.isEmpty ? nil : error))
    }

    private func deliver(_ outcome: ModifyRecipeOutcome) {
        deliverEach(outcome.saves, to: perRecordSaveBlock)
        deliverEach(outcome.deletes, to: perRecordDeleteBlock)
        deliverFinal(outcome.failure, to: modifyRecordsResultBlock)
    }
}
