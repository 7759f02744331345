import Foundation
import StratusWire

// The sealed values behind asset URLs and receipts (``AssetTicket``, ``AssetDownloadHandle``),
// and the URLs' shape.

/// The asset URLs this server hands out: `stratus://embedded/assets/1/upload/{token}` and
/// `…/assets/1/download/{handle}`, read by their path alone.
enum AssetURL {
    /// The scheme and host of the asset URLs this server hands out.
    static let base = "stratus://embedded"

    /// The opaque part of an asset URL whose path is `prefix` followed by it.
    static func opaque(in url: String, after prefix: String) -> String? {
        guard let path = URLComponents(string: url)?.path, path.hasPrefix(prefix) else { return nil }
        let opaque = String(path.dropFirst(prefix.count))
        return opaque.isEmpty || opaque.contains("/") ? nil : opaque
    }
}

/// The record field an upload is for: what its token and receipt are bound to.
struct AssetTarget: Equatable {
    var containerIdentifier: String
    var database: WireDatabaseScope
    var userRecordName: String
    /// As the server names it (``RequestScope/normalized(_:)``).
    var zoneID: WireZoneID
    var recordName: String
    var recordType: String
    var fieldName: String

    /// Whether the two name the same field of the same record, byte for byte.
    func matches(_ other: AssetTarget) -> Bool {
        containerIdentifier.hasSameUTF8Bytes(as: other.containerIdentifier) && database == other.database
            && userRecordName.hasSameUTF8Bytes(as: other.userRecordName)
            && zoneID.zoneName.hasSameUTF8Bytes(as: other.zoneID.zoneName) && zoneID.ownerName.hasSameUTF8Bytes(as: other.zoneID.ownerName)
            && recordName.hasSameUTF8Bytes(as: other.recordName) && recordType.hasSameUTF8Bytes(as: other.recordType)
            && fieldName.hasSameUTF8Bytes(as: other.fieldName)
    }
}

/// An upload token (no `file`) or the receipt for bytes uploaded with one: the target, when it
/// expires, and for a receipt the stored bytes and the upload that holds them. On the wire: the
/// owner header every sealed value starts with (``SealedOwner``), a kind, the fields, and an
/// HMAC-SHA-256 under the server's key, in unpadded base64url.
struct AssetTicket {
    static let version: UInt8 = 1

    /// What a receipt adds: the bytes uploaded.
    struct File: Equatable {
        /// The stored file's name, the asset's `fileChecksum`.
        var checksum: String
        var size: Int64
        /// The upload whose hold a save takes over.
        var upload: UInt64
    }

    var target: AssetTarget
    var expires: Date
    var file: File?

    func sealed(with key: [UInt8]) -> String {
        let owner = SealedOwner(containerIdentifier: target.containerIdentifier, database: target.database, userRecordName: target.userRecordName)
        var writer = owner.writer(version: Self.version)
        writer.write(UInt8(file == nil ? 1 : 2))
        target.zoneID.write(to: &writer)
        writer.write(target.recordName)
        writer.write(target.recordType)
        writer.write(target.fieldName)
        writer.write(expires)
        if let file {
            writer.write(file.checksum)
            writer.write(file.size)
            writer.write(file.upload)
        }
        return AssetSealing.encode(Sealing.seal(writer.bytes, key: key))
    }

    /// The token or receipt `text` seals with `key`; nil for anything else.
    static func open(_ text: String, key: [UInt8]) -> AssetTicket? {
        guard let bytes = AssetSealing.decode(text) else { return nil }
        let refused = WireError(.invalidArguments, "not an asset ticket this server sealed")
        return try? SealedOwner.open(bytes, key: key, version: version, refused: refused) { (owner, reader) throws(BinaryFormatError) in
            let kind = try reader.readByte()
            guard kind == 1 || kind == 2 else { throw BinaryFormatError("kind") }
            guard let user = owner.userRecordName else { throw BinaryFormatError("user") }
            let target = AssetTarget(
                containerIdentifier: owner.containerIdentifier, database: owner.database, userRecordName: user,
                zoneID: try WireZoneID.read(from: &reader), recordName: try reader.readString(),
                recordType: try reader.readString(), fieldName: try reader.readString()
            )
            let expires = try reader.readDate()
            let file = kind == 2 ? File(checksum: try reader.readString(), size: try reader.readInt64(), upload: try reader.readUInt64()) : nil
            return AssetTicket(target: target, expires: expires, file: file)
        }
    }
}

/// What a download URL seals: the stored file and when the URL expires.
struct AssetDownloadHandle {
    static let version: UInt8 = 1
    var checksum: String
    var expires: Date

    func sealed(with key: [UInt8]) -> String {
        var writer = BinaryWriter()
        writer.write(Self.version)
        writer.write(UInt8(3))
        writer.write(checksum)
        writer.write(expires)
        return AssetSealing.encode(Sealing.seal(writer.bytes, key: key))
    }

    /// The handle `text` seals with `key`; nil for anything else.
    static func open(_ text: String, key: [UInt8]) -> AssetDownloadHandle? {
        guard let bytes = AssetSealing.decode(text), let body = Sealing.open(bytes, key: key) else { return nil }
        var reader = BinaryReader(body)
        do throws(BinaryFormatError) {
            guard try reader.readByte() == version, try reader.readByte() == 3 else { return nil }
            let handle = AssetDownloadHandle(checksum: try reader.readString(), expires: try reader.readDate())
            try reader.expectEnd()
            return handle
        } catch {
            return nil
        }
    }
}

/// Sealed bytes as text that fits a URL path: unpadded base64url.
enum AssetSealing {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 4_096,
              text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}
