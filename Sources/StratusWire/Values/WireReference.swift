/// A link from one record to another: the value twin of `CKRecord.Reference`.
public struct WireReference: Hashable, Sendable {
    /// What happens to the record that holds the reference when its target is deleted.
    public enum Action: Int, Hashable, Sendable {
        /// Nothing: the reference simply dangles.
        case none = 0
        /// The record holding the reference is deleted with its target.
        case deleteSelf = 1
    }

    /// The record the reference points at.
    public var recordID: WireRecordID
    /// The delete rule.
    public var action: Action

    /// Creates a reference.
    public init(recordID: WireRecordID, action: Action) {
        self.recordID = recordID
        self.action = action
    }
}
