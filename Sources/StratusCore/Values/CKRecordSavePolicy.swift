import StratusWire

/// How a save treats the server's copy of a record. Swift code usually spells it
/// `CKModifyRecordsOperation.RecordSavePolicy`.
///
/// | policy | keys sent | change tag compared | can fail with `serverRecordChanged` |
/// |---|---|---|---|
/// | ``ifServerRecordUnchanged`` | changed keys | yes | yes |
/// | ``changedKeys`` | changed keys | no | no |
/// | ``allKeys`` | every key the record has | no | no |
///
/// Under every policy a key set to nil deletes the field, and fields that only the server has
/// are kept.
///
/// Declared in C, so that Swift imports it as it imports CloudKit's: a non-frozen enum, whose
/// `switch`es end with `@unknown default`.
extension CKRecordSavePolicy {
    /// The policy on the wire; a value CloudKit does not define counts as the default,
    /// `.ifServerRecordUnchanged`.
    package var wireValue: WireSavePolicy {
        switch self {
        case .ifServerRecordUnchanged: .ifServerRecordUnchanged
        case .changedKeys: .changedKeys
        case .allKeys: .allKeys
        @unknown default: .ifServerRecordUnchanged
        }
    }
}
