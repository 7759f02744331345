import Foundation
import StratusWire

// Assets cross as CloudKit Web Services moves them: `assets/upload` hands out upload URLs, the
// client sends the bytes to one and gets back an asset dictionary with a receipt, and the save
// carries that dictionary. Fetched records carry download URLs instead of bytes.
//
// The URLs are the server's own: `stratus://embedded/assets/1/upload/{token}` and
// `…/assets/1/download/{handle}`. The server reads a URL by its path alone (any scheme and
// host), so an HTTP server in front of it can serve the same paths on its own host. Tokens,
// handles and receipts are sealed (``Sealing``, HMAC-SHA-256 under the server's key): a forged
// or altered one is refused with `invalidArguments`, as is one from another server.

extension CloudServer {
    /// The scheme and host of the asset URLs this server hands out.
    static let assetURLBase = "stratus://embedded"

    /// - SeeAlso: ``CloudService/uploadAssets(_:)``
    ///
    /// Each token is sealed with what it was asked for: the container, database and user of
    /// the request, the zone (as the server names it), the record name, record type and field,
    /// and when it expires. The receipt for the bytes uploaded to it carries the same, so a
    /// save can use it only for that record's field.
    public func uploadAssets(_ request: WireAssetsUploadRequest) async throws(WireError) -> WireAssetsUploadResponse {
        let scope = try await begin(request.context, .uploadAssets)
        _ = try scope.databaseForWriting()
        let user = try scope.requireAccount().userRecordName
        let limit = WireLimits.maximumAssetUploadTokensPerRequest
        guard request.tokens.count <= limit else {
            throw WireError(.limitExceeded, "assets/upload asks for \(request.tokens.count) tokens; the limit is \(limit)")
        }
        let zoneID = scope.normalized(request.zoneID ?? .defaultZone)
        if let error = WireValidation.checkZoneName(zoneID.zoneName) { throw error }
        let expires = clock.now.addingTimeInterval(WireLimits.assetUploadLifetime)
        var tokens: [WireAssetUploadToken] = []
        tokens.reserveCapacity(request.tokens.count)
        for token in request.tokens {
            let recordName = token.recordName ?? RandomUUID.string()
            if let error = WireValidation.checkRecordNameToSave(recordName) ?? WireValidation.checkRecordType(token.recordType)
                ?? WireValidation.checkFieldKey(token.fieldName) {
                throw error
            }
            let target = AssetTarget(
                containerIdentifier: scope.container.identifier, database: scope.databaseScope, userRecordName: user,
                zoneID: zoneID, recordName: recordName, recordType: token.recordType, fieldName: token.fieldName
            )
            let sealed = AssetTicket(target: target, expires: expires, file: nil).sealed(with: sealingKey)
            tokens.append(WireAssetUploadToken(recordName: recordName, fieldName: token.fieldName, url: Self.assetURLBase + WireAssetURLPath.upload + sealed))
        }
        return WireAssetsUploadResponse(tokens: tokens)
    }

    /// - SeeAlso: ``CloudService/uploadAssetFile(_:)``
    ///
    /// The bytes are stored and held for the receipt's lifetime
    /// (``WireLimits/assetUploadLifetime``); the first save that uses the receipt takes the
    /// hold over, and bytes no save took are released when the receipt expires.
    public func uploadAssetFile(_ request: WireAssetFileUploadRequest) async throws(WireError) -> WireAssetFileUploadResponse {
        let now = clock.now
        assets.releaseExpiredUploads(now: now)
        guard let opaque = Self.opaque(in: request.url, after: WireAssetURLPath.upload),
              let ticket = AssetTicket.open(opaque, key: sealingKey), ticket.file == nil
        else {
            throw WireError(.invalidArguments, "the asset upload URL was not issued by this server, or it was altered")
        }
        guard now < ticket.expires else {
            throw WireError(.invalidArguments, "the asset upload URL expired \(Int(WireLimits.assetUploadLifetime / 60)) minutes after assets/upload issued it; ask for a new one")
        }
        let limit = WireLimits.maximumAssetBytes
        guard request.data.count <= limit else {
            throw WireError(.limitExceeded, "the asset for field '\(ticket.target.fieldName)' of record '\(ticket.target.recordName)' holds \(request.data.count) bytes; the limit is \(limit) (50 MB)")
        }
        let expires = now.addingTimeInterval(WireLimits.assetUploadLifetime)
        let (name, serial) = try assets.storeUpload(request.data, expires: expires)
        let size = Int64(request.data.count)
        let receipt = AssetTicket(target: ticket.target, expires: expires, file: AssetTicket.File(checksum: name, size: size, upload: serial))
        return WireAssetFileUploadResponse(singleFile: WireAsset(fileChecksum: name, size: size, receipt: receipt.sealed(with: sealingKey)))
    }

    /// - SeeAlso: ``CloudService/downloadAssetFile(_:)``
    public func downloadAssetFile(_ request: WireAssetFileDownloadRequest) async throws(WireError) -> WireAssetFileDownloadResponse {
        guard let opaque = Self.opaque(in: request.url, after: WireAssetURLPath.download),
              let handle = AssetDownloadHandle.open(opaque, key: sealingKey)
        else {
            throw WireError(.invalidArguments, "the asset download URL was not issued by this server, or it was altered")
        }
        guard clock.now < handle.expires else {
            throw WireError(.invalidArguments, "the asset download URL expired; fetch the record again for a new one")
        }
        guard let data = assets.contents(of: handle.checksum) else {
            throw WireError(.assetNotAvailable, "the asset is no longer stored: no record holds its bytes any more")
        }
        return WireAssetFileDownloadResponse(data: data)
    }

    /// The asset dictionaries of `value` as a client fetches them: checksum, size and a
    /// download URL valid for ``WireLimits/assetUploadLifetime``.
    func downloadable(_ value: WireFieldValue) -> WireFieldValue {
        switch value {
        case .asset(let asset):
            guard let checksum = asset.fileChecksum else { return value }
            let handle = AssetDownloadHandle(checksum: checksum, expires: clock.now.addingTimeInterval(WireLimits.assetUploadLifetime))
            var shown = WireAsset(fileChecksum: checksum, size: asset.size)
            shown.downloadURL = Self.assetURLBase + WireAssetURLPath.download + handle.sealed(with: sealingKey)
            return .asset(shown)
        case .list(let values):
            return .list(values.map(downloadable))
        default:
            return value
        }
    }

    /// Checks the receipt of every asset in the plain fields of `save` (lists walked) and takes
    /// the save's hold on the stored bytes, all or nothing: when one is refused, the holds taken
    /// for the others are given back before the error is thrown.
    ///
    /// - Returns: The save with each asset as the server stores it, `{fileChecksum, size}`; the
    ///   caller holds one reference per asset value in it (give them back with
    ///   `assets.release(save.record)`).
    /// - Throws: `invalidArguments` for an asset without a receipt, a receipt this server did
    ///   not issue (or altered), one issued for another container, database, user, zone,
    ///   record, type or field, an expired one, one whose checksum or size the asset
    ///   contradicts, or one whose bytes are no longer stored.
    func admitAssets(of save: WireRecordSave, scope: RequestScope) throws(WireError) -> WireRecordSave {
        let now = clock.now
        assets.releaseExpiredUploads(now: now)
        let target = AssetTarget(
            containerIdentifier: scope.container.identifier, database: scope.databaseScope, userRecordName: scope.userRecordName ?? "",
            zoneID: scope.normalized(save.record.recordID.zoneID), recordName: save.record.recordID.recordName,
            recordType: save.record.recordType, fieldName: ""
        )
        var prepared = save
        var held: [WireFieldValue] = []
        do throws(WireError) {
            for key in save.record.fields.keys.sorted() {
                guard let value = save.record.fields[key], value.holdsAsset else { continue }
                var field = target
                field.fieldName = key
                prepared.record.fields[key] = try admit(value, for: field, now: now, held: &held)
            }
        } catch {
            held.forEach(assets.release)
            throw error
        }
        return prepared
    }

    private func admit(_ value: WireFieldValue, for target: AssetTarget, now: Date, held: inout [WireFieldValue]) throws(WireError) -> WireFieldValue {
        switch value {
        case .asset(let asset):
            let stored = WireFieldValue.asset(try admit(asset, for: target, now: now))
            held.append(stored)
            return stored
        case .list(let values):
            var stored: [WireFieldValue] = []
            stored.reserveCapacity(values.count)
            for element in values { stored.append(try admit(element, for: target, now: now, held: &held)) }
            return .list(stored)
        default:
            return value
        }
    }

    private func admit(_ asset: WireAsset, for target: AssetTarget, now: Date) throws(WireError) -> WireAsset {
        let place = "field '\(target.fieldName)' of record '\(target.recordName)'"
        guard let receipt = asset.receipt else {
            throw WireError(.invalidArguments, "the asset in \(place) has no receipt: upload its bytes first (assets/upload, then the token's URL) and save the asset dictionary the upload answered")
        }
        guard let ticket = AssetTicket.open(receipt, key: sealingKey), let file = ticket.file else {
            throw WireError(.invalidArguments, "the asset receipt in \(place) was not issued by this server, or it was altered")
        }
        guard ticket.target.matches(target) else {
            throw WireError(.invalidArguments, "the asset receipt in \(place) was issued for another container, database, user, zone, record, record type or field (field '\(ticket.target.fieldName)' of record '\(ticket.target.recordName)')")
        }
        guard now < ticket.expires else {
            throw WireError(.invalidArguments, "the asset receipt in \(place) expired \(Int(WireLimits.assetUploadLifetime / 60)) minutes after the upload; upload the file again")
        }
        if let checksum = asset.fileChecksum, !checksum.hasSameUTF8Bytes(as: file.checksum) {
            throw WireError(.invalidArguments, "the asset in \(place) has fileChecksum '\(checksum)', but its receipt is for '\(file.checksum)'")
        }
        if let size = asset.size, size != file.size {
            throw WireError(.invalidArguments, "the asset in \(place) has size \(size), but its receipt is for \(file.size) bytes")
        }
        guard assets.claim(upload: file.upload, name: file.checksum) else {
            throw WireError(.invalidArguments, "the bytes of the asset receipt in \(place) are no longer stored (a receipt serves one save); upload the file again")
        }
        return WireAsset(fileChecksum: file.checksum, size: file.size)
    }

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
/// expires, and for a receipt the stored bytes and the upload that holds them. On the wire: a
/// format version, a kind, the fields, and an HMAC-SHA-256 under the server's key, in
/// unpadded base64url.
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
        var writer = BinaryWriter()
        writer.write(Self.version)
        writer.write(UInt8(file == nil ? 1 : 2))
        writer.write(target.containerIdentifier)
        writer.write(UInt8(target.database.rawValue))
        writer.write(target.userRecordName)
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
        guard let bytes = AssetSealing.decode(text), let body = Sealing.open(bytes, key: key) else { return nil }
        var reader = BinaryReader(body)
        do throws(BinaryFormatError) {
            guard try reader.readByte() == version else { return nil }
            let kind = try reader.readByte()
            guard kind == 1 || kind == 2 else { return nil }
            let container = try reader.readString()
            guard let database = WireDatabaseScope(rawValue: Int(try reader.readByte())) else { return nil }
            let target = AssetTarget(
                containerIdentifier: container, database: database, userRecordName: try reader.readString(),
                zoneID: try WireZoneID.read(from: &reader), recordName: try reader.readString(),
                recordType: try reader.readString(), fieldName: try reader.readString()
            )
            let expires = try reader.readDate()
            var file: File?
            if kind == 2 {
                file = File(checksum: try reader.readString(), size: try reader.readInt64(), upload: try reader.readUInt64())
            }
            try reader.expectEnd()
            return AssetTicket(target: target, expires: expires, file: file)
        } catch {
            return nil
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
