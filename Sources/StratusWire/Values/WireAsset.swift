import Foundation

/// A file attached to a record, as CloudKit Web Services' asset dictionary describes it: the
/// value twin of `CKAsset`. No file path ever crosses a service: bytes go up and come down
/// through the asset endpoints of ``CloudService``.
///
/// Which keys are set depends on the direction:
/// - **saving**: what uploading the bytes answered (``CloudService/uploadAssetFile(_:)``):
///   ``fileChecksum``, ``size`` and ``receipt``, the server's proof that it holds the bytes for
///   this record's field;
/// - **fetching**: ``fileChecksum``, ``size`` and ``downloadURL``, where the client reads the
///   bytes (``CloudService/downloadAssetFile(_:)``);
/// - **stored by a server**: ``fileChecksum`` and ``size`` alone.
///
/// ``wrappingKey`` and ``referenceChecksum`` are CKWS's keys for encrypted private assets;
/// Stratus's server neither needs nor sends them, and carries them when given.
public struct WireAsset: Hashable, Sendable {
    /// The bytes' checksum, as the server that stored them names it. Stratus's server uses
    /// the SHA-256 of the bytes in lowercase hex; treat it as opaque.
    public var fileChecksum: String?
    /// The number of bytes.
    public var size: Int64?
    /// The server's receipt for uploaded bytes: what a save sends so the server can find them.
    /// A receipt names the container, database, user, zone, record and field it was issued
    /// for, and expires (``WireLimits/assetUploadLifetime`` after the upload).
    public var receipt: String?
    /// CKWS's key for the bytes of an encrypted private asset; not used by Stratus's server.
    public var wrappingKey: String?
    /// CKWS's checksum of the encrypted bytes; not used by Stratus's server.
    public var referenceChecksum: String?
    /// Where a fetched asset's bytes can be downloaded from, for a limited time.
    public var downloadURL: String?

    /// The file on the client's own disk that holds the bytes: the file a `CKAsset` was made
    /// with, or the local copy of a fetched asset. Client-side only: it is never encoded as
    /// JSON, the client replaces the asset with its upload receipt before a save leaves it,
    /// and a service ignores it. (A `CKRecord` keeps its fields as wire values, so a record's
    /// assets keep their files here; its archives keep them too.)
    package var localFileURL: URL?

    /// What keeps ``localFileURL`` on disk, when something owns it (the device's cache of
    /// downloaded assets): held as long as the asset value is, so a fetched asset's local copy
    /// outlives the container that fetched it. Client-side only, and not part of equality.
    package var localFileOwner: (any AnyObject & Sendable)?

    /// Creates an asset dictionary.
    public init(
        fileChecksum: String? = nil,
        size: Int64? = nil,
        receipt: String? = nil,
        wrappingKey: String? = nil,
        referenceChecksum: String? = nil,
        downloadURL: String? = nil
    ) {
        self.fileChecksum = fileChecksum
        self.size = size
        self.receipt = receipt
        self.wrappingKey = wrappingKey
        self.referenceChecksum = referenceChecksum
        self.downloadURL = downloadURL
    }

    /// A client's asset whose bytes are in the local file `localFileURL`, not yet uploaded.
    package init(localFileURL: URL?) {
        self.localFileURL = localFileURL
    }
}

extension WireAsset {
    /// Whether the two are the same asset dictionary with the same local file
    /// (``localFileOwner`` aside).
    public static func == (lhs: WireAsset, rhs: WireAsset) -> Bool {
        lhs.fileChecksum == rhs.fileChecksum && lhs.size == rhs.size && lhs.receipt == rhs.receipt
            && lhs.wrappingKey == rhs.wrappingKey && lhs.referenceChecksum == rhs.referenceChecksum
            && lhs.downloadURL == rhs.downloadURL && lhs.localFileURL == rhs.localFileURL
    }

    /// A hash consistent with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fileChecksum)
        hasher.combine(size)
        hasher.combine(receipt)
        hasher.combine(wrappingKey)
        hasher.combine(referenceChecksum)
        hasher.combine(downloadURL)
        hasher.combine(localFileURL)
    }
}
