import Foundation
import StratusWire
#if canImport(Glibc)
import Glibc
#endif

/// The local copies of fetched assets' bytes on one device: what a fetched `CKAsset`'s
/// `fileURL` points to, as CloudKit's own cache does.
///
/// The copies live in a temporary directory of the device's own (`stratus-assets-<UUID>`),
/// removed when nothing uses the cache any more: the device (any container object of it) and
/// every fetched asset hold it, so a fetched asset's file outlives the container that
/// fetched it. (An asset decoded from an archive does not hold it.)
/// Each copy is read-only and named after the asset's checksum, so fetching the same asset
/// again reuses its copy rather than filling the disk; a copy that no longer matches the bytes
/// (someone wrote to it) is replaced in one step, and a reader of the old copy keeps its file.
package final class AssetCache: Sendable {
    /// The directory holding the copies.
    package let directory: URL

    /// A cache in a new temporary directory, made on first use.
    package init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-assets-\(RandomUUID.string())", isDirectory: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A local, read-only file holding `data`, the bytes of the asset with `checksum`; nil
    /// when it cannot be written.
    ///
    /// The file is named after the checksum when that is a safe file name (letters, digits,
    /// `-` and `_`, at most 128 of them), and after a new UUID otherwise: a checksum comes
    /// from the service and never names a path of its choosing.
    package func store(_ data: Data, checksum: String?) -> URL? {
        let files = FileManager.default
        let name = checksum.flatMap { Self.isSafeName($0) ? $0 : nil } ?? RandomUUID.string()
        let copy = directory.appendingPathComponent(name)
        if let existing = try? Data(contentsOf: copy), existing == data { return copy }
        let staging = directory.appendingPathComponent(".\(RandomUUID.string())")
        do {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: staging)
            try files.setAttributes([.posixPermissions: 0o444], ofItemAtPath: staging.path)
        } catch {
            try? files.removeItem(at: staging)
            return nil
        }
        // Renamed over the shared name in one step: a reader of the old copy keeps its file.
        guard rename(staging.path, copy.path) == 0 else {
            try? files.removeItem(at: staging)
            return nil
        }
        return copy
    }

    private static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 128 && name.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
        }
    }
}
