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

    private let storedRecordsToSave: Locked<[CKRecord]>
    private let storedRecordIDsToDelete: Locked<[CKRecord.ID]>
    private let storedSavePolicy = Locked(CKRecordSavePolicy.ifServerRecordUnchanged)
    private let storedIsAtomic = Locked(true)
    private let storedClientChangeTokenData = Locked<Data?>(nil)
    private let storedMakeOperation = Locked<ModifyOperationFactory>(ModifyAttempt.plainOperation)

    init(database: CKDatabase, recordsToSave: [CKRecord], recordIDsToDelete: [CKRecord.ID]) {
        self.database = database
        storedRecordsToSave = Locked(recordsToSave)
        storedRecordIDsToDelete = Locked(recordIDsToDelete)
        super.init()
    }

    // MARK: - Settings

    /// The records to save; they are not changed.
    public var recordsToSave: [CKRecord] {
        get { storedRecordsToSave.value }
        set { storedRecordsToSave.value = newValue }
    }

    /// The records to delete.
    public var recordIDsToDelete: [CKRecord.ID] {
        get { storedRecordIDsToDelete.value }
        set { storedRecordIDsToDelete.value = newValue }
    }

    /// How saves treat the server's copies: `.ifServerRecordUnchanged` unless set.
    public var savePolicy: CKRecordSavePolicy {
        get { storedSavePolicy.value }
        set { storedSavePolicy.value = newValue }
    }

    /// Whether each atomic zone applies its part of a request all or nothing: true unless set.
    public var isAtomic: Bool {
        get { storedIsAtomic.value }
        set { storedIsAtomic.value = newValue }
    }

    /// The `clientChangeTokenData` of the first request; nil sends fresh bytes. Every retry of
    /// items sends fresh bytes, so the server applies it rather than answering it as a repeat.
    public var clientChangeTokenData: Data? {
        get { storedClientChangeTokenData.value }
        set { storedClientChangeTokenData.value = newValue }
    }

    /// Builds each request's `CKModifyRecordsOperation` from the items it sends (see
    /// ``ModifyOperationFactory``): a plain operation unless set. Released (reset to a plain
    /// operation) once the recipe finishes.
    public var makeOperation: ModifyOperationFactory {
        get { storedMakeOperation.value }
        set { storedMakeOperation.value = newValue }
    }

    override func releaseClosures() {
        makeOperation = ModifyAttempt.plainOperation
    }

    // MARK: - Blocks

    /// Called once per record to save, in the order given: the saved record, or why it was not
    /// saved in the end.
    public var perRecordSaveBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)? {
        get { blocks.get() }
        set { blocks.set(newValue) }
    }

    /// Called once per record to delete, in the order given.
    public var perRecordDeleteBlock: ((CKRecord.ID, Result<Void, any Error>) -> Void)? {
        get { blocks.get() }
        set { blocks.set(newValue) }
    }

    /// Called once, last: success; the error of the request when every item failed with it;
    /// or a `partialFailure` whose `partialErrorsByItemID` holds every failed item.
    public var modifyRecordsResultBlock: ((Result<Void, any Error>) -> Void)? {
        get { blocks.get() }
        set { blocks.set(newValue) }
    }

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
        if let perSave = perRecordSaveBlock {
            for (recordID, result) in outcome.saves { perSave(recordID, result) }
        }
        if let perDelete = perRecordDeleteBlock {
            for (recordID, result) in outcome.deletes { perDelete(recordID, result) }
        }
        let result: Result<Void, any Error> = outcome.failure.map { .failure($0) } ?? .success(())
        noteFinalResult(result)
        modifyRecordsResultBlock?(result)
    }
}
