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
public enum CKRecordSavePolicy: Int, Hashable, Sendable {
    /// Save only if the server's change tag is the one the record carries (the default).
    case ifServerRecordUnchanged = 0
    /// Overwrite the changed keys, whatever the server has.
    case changedKeys = 1
    /// Overwrite every key the record has, whatever the server has.
    case allKeys = 2

    package var wireValue: WireSavePolicy {
        switch self {
        case .ifServerRecordUnchanged: .ifServerRecordUnchanged
        case .changedKeys: .changedKeys
        case .allKeys: .allKeys
        }
    }
}
