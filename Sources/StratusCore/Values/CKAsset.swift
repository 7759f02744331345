import Foundation
import StratusWire

/// A file stored with a record, outside the record's 1 MB of field data.
///
/// Saving a record copies the file's bytes to the server; a fetched record's asset has a
/// ``fileURL`` to a local copy you may read. Assets are equal when their file URLs are.
///
/// CloudKit document: *CKAsset*.
public final class CKAsset: NSObject, @unchecked Sendable {
    /// The file holding the asset's bytes: the source for a saved asset, a local copy for a
    /// fetched one.
    public let fileURL: URL?

    /// Creates an asset from a local file. The file must exist when the record is saved,
    /// otherwise the save fails with `assetFileNotFound`.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    package init(wire: WireAsset) {
        self.fileURL = wire.fileURL
    }

    package var wireValue: WireAsset { WireAsset(fileURL: fileURL) }

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
