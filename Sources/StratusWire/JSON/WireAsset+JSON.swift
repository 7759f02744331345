import Foundation

/// An asset as CloudKit Web Services' asset dictionary: `fileChecksum`, `size`, and `receipt`
/// (saving) or `downloadURL` (fetching), plus `wrappingKey` and `referenceChecksum` when set.
/// Every key is optional; `size` must be a non-negative integer. The client's local file
/// (``WireAsset/localFileURL``) is never written: no file path crosses.
extension WireAsset: Codable {
    private enum CodingKeys: String, CodingKey {
        case fileChecksum, size, receipt, wrappingKey, referenceChecksum, downloadURL
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(fileChecksum, forKey: .fileChecksum)
        try container.encodeIfPresent(size, forKey: .size)
        try container.encodeIfPresent(receipt, forKey: .receipt)
        try container.encodeIfPresent(wrappingKey, forKey: .wrappingKey)
        try container.encodeIfPresent(referenceChecksum, forKey: .referenceChecksum)
        try container.encodeIfPresent(downloadURL, forKey: .downloadURL)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let size = try container.decodeIfPresent(Int64.self, forKey: .size)
        if let size, size < 0 {
            throw DecodingError.invalid(CodingKeys.size, in: container, "an asset's size cannot be negative (\(size))")
        }
        self.init(
            fileChecksum: try container.decodeIfPresent(String.self, forKey: .fileChecksum),
            size: size,
            receipt: try container.decodeIfPresent(String.self, forKey: .receipt),
            wrappingKey: try container.decodeIfPresent(String.self, forKey: .wrappingKey),
            referenceChecksum: try container.decodeIfPresent(String.self, forKey: .referenceChecksum),
            downloadURL: try container.decodeIfPresent(String.self, forKey: .downloadURL)
        )
    }
}
