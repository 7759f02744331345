import Foundation

/// One token of `assets/upload` as CloudKit Web Services writes it:
/// `{"recordName": …, "recordType": …, "fieldName": …}`, `recordName` optional.
extension WireAssetUploadTokenRequest: Codable {
    private static let json = JSONDictionary(
        Self.init,
        .optional("recordName", \.recordName),
        .required("recordType", \.recordType),
        .required("fieldName", \.fieldName)
    )

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// `assets/upload` as CKWS shapes it: `{"zoneID": {…}, "tokens": [{recordName, recordType,
/// fieldName}]}`; `zoneID` absent is the default zone.
extension WireAssetsUploadRequest: Codable {
    private static let json = JSONDictionary(Self.init, .context(\.context), .optional("zoneID", \.zoneID), .required("tokens", \.tokens))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// One answered token of `assets/upload`: `{"recordName": …, "fieldName": …, "url": …}`.
extension WireAssetUploadToken: Codable {
    private static let json = JSONDictionary(
        Self.init,
        .required("recordName", \.recordName),
        .required("fieldName", \.fieldName),
        .required("url", \.url)
    )

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// The answer to `assets/upload` as CKWS writes it: `{"tokens": [{recordName, fieldName, url}]}`.
extension WireAssetsUploadResponse: Codable {
    private static let json = JSONDictionary(Self.init, .required("tokens", \.tokens))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// An upload of an asset's bytes, a Stratus extension (CKWS `POST`s the raw bytes to the URL,
/// which a network transport does instead): `{"url": …, "data": "<standard base64>"}`.
extension WireAssetFileUploadRequest: Codable {
    private static let json = JSONDictionary(Self.init, .required("url", \.url), .data("data", \.data))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// The answer to an upload of bytes, as CKWS writes it: `{"singleFile": {fileChecksum, size,
/// receipt, …}}`.
extension WireAssetFileUploadResponse: Codable {
    private static let json = JSONDictionary(Self.init, .required("singleFile", \.singleFile))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// A download of an asset's bytes, a Stratus extension (CKWS answers a `GET` of the URL, which
/// a network transport sends instead): `{"url": …}`.
extension WireAssetFileDownloadRequest: Codable {
    private static let json = JSONDictionary(Self.init, .required("url", \.url))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}

/// The answer to a download, a Stratus extension (over HTTP, the response body):
/// `{"data": "<standard base64>"}`.
extension WireAssetFileDownloadResponse: Codable {
    private static let json = JSONDictionary(Self.init, .data("data", \.data))

    public func encode(to encoder: any Encoder) throws { try Self.json.encode(self, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try Self.json.decode(from: decoder) }
}
