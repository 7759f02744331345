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
            tokens.append(WireAssetUploadToken(recordName: recordName, fieldName: token.fieldName, url: AssetURL.base + WireAssetURLPath.upload + sealed))
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
        guard let opaque = AssetURL.opaque(in: request.url, after: WireAssetURLPath.upload),
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
        guard let opaque = AssetURL.opaque(in: request.url, after: WireAssetURLPath.download),
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
}
