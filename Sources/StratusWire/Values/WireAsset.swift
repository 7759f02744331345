import Foundation

/// A file attached to a record: the value twin of `CKAsset`.
///
/// On the way to the server, `fileURL` names the local file whose bytes the server copies. On
/// the way back, it names a local copy the client may read.
public struct WireAsset: Hashable, Sendable {
    /// The file holding the asset's bytes, when there is one.
    public var fileURL: URL?

    /// Creates an asset value.
    public init(fileURL: URL?) {
        self.fileURL = fileURL
    }
}
