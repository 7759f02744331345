import Foundation
import StratusWire

// A share archives as one blob, like every record, of its own kinds: `.share` holds the
// record's whole state followed by the sharing state the server last sent and the current one
// (participants with their current role and permission, and any refused change);
// `.shareSystemFields` holds the system fields followed by the sharing state the server last
// sent, which a decoded share also takes as its current one.

extension CKShare {
    /// The blob of a share: its whole state, or its system fields and saved sharing state.
    func shareArchiveBlob(systemFieldsOnly: Bool) -> [UInt8] {
        let state = state.withLock { $0 }
        let saved = state.snapshot.shareInfo
        guard !systemFieldsOnly else {
            return ArchiveEnvelope.seal(.shareSystemFields) { writer in
                state.snapshot.systemFieldsOnly.write(to: &writer)
                WireShareInfo.write(saved, to: &writer)
            }
        }
        let sharing = sharing.withLock { $0 }
        return ArchiveEnvelope.seal(.share) { writer in
            state.write(to: &writer)
            WireShareInfo.write(saved, to: &writer)
            sharing.write(to: &writer)
        }
    }

    /// The record and sharing states archived by ``archiveBlob(systemFieldsOnly:)``.
    static func decodeShare(_ blob: Data) throws(BinaryFormatError) -> (State, Sharing) {
        var (kind, reader) = try ArchiveEnvelope.open(blob)
        var state: State
        let sharing: Sharing
        switch kind {
        case .share:
            state = try State.read(from: &reader)
            state.snapshot.shareInfo = try WireShareInfo.readOptional(from: &reader)
            sharing = try Sharing.read(from: &reader)
        case .shareSystemFields:
            state = try State.readSystemFields(from: &reader)
            let saved = try WireShareInfo.readOptional(from: &reader)
            state.snapshot.shareInfo = saved
            // A share never saved keeps no participants in its system fields: it starts again
            // with only its owner, as a new share does.
            sharing = saved.map(Sharing.init) ?? Sharing(
                publicPermission: .none,
                participants: [.newOwner(ownerName: state.snapshot.recordID.zoneID.ownerName)]
            )
        default:
            throw BinaryFormatError("blob holds a \(kind), not a share")
        }
        try reader.expectEnd()
        guard state.snapshot.recordType == SystemType.share else {
            throw BinaryFormatError("a share archive holds a record of type '\(state.snapshot.recordType)'")
        }
        return (state, sharing)
    }
}

extension CKShare.Sharing {
    /// Writes the current state, keeping raw values CloudKit does not define as they are.
    func write(to writer: inout BinaryWriter) {
        writer.write(Int64(publicPermission.rawValue))
        writer.write(url)
        writer.writeCount(participants.count)
        for participant in participants { participant.writeCurrentValues(to: &writer) }
        writer.writeCount(refusals.count)
        for id in refusals.keys.sorted() {
            writer.write(id)
            writer.write(refusals[id] ?? "")
        }
    }

    /// Reads what ``write(to:)`` wrote.
    static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> CKShare.Sharing {
        let raw = try reader.readInt64()
        guard let permission = Int(exactly: raw).flatMap(CKShare.ParticipantPermission.init(rawValue:)) else {
            throw BinaryFormatError("public permission \(raw) does not fit an Int")
        }
        let url = try reader.readOptionalString()
        let count = try reader.readCount(minimumItemSize: 12)
        var participants: [CKShareParticipant] = []
        var seen: Set<String> = []
        for _ in 0..<count {
            let participant = try CKShareParticipant.readCurrentValues(from: &reader)
            guard seen.insert(participant.participantID).inserted else {
                throw BinaryFormatError("participant '\(participant.participantID)' appears twice")
            }
            participants.append(participant)
        }
        let refusalCount = try reader.readCount(minimumItemSize: 8)
        var refusals: [String: String] = [:]
        for _ in 0..<refusalCount {
            let id = try reader.readString()
            guard refusals[id] == nil else { throw BinaryFormatError("refusal for participant '\(id)' appears twice") }
            refusals[id] = try reader.readString()
        }
        return CKShare.Sharing(publicPermission: permission, url: url, participants: participants, refusals: refusals)
    }
}
