import Foundation
import StratusWire

/// A file stored with a record, outside the record's 1 MB of field data.
///
/// Saving a record uploads the file's bytes first (CloudKit Web Services' `assets/upload`, then
/// the bytes), so the file may change or go away once the save finished. A fetched record's
/// asset has a ``fileURL`` to a local, read-only copy of the bytes, downloaded when the record
/// was fetched (only for the fields the fetch asked for). Assets are equal when their file
/// URLs are.
///
/// CloudKit document: *CKAsset*.
public final class CKAsset: NSObject, @unchecked Sendable {
    /// The file holding the asset's bytes: the source for a saved asset, a local copy for a
    /// fetched one (nil when its bytes could not be downloaded).
    public let fileURL: URL?

    /// What the server said about the bytes of a fetched asset (checksum, size); nil for an
    /// asset made from a file.
    private let fetched: WireAsset?

    /// Creates an asset from a local file. The file must exist and be a regular file of at
    /// most 50 MB when the record is saved, otherwise the save fails with `assetFileNotFound`
    /// (or `limitExceeded`).
    public init(fileURL: URL) {
        self.fileURL = fileURL
        self.fetched = nil
        self.fileOwner = nil
    }

    /// What keeps a fetched asset's local copy on disk (the device's cache): held as long as
    /// the asset is.
    private let fileOwner: (any AnyObject & Sendable)?

    package init(wire: WireAsset) {
        self.fileURL = wire.localFileURL
        self.fileOwner = wire.localFileOwner
        self.fetched = wire.fileChecksum == nil ? nil : WireAsset(fileChecksum: wire.fileChecksum, size: wire.size)
    }

    /// The asset as a record keeps it: its local file, and for a fetched asset the server's
    /// checksum and size. A save uploads the file and sends the receipt instead.
    package var wireValue: WireAsset {
        var value = fetched ?? WireAsset()
        value.localFileURL = fileURL
        value.localFileOwner = fileOwner
        return value
    }

    /// Whether `object` is an asset with the same file URL.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKAsset else { return false }
        return other === self || other.fileURL == fileURL
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { fileURL?.hashValue ?? 0 }

    /// A summary such as `<CKAsset: fileURL=file:///tmp/photo.jpg>`.
    public override var description: String {
        "<CKAsset: fileURL=\(fileURL?.absoluteString ?? "nil")>"
    }
}

extension CKAsset: __CKRecordObjCValue {}
