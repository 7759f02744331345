// The archive encoding of user lookup infos and names. Each `read` checks what it reads and
// throws `BinaryFormatError` for anything another build of Stratus could not have written.

extension WireUserLookupInfo {
    private enum Tag: UInt8 {
        case email = 1
        case phone = 2
        case userRecordID = 3
    }

    /// Writes the one field the info sets, after a tag naming it. An info that sets none is
    /// written as an empty email address (a lookup info built by its initialisers always sets one).
    package func write(to writer: inout BinaryWriter) {
        if let userRecordID {
            writer.write(Tag.userRecordID.rawValue)
            userRecordID.write(to: &writer)
        } else if let phoneNumber {
            writer.write(Tag.phone.rawValue)
            writer.write(phoneNumber)
        } else {
            writer.write(Tag.email.rawValue)
            writer.write(emailAddress ?? "")
        }
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireUserLookupInfo {
        let tag = try reader.readByte()
        switch Tag(rawValue: tag) {
        case .email: return WireUserLookupInfo(emailAddress: try reader.readString())
        case .phone: return WireUserLookupInfo(phoneNumber: try reader.readString())
        case .userRecordID: return WireUserLookupInfo(userRecordID: try WireRecordID.read(from: &reader))
        case nil: throw BinaryFormatError("unknown lookup info kind \(tag)")
        }
    }
}

extension WireNameComponents {
    package func write(to writer: inout BinaryWriter) {
        for part in [namePrefix, givenName, middleName, familyName, nameSuffix, nickname] {
            writer.write(part)
        }
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireNameComponents {
        WireNameComponents(
            namePrefix: try reader.readOptionalString(),
            givenName: try reader.readOptionalString(),
            middleName: try reader.readOptionalString(),
            familyName: try reader.readOptionalString(),
            nameSuffix: try reader.readOptionalString(),
            nickname: try reader.readOptionalString()
        )
    }
}
