import Foundation

/// One token of `assets/upload` as CloudKit Web Services writes it:
/// `{"recordName": …, "recordType": …, "fieldName": …}`, `recordName` optional.
extension WireAssetUploadTokenRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case recordName, recordType, fieldName
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(recordName, forKey: .recordName)
        try container.encode(recordType, forKey: .recordType)
        try container.encode(fieldName, forKey: .fieldName)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            recordName: try container.decodeIfPresent(String.self, forKey: .recordName),
            recordType: try container.decode(String.self, forKey: .recordType),
            fieldName: try container.decode(String.self, forKey: .fieldName)
        )
    }
}

/// `assets/upload` as CKWS shapes it: `{"zoneID": {…}, "tokens": [{recordName, recordType,
/// fieldName}]}`; `zoneID` absent is the default zone.
extension WireAssetsUploadRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case zoneID, tokens
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(zoneID, forKey: .zoneID)
        try container.encode(tokens, forKey: .tokens)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            context: try decoder.requestContext(),
            zoneID: try container.decodeIfPresent(WireZoneID.self, forKey: .zoneID),
            tokens: try container.decode([WireAssetUploadTokenRequest].self, forKey: .tokens)
        )
    }
}

/// One answered token of `assets/upload`: `{"recordName": …, "fieldName": …, "url": …}`.
extension WireAssetUploadToken: Codable {
    private enum CodingKeys: String, CodingKey {
        case recordName, fieldName, url
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(recordName, forKey: .recordName)
        try container.encode(fieldName, forKey: .fieldName)
        try container.encode(url, forKey: .url)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            recordName: try container.decode(String.self, forKey: .recordName),
            fieldName: try container.decode(String.self, forKey: .fieldName),
            url: try container.decode(String.self, forKey: .url)
        )
    }
}

/// The answer to `assets/upload` as CKWS writes it: `{"tokens": [{recordName, fieldName, url}]}`.
extension WireAssetsUploadResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case tokens
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tokens, forKey: .tokens)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(tokens: try container.decode([WireAssetUploadToken].self, forKey: .tokens))
    }
}

/// An upload of an asset's bytes, a Stratus extension (CKWS `POST`s the raw bytes to the URL,
/// which a network transport does instead): `{"url": …, "data": "<standard base64>"}`.
extension WireAssetFileUploadRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case url, data
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(data.base64EncodedString(), forKey: .data)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(url: try container.decode(String.self, forKey: .url), data: try JSONAssetBytes.decode(container, .data))
    }
}

/// The answer to an upload of bytes, as CKWS writes it: `{"singleFile": {fileChecksum, size,
/// receipt, …}}`.
extension WireAssetFileUploadResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case singleFile
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(singleFile, forKey: .singleFile)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(singleFile: try container.decode(WireAsset.self, forKey: .singleFile))
    }
}

/// A download of an asset's bytes, a Stratus extension (CKWS answers a `GET` of the URL, which
/// a network transport sends instead): `{"url": …}`.
extension WireAssetFileDownloadRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case url
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(url: try container.decode(String.self, forKey: .url))
    }
}

/// The answer to a download, a Stratus extension (over HTTP, the response body):
/// `{"data": "<standard base64>"}`.
extension WireAssetFileDownloadResponse: Codable {
    private enum CodingKeys: String, CodingKey {
        case data
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(data.base64EncodedString(), forKey: .data)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(data: try JSONAssetBytes.decode(container, .data))
    }
}

/// Asset bytes as standard base64 under a key.
private enum JSONAssetBytes {
    static func decode<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Data {
        let text = try container.decode(String.self, forKey: key)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.invalid(key, in: container, "asset bytes must be standard base64")
        }
        return data
    }
}
