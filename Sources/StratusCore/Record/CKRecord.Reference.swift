import Foundation
import StratusWire

extension CKRecord {
    /// What happens to a record when the record its reference points at is deleted: `.none`
    /// or `.deleteSelf`. Declared in C as `CKReferenceAction`, so that Swift imports it as it
    /// imports CloudKit's: a non-frozen enum, whose `switch`es end with `@unknown default`.
    public typealias ReferenceAction = CKReferenceAction

    /// A link from one record to another in the same zone. See ``CKReference``.
    public typealias Reference = CKReference
}

/// A link from one record to another in the same zone. Swift code spells it `CKRecord.Reference`.
///
/// A reference with ``CKRecord/ReferenceAction/deleteSelf`` makes its record an owned child:
/// deleting the target deletes it too. Saving a record that references another never changes
/// the target's change tag. In queries a reference matches by record ID only.
///
/// References are equal when their record IDs and actions are equal. The class is declared at
/// the top level, under CloudKit's Objective-C name, because `NSKeyedArchiver` on Linux cannot
/// archive an object of a nested class.
///
/// CloudKit document: *CKRecord.Reference*.
public final class CKReference: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// The record the reference points at.
    public let recordID: CKRecord.ID
    /// The delete rule.
    public let action: CKRecord.ReferenceAction

    /// The delete rule: CloudKit's name for ``action``.
    public var referenceAction: CKRecord.ReferenceAction { action }

    /// Creates a reference to the record with `recordID`.
    public init(recordID: CKRecord.ID, action: CKRecord.ReferenceAction) {
        self.recordID = recordID
        self.action = action
    }

    /// Creates a reference to `record`.
    public convenience init(record: CKRecord, action: CKRecord.ReferenceAction) {
        self.init(recordID: record.recordID, action: action)
    }

    package convenience init(wire: WireReference) {
        self.init(recordID: CKRecord.ID(wire: wire.recordID), action: wire.action == .deleteSelf ? .deleteSelf : .none)
    }

    package var wireValue: WireReference {
        WireReference(recordID: recordID.wireValue, action: action == .deleteSelf ? .deleteSelf : .none)
    }

    /// Whether `object` is a reference to the same record with the same action.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKReference else { return false }
        return other === self || (other.action == action && other.recordID.isEqual(recordID))
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { recordID.hash &+ Int(action.rawValue) }

    /// Returns self: a reference is immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// References decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's name for the class, `CKReference`: the class table of an archive whose root or
    /// nested object this is lists it as the class's fallback (`$classhints`). Foundation on
    /// Linux writes the module-qualified Swift name as `$classname` and offers no way to change
    /// it (see ``SecureCodingBlob``).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKReference"] }

    /// Encodes the reference as one versioned blob.
    public func encode(with coder: NSCoder) {
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.reference) { wireValue.write(to: &$0) }, with: coder)
    }

    /// Decodes a reference; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let wire = SecureCodingBlob.decode(from: coder, as: .reference, WireReference.read) else { return nil }
        self.init(wire: wire)
    }

    /// A summary such as `<CKReference: recordID=…, action=deleteSelf>`.
    public override var description: String {
        "<CKReference: recordID=\(recordID), action=\(action == .deleteSelf ? "deleteSelf" : "none")>"
    }
}

extension CKReference: __CKRecordObjCValue {}
