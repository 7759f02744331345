import StratusWire

/// Bytes the server hands out and takes back unchanged (query cursors, change tokens): a body
/// followed by its HMAC-SHA-256 under the server's own key, so that a flipped byte, a forged
/// value or one from another server is refused.
enum Sealing {
    /// `body` followed by its MAC under `key`.
    static func seal(_ body: [UInt8], key: [UInt8]) -> [UInt8] {
        body + HMAC.sha256(key: key, message: body)
    }

    /// The body of bytes sealed with `key`, or nil for bytes this server did not seal. The MAC
    /// is compared in constant time (``ConstantTime/equal(_:_:)``), so how long a refusal takes
    /// does not tell how much of a forged MAC was right.
    static func open(_ bytes: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard bytes.count > 32 else { return nil }
        let body = Array(bytes.dropLast(32))
        guard ConstantTime.equal(bytes.suffix(32), HMAC.sha256(key: key, message: body)) else { return nil }
        return body
    }
}

/// What every sealed value the server hands out starts with: its format version, and whose it
/// is (container, database, user), which the server checks before it reads the rest.
struct SealedOwner: Hashable {
    var containerIdentifier: String
    var database: WireDatabaseScope
    var userRecordName: String?

    /// A writer holding `version` and the owner, for the value's own fields to follow.
    func writer(version: UInt8) -> BinaryWriter {
        var writer = BinaryWriter()
        writer.write(version)
        writer.write(containerIdentifier)
        writer.write(UInt8(database.rawValue))
        writer.write(userRecordName)
        return writer
    }

    /// Opens `bytes` sealed with `key` and reads the owner of `version`, then the rest with
    /// `body`; anything else (not sealed here, altered, another version, bytes left over) is
    /// `refused`.
    static func open<Value>(
        _ bytes: [UInt8], key: [UInt8], version: UInt8, refused: WireError,
        _ body: (SealedOwner, inout BinaryReader) throws(BinaryFormatError) -> Value
    ) throws(WireError) -> Value {
        guard let sealed = Sealing.open(bytes, key: key) else { throw refused }
        var reader = BinaryReader(sealed)
        do throws(BinaryFormatError) {
            guard try reader.readByte() == version else { throw BinaryFormatError("version") }
            let container = try reader.readString()
            guard let database = WireDatabaseScope(rawValue: Int(try reader.readByte())) else { throw BinaryFormatError("database") }
            let owner = SealedOwner(containerIdentifier: container, database: database, userRecordName: try reader.readOptionalString())
            let value = try body(owner, &reader)
            try reader.expectEnd()
            return value
        } catch {
            throw refused
        }
    }
}
