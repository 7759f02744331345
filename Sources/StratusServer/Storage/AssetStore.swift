import Foundation
import StratusWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The server's asset files: a per-server temporary directory, removed with the server.
///
/// Saving copies the bytes of each asset's file into `assets/`, named by their SHA-256, so the
/// client's file may change or go away afterwards. Fetching hands out a read-only local copy
/// from `downloads/`.
///
/// ## Reference counting
///
/// Each stored file has a count of the references to it, kept here by file name. A file is
/// deleted, with its client copy, when its count drops to 0:
///
/// - ``store(_:field:recordName:)`` (and ``storeAssets(of:)``) copies a file in and takes one
///   reference on behalf of the caller: the *save's hold*. The file cannot disappear between
///   being stored and being kept by a record, even if another request releases its last
///   record with the same bytes meanwhile.
/// - `retain(_:)` takes one reference per asset in a value (lists walked);
///   `release(_:)` gives one back. The `retain(_:)` (record) and
///   `release(_:)` (record) overloads do the same for every field of a record.
///
/// The write path keeps the counts equal to "holds of saves in flight + asset values of stored
/// records": once a request's outcome is final (after rollbacks and the quota check), for
/// every record whose stored version changed it retains the new version, then releases the
/// old one (retain first, so bytes shared by both never touch 0), and then it releases the
/// save's hold on every value it stored, whether the save succeeded or failed. A save that
/// failed therefore leaves nothing behind. Deleting a record, or a zone with its records,
/// releases what they hold.
///
/// Values whose file is not in this store's `assets/` directory (a client's file, or none)
/// are ignored by `retain(_:)` and `release(_:)`.
final class AssetStore: @unchecked Sendable {
    let root: URL
    private let files = FileManager.default
    /// References per stored file name. Every change to a stored file (placing, deleting)
    /// happens under this lock, so counts and files never disagree.
    private let references = Mutex<[String: Int]>([:])
    /// Called after a file's size was checked and before its bytes are read; a test hook.
    private let afterSizeCheck: (@Sendable (URL) -> Void)?

    /// Creates an empty store in a new temporary directory.
    ///
    /// - Parameter afterSizeCheck: For tests: called with the asset file's URL after its
    ///   size was checked and before its bytes are read, so a test can change the file in
    ///   between.
    init(afterSizeCheck: (@Sendable (URL) -> Void)? = nil) {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-\(UUID().uuidString)", isDirectory: true)
        self.afterSizeCheck = afterSizeCheck
    }

    deinit {
        try? files.removeItem(at: root)
    }

    /// Where stored files live.
    var assetsDirectory: URL { root.appendingPathComponent("assets", isDirectory: true) }
    /// Where the read-only client copies live.
    var downloadsDirectory: URL { root.appendingPathComponent("downloads", isDirectory: true) }

    /// Copies the file of `asset` into the store and takes one reference to the stored file
    /// for the caller (the save's hold; give it back with `release(_:)`).
    ///
    /// The 50 MB limit is checked on the bytes actually read: the file is opened once, its
    /// size checked on the open file, and at most 50 MB + 1 bytes are read from it, so a file
    /// swapped or grown after the check is still refused or stored as it was checked.
    ///
    /// - Returns: The stored asset and its size in bytes.
    /// - Throws: `assetFileNotFound` when the asset has no file or the file is not a readable
    ///   regular file; `limitExceeded` when it holds more than 50 MB.
    func store(_ asset: WireAsset, field: String, recordName: String) throws(WireError) -> (WireAsset, Int) {
        guard let url = asset.fileURL else {
            throw WireError(.assetFileNotFound, "the asset in field '\(field)' of record '\(recordName)' has no file URL")
        }
        let data = try readCapped(url, field: field, recordName: recordName)
        let name = SHA256.hex(data)
        let stored = assetsDirectory.appendingPathComponent(name)
        if takeReferenceIfStored(name, at: stored) { return (WireAsset(fileURL: stored), data.count) }

        let staging = assetsDirectory.appendingPathComponent(".staging-\(UUID().uuidString)")
        do {
            try files.createDirectory(at: assetsDirectory, withIntermediateDirectories: true)
            try data.write(to: staging)
        } catch {
            try? files.removeItem(at: staging)
            throw WireError(.internalError, "the server could not store an asset: \(error)")
        }
        let renameError = references.withLock { references -> Int32? in
            if references[name, default: 0] > 0, files.fileExists(atPath: stored.path) {
                references[name, default: 0] += 1
                try? files.removeItem(at: staging)
                return nil
            }
            guard rename(staging.path, stored.path) == 0 else { return errno }
            references[name, default: 0] += 1
            return nil
        }
        if let renameError {
            try? files.removeItem(at: staging)
            throw WireError(.internalError, "the server could not store an asset: renaming its file failed (errno \(renameError))")
        }
        return (WireAsset(fileURL: stored), data.count)
    }

    /// Stores the files of every asset in the plain fields of `save` (lists walked), all or
    /// nothing: when one cannot be stored, the references taken for the others are given
    /// back before the error is thrown.
    ///
    /// - Returns: The save with its assets pointing at the stored files; the caller holds one
    ///   reference per asset value in it (give them back with `release(save.record)`).
    func storeAssets(of save: WireRecordSave) throws(WireError) -> WireRecordSave {
        var prepared = save
        var held: [WireFieldValue] = []
        do throws(WireError) {
            for key in save.record.fields.keys.sorted() {
                guard let value = save.record.fields[key], value.holdsAsset else { continue }
                let stored = try storeAssets(in: value, field: key, recordName: save.record.recordID.recordName, held: &held)
                prepared.record.fields[key] = stored
            }
        } catch {
            held.forEach(release)
            throw error
        }
        return prepared
    }

    private func storeAssets(in value: WireFieldValue, field: String, recordName: String, held: inout [WireFieldValue]) throws(WireError) -> WireFieldValue {
        switch value {
        case .asset(let asset):
            let stored = WireFieldValue.asset(try store(asset, field: field, recordName: recordName).0)
            held.append(stored)
            return stored
        case .list(let values):
            var stored: [WireFieldValue] = []
            stored.reserveCapacity(values.count)
            for element in values { stored.append(try storeAssets(in: element, field: field, recordName: recordName, held: &held)) }
            return .list(stored)
        default:
            return value
        }
    }

    /// The bytes of the regular file at `url`, at most the 50 MB limit.
    private func readCapped(_ url: URL, field: String, recordName: String) throws(WireError) -> Data {
        let notFound = WireError(.assetFileNotFound, "the asset file of field '\(field)' of record '\(recordName)' does not exist at \(url.path), or is not a regular file")
        let limit = WireLimits.maximumAssetBytes
        func tooLarge(_ size: String) -> WireError {
            WireError(.limitExceeded, "the asset file of field '\(field)' of record '\(recordName)' holds \(size) bytes; the limit is \(limit) (50 MB)")
        }
        // Open without following a symbolic link and without blocking on a FIFO; everything
        // after this reads the file that was opened, whatever happens to the path.
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { throw notFound }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { throw notFound }
        let size = Int(status.st_size)
        guard size <= limit else { throw tooLarge("\(size)") }
        afterSizeCheck?(url)

        var data = Data()
        data.reserveCapacity(size + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while data.count <= limit {
            let wanted = min(chunk.count, limit + 1 - data.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw WireError(.assetFileNotFound, "the asset file of field '\(field)' of record '\(recordName)' could not be read at \(url.path) (errno \(errno))")
            }
            if count == 0 { break }
            data.append(contentsOf: chunk[0..<count])
        }
        guard data.count <= limit else { throw tooLarge("more than \(limit)") }
        return data
    }

    /// Takes one reference to the stored file `name` when it is stored and referenced already.
    private func takeReferenceIfStored(_ name: String, at stored: URL) -> Bool {
        references.withLock { references in
            guard references[name, default: 0] > 0, files.fileExists(atPath: stored.path) else { return false }
            references[name, default: 0] += 1
            return true
        }
    }

    // MARK: - Reference counting

    /// Takes one reference to the stored file of every asset in `value` (lists walked).
    ///
    /// Call it only for values whose files are held already (by a save's hold or a stored
    /// record), so the files exist; see the type's documentation for the order.
    func retain(_ value: WireFieldValue) {
        forEachStoredFile(in: value) { name in
            references.withLock { $0[name, default: 0] += 1 }
        }
    }

    /// Gives back one reference to the stored file of every asset in `value` (lists walked).
    /// A file whose count drops to 0 is deleted with its client copy. Releasing a file that
    /// holds no reference does nothing.
    func release(_ value: WireFieldValue) {
        forEachStoredFile(in: value) { name in
            references.withLock { references in
                guard let count = references[name] else { return }
                guard count <= 1 else {
                    references[name] = count - 1
                    return
                }
                references[name] = nil
                try? files.removeItem(at: assetsDirectory.appendingPathComponent(name))
                try? files.removeItem(at: downloadsDirectory.appendingPathComponent(name))
            }
        }
    }

    /// `retain(_:)` for every plain and encrypted field of `record`.
    func retain(_ record: WireRecord) {
        for value in record.fields.values { retain(value) }
        for value in record.encryptedFields.values { retain(value) }
    }

    /// `release(_:)` for every plain and encrypted field of `record`.
    func release(_ record: WireRecord) {
        for value in record.fields.values { release(value) }
        for value in record.encryptedFields.values { release(value) }
    }

    /// The references to the stored file of `asset`: 0 when it is not stored here.
    func referenceCount(of asset: WireAsset) -> Int {
        guard let name = storedName(of: asset) else { return 0 }
        return references.withLock { $0[name, default: 0] }
    }

    /// The names of the stored files, for tests and invariant checks.
    var storedFileNames: Set<String> {
        references.withLock { Set($0.keys) }
    }

    private func forEachStoredFile(in value: WireFieldValue, _ body: (String) -> Void) {
        switch value {
        case .asset(let asset):
            if let name = storedName(of: asset) { body(name) }
        case .list(let values):
            for element in values { forEachStoredFile(in: element, body) }
        default:
            break
        }
    }

    /// The file name of `asset` when its file is one of this store's stored files.
    private func storedName(of asset: WireAsset) -> String? {
        guard let url = asset.fileURL, url.isFileURL else { return nil }
        let name = url.lastPathComponent
        guard !name.isEmpty, !name.hasPrefix("."),
              url.deletingLastPathComponent().standardizedFileURL.path == assetsDirectory.standardizedFileURL.path
        else { return nil }
        return name
    }

    // MARK: - Client copies

    /// A local copy of a stored asset for clients to read: one read-only file per stored file,
    /// made again when it is missing or no longer matches, so the stored file is never handed
    /// out and fetching the same asset again does not fill the disk. The copy is deleted with
    /// the stored file; an asset whose file was deleted meanwhile comes back with no file.
    func clientCopy(of asset: WireAsset) -> WireAsset {
        guard let source = asset.fileURL else { return asset }
        let directory = downloadsDirectory
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
        } catch {
            try? files.removeItem(at: staging)
            return WireAsset(fileURL: nil)
        }
        // Rename under the lock, and only while the stored file is referenced (or was never
        // counted), so a copy never outlives a stored file released meanwhile.
        let renamed = references.withLock { references -> Bool in
            if let name = storedName(of: asset), references[name] == nil { return false }
            return rename(staging.path, copy.path) == 0
        }
        guard renamed else {
            try? files.removeItem(at: staging)
            return WireAsset(fileURL: nil)
        }
        return WireAsset(fileURL: copy)
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
