import Foundation
import StratusWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The server's asset files: a per-server temporary directory, removed with the server.
///
/// Bytes arrive by upload (``storeUpload(_:expires:)``, behind `assets/upload`'s URLs): they
/// are written into `assets/`, named by their SHA-256 in hex, which is also the asset's
/// `fileChecksum`. A stored record's asset is `{fileChecksum, size}`; fetching hands out a
/// download URL, and the bytes are read with ``contents(of:)``. No client file is ever read:
/// the client reads its own files and uploads their bytes.
///
/// ## Reference counting
///
/// Each stored file has a count of the references to it, kept here by file name. A file is
/// deleted when its count drops to 0:
///
/// - ``storeUpload(_:expires:)`` takes one reference on behalf of the upload: the *upload's
///   hold*, which lasts until a save claims it or it expires
///   (``releaseExpiredUploads(now:)``), so bytes uploaded and never saved do not stay.
/// - ``claim(upload:name:)`` turns an upload's hold into the *save's hold* (or, when a save
///   claimed it before, takes a new reference while the bytes are still stored). The file
///   cannot disappear between the save's admission and its record being kept, even if
///   another request releases its last record with the same bytes meanwhile.
/// - `retain(_:)` takes one reference per asset in a value (lists walked);
///   `release(_:)` gives one back. The `retain(_:)` (record) and
///   `release(_:)` (record) overloads do the same for every field of a record.
///
/// The write path keeps the counts equal to "holds of unclaimed, unexpired uploads + holds of
/// saves in flight + asset values of stored records": once a request's outcome is final
/// (after rollbacks and the quota check), for every record whose stored version changed it
/// retains the new version, then releases the old one (retain first, so bytes shared by both
/// never touch 0), and then it releases the save's hold on every value it admitted, whether
/// the save succeeded or failed. A save that failed therefore leaves nothing behind. Deleting
/// a record, or a zone with its records, releases what they hold.
///
/// Values whose `fileChecksum` is not a stored file's name (a client's asset, or none) are
/// ignored by `retain(_:)` and `release(_:)`.
final class AssetStore: @unchecked Sendable {
    let root: URL
    private let files = FileManager.default

    /// An upload's hold on a stored file.
    private struct Upload {
        var name: String
        var expires: Date
    }

    private struct State {
        /// References per stored file name.
        var references: [String: Int] = [:]
        /// The holds of uploads not yet claimed, by upload serial.
        var uploads: [UInt64: Upload] = [:]
    }

    /// Every change to a stored file (placing, deleting) happens under this lock, so counts
    /// and files never disagree.
    private let state = Mutex(State())
    private let uploadSerials = Atomic<UInt64>(0)

    /// Creates an empty store in a new temporary directory.
    init() {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-\(UUID().uuidString)", isDirectory: true)
    }

    deinit {
        try? files.removeItem(at: root)
    }

    /// Where stored files live.
    var assetsDirectory: URL { root.appendingPathComponent("assets", isDirectory: true) }

    // MARK: - Uploads

    /// Stores uploaded bytes and takes one reference to the stored file for the upload (its
    /// hold, given back by ``claim(upload:name:)`` or at `expires`).
    ///
    /// - Returns: The stored file's name (the SHA-256 of `data` in hex: the asset's
    ///   `fileChecksum`) and the upload's serial, which its receipt carries.
    /// - Throws: `limitExceeded` for more than ``WireLimits/maximumAssetBytes`` bytes;
    ///   `internalError` when the file cannot be written.
    func storeUpload(_ data: Data, expires: Date) throws(WireError) -> (name: String, serial: UInt64) {
        let limit = WireLimits.maximumAssetBytes
        guard data.count <= limit else {
            throw WireError(.limitExceeded, "the uploaded asset holds \(data.count) bytes; the limit is \(limit) (50 MB)")
        }
        let name = SHA256.hex(data)
        let stored = assetsDirectory.appendingPathComponent(name)
        let serial = uploadSerials.add(1, ordering: .relaxed).newValue
        let upload = Upload(name: name, expires: expires)
        let heldAlready = state.withLock { state -> Bool in
            guard state.references[name, default: 0] > 0, files.fileExists(atPath: stored.path) else { return false }
            state.references[name, default: 0] += 1
            state.uploads[serial] = upload
            return true
        }
        if heldAlready { return (name, serial) }

        let staging = assetsDirectory.appendingPathComponent(".staging-\(UUID().uuidString)")
        do {
            try files.createDirectory(at: assetsDirectory, withIntermediateDirectories: true)
            try data.write(to: staging)
        } catch {
            try? files.removeItem(at: staging)
            throw WireError(.internalError, "the server could not store an asset: \(error)")
        }
        let renameError = state.withLock { state -> Int32? in
            if state.references[name, default: 0] > 0, files.fileExists(atPath: stored.path) {
                try? files.removeItem(at: staging)
            } else if rename(staging.path, stored.path) != 0 {
                return errno
            }
            state.references[name, default: 0] += 1
            state.uploads[serial] = upload
            return nil
        }
        if let renameError {
            try? files.removeItem(at: staging)
            throw WireError(.internalError, "the server could not store an asset: renaming its file failed (errno \(renameError))")
        }
        return (name, serial)
    }

    /// Takes one reference to the stored file `name` for a save (the save's hold): the hold
    /// of the upload `serial` when it is still there (it moves to the save), otherwise a new
    /// reference while the file is stored and referenced.
    ///
    /// - Returns: false when the file is no longer stored.
    func claim(upload serial: UInt64, name: String) -> Bool {
        let stored = assetsDirectory.appendingPathComponent(name)
        return state.withLock { state in
            if let upload = state.uploads[serial], upload.name == name {
                state.uploads[serial] = nil
                return true
            }
            guard state.references[name, default: 0] > 0, files.fileExists(atPath: stored.path) else { return false }
            state.references[name, default: 0] += 1
            return true
        }
    }

    /// Gives back the holds of uploads that expired at `now` and were never claimed.
    func releaseExpiredUploads(now: Date) {
        state.withLock { state in
            let expired = state.uploads.filter { $0.value.expires <= now }
            for (serial, upload) in expired {
                state.uploads[serial] = nil
                releaseReference(to: upload.name, in: &state)
            }
        }
    }

    /// The holds of uploads not yet claimed or expired, for tests.
    var pendingUploadCount: Int {
        state.withLock { $0.uploads.count }
    }

    // MARK: - Reading

    /// The bytes of the stored file `name`, or nil when it is not stored (any more).
    func contents(of name: String) -> Data? {
        guard AssetStore.isStoredName(name) else { return nil }
        let referenced = state.withLock { $0.references[name] != nil }
        guard referenced else { return nil }
        return try? Data(contentsOf: assetsDirectory.appendingPathComponent(name))
    }

    /// The size of the stored file of `asset`, 0 when it has none.
    func size(of asset: WireAsset) -> Int {
        guard let name = storedName(of: asset),
              let size = try? files.attributesOfItem(atPath: assetsDirectory.appendingPathComponent(name).path)[.size] as? NSNumber
        else { return 0 }
        return size.intValue
    }

    // MARK: - Reference counting

    /// Takes one reference to the stored file of every asset in `value` (lists walked).
    ///
    /// Call it only for values whose files are held already (by a save's hold or a stored
    /// record), so the files exist; see the type's documentation for the order.
    func retain(_ value: WireFieldValue) {
        forEachStoredFile(in: value) { name in
            state.withLock { $0.references[name, default: 0] += 1 }
        }
    }

    /// Gives back one reference to the stored file of every asset in `value` (lists walked).
    /// A file whose count drops to 0 is deleted. Releasing a file that holds no reference
    /// does nothing.
    func release(_ value: WireFieldValue) {
        forEachStoredFile(in: value) { name in
            state.withLock { releaseReference(to: name, in: &$0) }
        }
    }

    private func releaseReference(to name: String, in state: inout State) {
        guard let count = state.references[name] else { return }
        guard count <= 1 else {
            state.references[name] = count - 1
            return
        }
        state.references[name] = nil
        try? files.removeItem(at: assetsDirectory.appendingPathComponent(name))
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
        return state.withLock { $0.references[name, default: 0] }
    }

    /// The names of the stored files, for tests and invariant checks.
    var storedFileNames: Set<String> {
        state.withLock { Set($0.references.keys) }
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

    /// The file name of `asset` when its checksum can name one of this store's files.
    private func storedName(of asset: WireAsset) -> String? {
        guard let name = asset.fileChecksum, AssetStore.isStoredName(name) else { return nil }
        return name
    }

    /// Whether `name` is shaped like a stored file's name: 64 lowercase hex digits.
    static func isStoredName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}
