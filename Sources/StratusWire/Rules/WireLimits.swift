/// CloudKit's documented limits, in one place for the client's checks and the server's.
public enum WireLimits {
    /// Items (record saves and deletes together) in one modify request: 400.
    public static let maximumItemsPerRequest = 400
    /// Bytes of record data in one request, assets excluded: 2 MB (2 × 1,048,576).
    public static let maximumRequestBytes = 2 * 1_048_576
    /// Bytes of field data in one record, assets excluded: 1 MB (1,048,576).
    public static let maximumRecordBytes = 1_048_576
    /// `deleteSelf` references that may point at one record: 750.
    public static let maximumDeleteSelfReferencesPerTarget = 750
    /// Bytes in one asset file: 50 MB, CloudKit Web Services' published limit.
    public static let maximumAssetBytes = 50 * 1_048_576
    /// Upload tokens in one `assets/upload` request: 200, CloudKit Web Services' limit.
    public static let maximumAssetUploadTokensPerRequest = 200
    /// How long an asset upload URL, the receipt for bytes uploaded to it, and a download URL
    /// stay valid, on the service's clock: 15 minutes, CloudKit Web Services' lifetime of an
    /// upload URL (Stratus gives receipts and download URLs the same).
    public static let assetUploadLifetime: Double = 15 * 60
    /// UTF-8 bytes in a record name, a zone name or a field key: 255.
    public static let maximumNameBytes = 255
}

extension WireFieldValue {
    /// The bytes this value counts toward CloudKit's size limits and quotas: UTF-8 bytes of a
    /// string, 8 per number or date, a byte buffer's length, the UTF-8 bytes of a reference's
    /// record, zone and owner names, 64 for a location (eight numbers), and 0 for an asset (asset files count toward no request
    /// limit). A list counts the sum of its elements.
    public var byteSize: Int {
        switch self {
        case .string(let value): value.utf8.count
        case .int64, .double, .date: 8
        case .bytes(let value): value.count
        case .reference(let value): value.recordID.byteSize
        case .asset: 0
        case .location: 64
        case .list(let values): values.reduce(0) { $0 + $1.byteSize }
        }
    }
}

extension WireRecordID {
    /// The UTF-8 bytes of the record, zone and owner names.
    public var byteSize: Int {
        recordName.utf8.count + zoneID.zoneName.utf8.count + zoneID.ownerName.utf8.count
    }
}

extension WireRecord {
    /// The bytes of the record's field data: for every plain and encrypted field, the UTF-8
    /// bytes of its key plus ``WireFieldValue/byteSize`` of its value. This is what the 1 MB
    /// record limit, the 2 MB request limit and storage quotas count.
    public var byteSize: Int {
        var total = 0
        for (key, value) in fields { total += key.utf8.count + value.byteSize }
        for (key, value) in encryptedFields { total += key.utf8.count + value.byteSize }
        return total
    }
}

extension CKErrorCode {
    /// Whether a failure with this code is transient, so a server attaches a retry-after delay
    /// and a client may retry the same request after waiting.
    public var isRetryable: Bool {
        switch self {
        case .networkUnavailable, .networkFailure, .serviceUnavailable, .requestRateLimited, .zoneBusy,
             .serverResponseLost:
            true
        default:
            false
        }
    }
}
