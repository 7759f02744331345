import Foundation

/// One field a client wants to upload an asset for, in `assets/upload`.
public struct WireAssetUploadTokenRequest: Hashable, Sendable {
    /// The record the asset will be saved in; nil lets the service make up a name (a UUID),
    /// which the client then gives the record it creates.
    public var recordName: String?
    /// The record's type.
    public var recordType: String
    /// The field the asset will be saved in. A list of assets asks for one token per asset,
    /// each naming the list's field.
    public var fieldName: String

    /// Creates a token request.
    public init(recordName: String?, recordType: String, fieldName: String) {
        self.recordName = recordName
        self.recordType = recordType
        self.fieldName = fieldName
    }
}

/// `assets/upload`: asks for URLs to upload assets' bytes to, one per field (and per asset of a
/// list), before saving the records that hold them. At most
/// ``WireLimits/maximumAssetUploadTokensPerRequest`` tokens.
public struct WireAssetsUploadRequest: Sendable {
    /// Where the request goes.
    public var context: WireRequestContext
    /// The zone of the records; nil is the default zone.
    public var zoneID: WireZoneID?
    /// The fields to upload assets for, in the order the tokens come back.
    public var tokens: [WireAssetUploadTokenRequest]

    /// Creates an upload request.
    public init(context: WireRequestContext, zoneID: WireZoneID? = nil, tokens: [WireAssetUploadTokenRequest]) {
        self.context = context
        self.zoneID = zoneID
        self.tokens = tokens
    }
}

/// Where to upload one asset's bytes: the answer to one ``WireAssetUploadTokenRequest``.
public struct WireAssetUploadToken: Hashable, Sendable {
    /// The record the asset belongs to: the requested name, or the one the service made up.
    public var recordName: String
    /// The field the asset belongs to.
    public var fieldName: String
    /// Where to send the bytes (``CloudService/uploadAssetFile(_:)``), valid for
    /// ``WireLimits/assetUploadLifetime`` on the service's clock. Opaque: the URL itself is the
    /// permission to upload.
    public var url: String

    /// Creates a token.
    public init(recordName: String, fieldName: String, url: String) {
        self.recordName = recordName
        self.fieldName = fieldName
        self.url = url
    }
}

/// The answer to a ``WireAssetsUploadRequest``: one token per requested field, in request order.
public struct WireAssetsUploadResponse: Sendable {
    /// The upload URLs.
    public var tokens: [WireAssetUploadToken]

    /// Creates an upload response.
    public init(tokens: [WireAssetUploadToken]) {
        self.tokens = tokens
    }
}

/// The bytes of one asset, sent to an upload token's URL: in CloudKit Web Services a plain HTTP
/// `POST` of the bytes to the URL; in Stratus a value, mapped onto that `POST` by a network
/// transport. It carries no request context: the URL is the permission.
public struct WireAssetFileUploadRequest: Sendable {
    /// The token's URL.
    public var url: String
    /// The asset's bytes: at most ``WireLimits/maximumAssetBytes``.
    public var data: Data

    /// Creates an upload of bytes.
    public init(url: String, data: Data) {
        self.url = url
        self.data = data
    }
}

/// The answer to a ``WireAssetFileUploadRequest``: CKWS's `{"singleFile": {…}}`, the asset
/// dictionary (``WireAsset/fileChecksum``, ``WireAsset/size``, ``WireAsset/receipt``) that a
/// save puts in the record's field.
public struct WireAssetFileUploadResponse: Sendable {
    /// The asset dictionary to save.
    public var singleFile: WireAsset

    /// Creates an upload answer.
    public init(singleFile: WireAsset) {
        self.singleFile = singleFile
    }
}

/// A download of a fetched asset's bytes from its ``WireAsset/downloadURL``: in CloudKit Web
/// Services a plain HTTP `GET` of the URL; in Stratus a value, mapped onto that `GET` by a
/// network transport. It carries no request context: the URL is the permission.
public struct WireAssetFileDownloadRequest: Sendable {
    /// The asset's download URL.
    public var url: String

    /// Creates a download.
    public init(url: String) {
        self.url = url
    }
}

/// The answer to a ``WireAssetFileDownloadRequest``: the asset's bytes.
public struct WireAssetFileDownloadResponse: Sendable {
    /// The bytes.
    public var data: Data

    /// Creates a download answer.
    public init(data: Data) {
        self.data = data
    }
}

/// The paths of the URLs a Stratus server hands out for asset bytes: the server answers a URL
/// by its path alone, whatever its scheme and host, so the embedded server's URLs
/// (`stratus://embedded/assets/1/upload/…`) and an HTTP server's (`https://host/assets/1/upload/…`)
/// are read alike. What follows the prefix is opaque and sealed by the server.
public enum WireAssetURLPath {
    /// The path before an upload token: `/assets/1/upload/`.
    public static let upload = "/assets/1/upload/"
    /// The path before a download handle: `/assets/1/download/`.
    public static let download = "/assets/1/download/"
}
