import Foundation
import StratusWire
#if canImport(Glibc)
import Glibc
#endif

/// The server's asset files: a per-server temporary directory, removed with the server.
///
/// Saving copies the bytes of each asset's file here, named by their SHA-256, so the client's
/// file may change or go away afterwards. Fetching hands out a read-only local copy.
final class AssetStore: @unchecked Sendable {
    let root: URL
    private let files = FileManager.default

    init() {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-\(UUID().uuidString)", isDirectory: true)
    }

    deinit {
        try? files.removeItem(at: root)
    }

    /// Copies the file of `asset` into the store.
    ///
    /// - Returns: The stored asset and its size in bytes.
    /// - Throws: `assetFileNotFound` when the asset has no file or the file cannot be read.
    func store(_ asset: WireAsset, field: String, recordName: String) throws(WireError) -> (WireAsset, Int) {
        guard let url = asset.fileURL else {
            throw WireError(.assetFileNotFound, "the asset in field '\(field)' of record '\(recordName)' has no file URL")
        }
        guard let attributes = try? files.attributesOfItem(atPath: url.path),
              attributes[.type] as? FileAttributeType == .typeRegular
        else {
            throw WireError(.assetFileNotFound, "the asset file of field '\(field)' of record '\(recordName)' does not exist at \(url.path), or is not a regular file")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= WireLimits.maximumAssetBytes else {
            throw WireError(.limitExceeded, "the asset file of field '\(field)' of record '\(recordName)' holds \(size) bytes; the limit is \(WireLimits.maximumAssetBytes) (50 MB)")
        }
        guard let data = files.contents(atPath: url.path) else {
            throw WireError(.assetFileNotFound, "the asset file of field '\(field)' of record '\(recordName)' could not be read at \(url.path)")
        }
        let directory = root.appendingPathComponent("assets", isDirectory: true)
        let stored = directory.appendingPathComponent(SHA256.hex(data))
        do {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
            if !files.fileExists(atPath: stored.path) { try data.write(to: stored, options: .atomic) }
        } catch {
            throw WireError(.internalError, "the server could not store an asset: \(error)")
        }
        return (WireAsset(fileURL: stored), data.count)
    }

    /// A local copy of a stored asset for clients to read: one read-only file per stored file,
    /// made again when it is missing or no longer matches, so the stored file is never handed
    /// out and fetching the same asset again does not fill the disk.
    func clientCopy(of asset: WireAsset) -> WireAsset {
        guard let source = asset.fileURL else { return asset }
        let directory = root.appendingPathComponent("downloads", isDirectory: true)
        let copy = directory.appendingPathComponent(source.lastPathComponent)
        if files.fileExists(atPath: copy.path), files.contentsEqual(atPath: copy.path, andPath: source.path) {
            return WireAsset(fileURL: copy)
        }
        // Copy to a name of its own, then rename over the shared name in one step, so a
        // client reading the old copy keeps its file and concurrent fetches never collide.
        let staging = directory.appendingPathComponent(".\(UUID().uuidString)")
        do {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
            try files.copyItem(at: source, to: staging)
            try files.setAttributes([.posixPermissions: 0o444], ofItemAtPath: staging.path)
            guard rename(staging.path, copy.path) == 0 else {
                try? files.removeItem(at: staging)
                return WireAsset(fileURL: nil)
            }
            return WireAsset(fileURL: copy)
        } catch {
            try? files.removeItem(at: staging)
            return WireAsset(fileURL: nil)
        }
    }
}

extension AssetStore {
    /// The size of a stored asset's file, 0 when it has none.
    func size(of asset: WireAsset) -> Int {
        guard let path = asset.fileURL?.path,
              let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
        else { return 0 }
        return size.intValue
    }
}
