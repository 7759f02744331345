import Foundation
import StratusWire

extension CKRecord {
    /// Records decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// Encodes the whole record: system fields, values, and which keys were changed, so an
    /// unsaved edit survives an app restart and still saves as an edit of the version it was
    /// based on.
    public func encode(with coder: NSCoder) {
        SecureCodingBlob.encode(archiveBlob(systemFieldsOnly: false), with: coder)
    }

    /// Encodes only the system fields: ID, type, change tag, dates, users and parent, with no
    /// values. Decoding the result gives a record with no values and no changed keys whose next
    /// save carries the right change tag: the way to cache a record's metadata locally.
    public func encodeSystemFields(with coder: NSCoder) {
        SecureCodingBlob.encode(archiveBlob(systemFieldsOnly: true), with: coder)
    }

    /// The blob of a record that is not a share: its whole state, or its system fields.
    func recordArchiveBlob(systemFieldsOnly: Bool) -> [UInt8] {
        let state = state.withLock { $0 }
        guard !systemFieldsOnly else {
            return ArchiveEnvelope.seal(.recordSystemFields) { state.snapshot.systemFieldsOnly.write(to: &$0) }
        }
        return ArchiveEnvelope.seal(.record) { state.write(to: &$0) }
    }

    /// The state archived by ``encode(with:)`` or ``encodeSystemFields(with:)``.
    static func decodeState(_ blob: Data) throws(BinaryFormatError) -> State {
        var (kind, reader) = try ArchiveEnvelope.open(blob)
        let state: State
        switch kind {
        case .record:
            state = try State.read(from: &reader)
        case .recordSystemFields:
            state = try State.readSystemFields(from: &reader)
        case .share, .shareSystemFields:
            // A share's archive read as a plain record, as `CKRecord(coder:)` reads one in
            // CloudKit: the record part, with the sharing state the server last sent.
            (state, _) = try CKShare.decodeShare(blob)
            return state
        default:
            throw BinaryFormatError("blob holds a \(kind), not a record")
        }
        try reader.expectEnd()
        return state
    }

    /// A new record with the same identity, system fields, values and changed keys; a share
    /// copies its participants too.
    public func copy(with zone: NSZone? = nil) -> Any {
        makeCopy()
    }
}

extension CKRecord.State {
    /// Writes the whole state: snapshot (without a share's state, which a share writes after
    /// it), changed keys and rejections, and whether the parent changed.
    func write(to writer: inout BinaryWriter) {
        snapshot.write(to: &writer)
        plain.write(to: &writer)
        encrypted.write(to: &writer)
        writer.write(parentChanged)
    }

    /// Reads what ``write(to:)`` wrote.
    static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> CKRecord.State {
        CKRecord.State(
            snapshot: try WireRecord.read(from: &reader),
            plain: try FieldChanges.read(from: &reader, encrypted: false),
            encrypted: try FieldChanges.read(from: &reader, encrypted: true),
            parentChanged: try reader.readBool()
        )
    }

    /// Reads a system-fields snapshot, which may hold no values.
    static func readSystemFields(from reader: inout BinaryReader) throws(BinaryFormatError) -> CKRecord.State {
        let snapshot = try WireRecord.read(from: &reader)
        guard snapshot.fields.isEmpty, snapshot.encryptedFields.isEmpty else {
            throw BinaryFormatError("a system-fields archive holds values")
        }
        return CKRecord.State(snapshot: snapshot)
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
