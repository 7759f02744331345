/// The frame around every Stratus archive blob: magic, format version, object kind, payload and
/// a CRC-32 of everything before it.
///
/// ```
/// "STRA" | version: UInt8 | kind: UInt8 | payload … | crc32: UInt32 (little-endian)
/// ```
///
/// A blob with another magic, version or kind, a wrong checksum, or a payload that does not
/// parse to the end is refused as a whole.
package enum ArchiveEnvelope {
    /// The format version this build writes and reads.
    package static let currentVersion: UInt8 = 1

    private static let magic: [UInt8] = Array("STRA".utf8)
    private static let headerSize = 6
    private static let trailerSize = 4

    /// The object a blob holds.
    package enum Kind: UInt8, Sendable, CaseIterable {
        case record = 1
        case recordSystemFields = 2
        case recordID = 3
        case zoneID = 4
        case zone = 5
        case reference = 6
        case asset = 7
        case serverChangeToken = 8
        case queryCursor = 9
        case query = 10
        case operationGroup = 11
        // People take numbers of their own, apart from the record family's.
        case userIdentityLookupInfo = 30
        case userIdentity = 31
        // Subscriptions take numbers of their own too.
        case subscription = 40
        case notificationInfo = 41
        // Notifications follow subscriptions.
        case notificationID = 42
        // Sharing takes numbers of its own.
        case share = 50
        case shareSystemFields = 51
        case shareParticipant = 52
        case shareMetadata = 53
    }

    /// Frames `payload` as a blob of `kind`.
    package static func seal(_ kind: Kind, payload: (inout BinaryWriter) -> Void) -> [UInt8] {
        var writer = BinaryWriter()
        for byte in magic { writer.write(byte) }
        writer.write(currentVersion)
        writer.write(kind.rawValue)
        payload(&writer)
        let crc = CRC32.checksum(writer.bytes)
        writer.write(crc)
        return writer.bytes
    }

    /// Checks the frame of `blob` and returns its kind and a reader over its payload.
    package static func open<Bytes: Collection>(
        _ blob: Bytes
    ) throws(BinaryFormatError) -> (kind: Kind, payload: BinaryReader) where Bytes.Element == UInt8 {
        let bytes = Array(blob)
        guard bytes.count >= headerSize + trailerSize else {
            throw BinaryFormatError("blob of \(bytes.count) bytes is shorter than its frame")
        }
        guard Array(bytes[0..<4]) == magic else { throw BinaryFormatError("not a Stratus archive blob") }
        let body = bytes[0..<(bytes.count - trailerSize)]
        var trailer = BinaryReader(bytes[(bytes.count - trailerSize)...])
        guard try trailer.readUInt32() == CRC32.checksum(body) else {
            throw BinaryFormatError("checksum mismatch: the blob is damaged")
        }
        guard bytes[4] == currentVersion else {
            throw BinaryFormatError("format version \(bytes[4]) is not \(currentVersion)")
        }
        guard let kind = Kind(rawValue: bytes[5]) else {
            throw BinaryFormatError("unknown object kind \(bytes[5])")
        }
        return (kind, BinaryReader(bytes[headerSize..<(bytes.count - trailerSize)]))
    }

    /// Opens `blob`, checks that it holds `expected`, and parses its whole payload with `read`.
    package static func decode<Bytes: Collection, Value>(
        _ blob: Bytes,
        as expected: Kind,
        _ read: (inout BinaryReader) throws(BinaryFormatError) -> Value
    ) throws(BinaryFormatError) -> Value where Bytes.Element == UInt8 {
        var (kind, reader) = try open(blob)
        guard kind == expected else {
            throw BinaryFormatError("blob holds a \(kind), not a \(expected)")
        }
        let value = try read(&reader)
        try reader.expectEnd()
        return value
    }
}
