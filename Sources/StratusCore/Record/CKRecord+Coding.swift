import Foundation
import StratusWire

extension CKRecord {
    /// Records decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// Encodes the whole record: system fields, values, and which keys were changed, so an
    /// unsaved edit survives an app restart and still saves as an edit of the version it was
    /// based on.
    public func encode(with coder: NSCoder) {
        let state = state.withLock { $0 }
        let blob = ArchiveEnvelope.seal(.record) { writer in
            state.snapshot.write(to: &writer)
            state.plain.write(to: &writer)
            state.encrypted.write(to: &writer)
            writer.write(state.parentChanged)
        }
        SecureCodingBlob.encode(blob, with: coder)
    }

    /// Encodes only the system fields: ID, type, change tag, dates, users and parent, with no
    /// values. Decoding the result gives a record with no values and no changed keys whose next
    /// save carries the right change tag: the way to cache a record's metadata locally.
    public func encodeSystemFields(with coder: NSCoder) {
        let system = state.withLock { $0.snapshot.systemFieldsOnly }
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.recordSystemFields) { system.write(to: &$0) }, with: coder)
    }

    /// The state archived by ``encode(with:)`` or ``encodeSystemFields(with:)``.
    static func decodeState(_ blob: Data) throws(BinaryFormatError) -> State {
        var (kind, reader) = try ArchiveEnvelope.open(blob)
        let state: State
        switch kind {
        case .record:
            state = State(
                snapshot: try WireRecord.read(from: &reader),
                plain: try FieldChanges.read(from: &reader, encrypted: false),
                encrypted: try FieldChanges.read(from: &reader, encrypted: true),
                parentChanged: try reader.readBool()
            )
        case .recordSystemFields:
            let snapshot = try WireRecord.read(from: &reader)
            guard snapshot.fields.isEmpty, snapshot.encryptedFields.isEmpty else {
                throw BinaryFormatError("a system-fields archive holds values")
            }
            state = State(snapshot: snapshot)
        default:
            throw BinaryFormatError("blob holds a \(kind), not a record")
        }
        try reader.expectEnd()
        return state
    }

    /// A new record with the same identity, system fields, values and changed keys.
    public func copy(with zone: NSZone? = nil) -> Any {
        let state = state.withLock { $0 }
        return CKRecord(state: state, recordID: recordID)
    }
}

extension FieldChanges {
    func write(to writer: inout BinaryWriter) {
        writer.write(changed.sorted())
        writer.write(ancestor != nil)
        if let ancestor { WireFieldValue.write(ancestor, to: &writer) }
        writer.write(rejections.keys.sorted())
        for key in rejections.keys.sorted() { writer.write(rejections[key] ?? "") }
    }

    /// Reads what ``write(to:)`` wrote; the ancestor values must be values a record's plain or
    /// (when `encrypted`) encrypted fields can hold, as the current ones must.
    static func read(from reader: inout BinaryReader, encrypted: Bool) throws(BinaryFormatError) -> FieldChanges {
        var changes = FieldChanges()
        changes.changed = Set(try reader.readStrings())
        if try reader.readBool() { changes.ancestor = try WireFieldValue.readFields(from: &reader, encrypted: encrypted) }
        let keys = try reader.readStrings()
        for key in keys { changes.rejections[key] = try reader.readString() }
        guard changes.rejections.count == keys.count else { throw BinaryFormatError("a rejected key appears twice") }
        return changes
    }
}
