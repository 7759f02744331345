// The archive encoding of the sharing values: identities, participants, a share's state and
// share metadata. Each `read` checks what it reads and throws `BinaryFormatError` for
// anything another build of Stratus could not have written.

extension WireUserIdentity {
    package func write(to writer: inout BinaryWriter) {
        writer.write(userRecordName)
        writer.write(lookupInfo != nil)
        lookupInfo?.write(to: &writer)
        writer.write(nameComponents != nil)
        nameComponents?.write(to: &writer)
        writer.write(contactIdentifiers)
        writer.write(hasiCloudAccount)
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireUserIdentity {
        WireUserIdentity(
            userRecordName: try reader.readOptionalString(),
            lookupInfo: try reader.readBool() ? try WireUserLookupInfo.read(from: &reader) : nil,
            nameComponents: try reader.readBool() ? try WireNameComponents.read(from: &reader) : nil,
            contactIdentifiers: try reader.readStrings(),
            hasiCloudAccount: try reader.readBool()
        )
    }
}

extension WireParticipantPermission: BinaryEnumeration {
    package static let binaryName = "participant permission"
}

extension WireParticipantRole: BinaryEnumeration {
    package static let binaryName = "participant role"
}

extension WireParticipantAcceptanceStatus: BinaryEnumeration {
    package static let binaryName = "participant acceptance status"
}

extension WireShareParticipant {
    package func write(to writer: inout BinaryWriter) {
        writer.write(participantID)
        identity.write(to: &writer)
        role.write(to: &writer)
        acceptanceStatus.write(to: &writer)
        permission.write(to: &writer)
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireShareParticipant {
        WireShareParticipant(
            participantID: try reader.readString(),
            identity: try WireUserIdentity.read(from: &reader),
            role: try WireParticipantRole.read(from: &reader),
            acceptanceStatus: try WireParticipantAcceptanceStatus.read(from: &reader),
            permission: try WireParticipantPermission.read(from: &reader)
        )
    }
}

extension WireShareInfo {
    package func write(to writer: inout BinaryWriter) {
        publicPermission.write(to: &writer)
        writer.write(url)
        writer.writeCount(participants.count)
        for participant in participants { participant.write(to: &writer) }
    }

    /// Reads what ``write(to:)`` wrote; two participants may not share a participant ID.
    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireShareInfo {
        let publicPermission = try WireParticipantPermission.read(from: &reader)
        let url = try reader.readOptionalString()
        let count = try reader.readCount(minimumItemSize: 12)
        var participants: [WireShareParticipant] = []
        var seen: Set<String> = []
        for _ in 0..<count {
            let participant = try WireShareParticipant.read(from: &reader)
            guard seen.insert(participant.participantID).inserted else {
                throw BinaryFormatError("participant '\(participant.participantID)' appears twice")
            }
            participants.append(participant)
        }
        return WireShareInfo(publicPermission: publicPermission, url: url, participants: participants)
    }

    /// Writes an optional state: a flag, then the state when there is one.
    package static func write(_ info: WireShareInfo?, to writer: inout BinaryWriter) {
        writer.write(info != nil)
        info?.write(to: &writer)
    }

    /// Reads what ``write(_:to:)`` wrote.
    package static func readOptional(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireShareInfo? {
        try reader.readBool() ? try read(from: &reader) : nil
    }
}

extension WireShareMetadata {
    package func write(to writer: inout BinaryWriter) {
        writer.write(containerIdentifier)
        share.write(to: &writer)
        (share.shareInfo ?? WireShareInfo()).write(to: &writer)
        writer.write(hierarchicalRootRecordID != nil)
        hierarchicalRootRecordID?.write(to: &writer)
        writer.write(rootRecord != nil)
        rootRecord?.write(to: &writer)
        participantRole.write(to: &writer)
        participantStatus.write(to: &writer)
        participantPermission.write(to: &writer)
        ownerIdentity.write(to: &writer)
    }

    /// Reads what ``write(to:)`` wrote; the share must be of type `cloudkit.share`.
    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireShareMetadata {
        let containerIdentifier = try reader.readString()
        var share = try WireRecord.read(from: &reader)
        guard share.recordType == WireShareInfo.recordType else {
            throw BinaryFormatError("share metadata holds a record of type '\(share.recordType)', not a share")
        }
        share.shareInfo = try WireShareInfo.read(from: &reader)
        return WireShareMetadata(
            containerIdentifier: containerIdentifier,
            share: share,
            hierarchicalRootRecordID: try reader.readBool() ? try WireRecordID.read(from: &reader) : nil,
            rootRecord: try reader.readBool() ? try WireRecord.read(from: &reader) : nil,
            participantRole: try WireParticipantRole.read(from: &reader),
            participantStatus: try WireParticipantAcceptanceStatus.read(from: &reader),
            participantPermission: try WireParticipantPermission.read(from: &reader),
            ownerIdentity: try WireUserIdentity.read(from: &reader)
        )
    }
}
