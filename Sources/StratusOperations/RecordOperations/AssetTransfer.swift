import Foundation
import StratusCore
import StratusWire
#if canImport(Glibc)
import Glibc
#endif

// Assets cross as CloudKit Web Services moves them. Saving: the client reads each asset's local
// file, asks `assets/upload` for upload URLs (one request per zone, at most 200 tokens each),
// sends the bytes to each URL, and saves the asset dictionary the upload answered (checksum,
// size, receipt) in place of the file. Fetching: every record that arrives has its assets'
// bytes downloaded by their `downloadURL` into the device's ``AssetCache``, and its
// `CKAsset.fileURL` points at that local copy. No file path ever crosses the service.

/// Reading an asset's local file for upload: the client's checks on the file.
package enum AssetFileReader {
    /// The bytes of the regular file at `url`, at most ``WireLimits/maximumAssetBytes``.
    ///
    /// The file is opened once, without following a symbolic link and without blocking on a
    /// FIFO; its size is checked on the open file, and at most the limit + 1 bytes are read
    /// from it, so a file swapped or grown after the check is still refused, or read as it was
    /// checked.
    ///
    /// - Parameter afterSizeCheck: For tests: called with `url` after the size was checked
    ///   and before the bytes are read, so a test can change the file in between.
    /// - Throws: `assetFileNotFound` when there is no file, or it is not a readable regular
    ///   file; `limitExceeded` when it holds more than 50 MB.
    package static func bytes(
        of url: URL?,
        field: String,
        recordName: String,
        afterSizeCheck: ((URL) -> Void)? = nil
    ) throws(WireError) -> Data {
        guard let url else {
            throw WireError(.assetFileNotFound, "the asset in field '\(field)' of record '\(recordName)' has no file")
        }
        let notFound = WireError(.assetFileNotFound, "the asset file of field '\(field)' of record '\(recordName)' does not exist at \(url.path), or is not a regular file")
        let limit = WireLimits.maximumAssetBytes
        func tooLarge(_ size: String) -> WireError {
            WireError(.limitExceeded, "the asset file of field '\(field)' of record '\(recordName)' holds \(size) bytes; the limit is \(limit) (50 MB)")
        }
        guard url.isFileURL else { throw notFound }
        // Everything after this reads the file that was opened, whatever happens to the path.
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
}

/// One asset of a save, waiting for its upload.
private struct PendingAsset {
    /// The save's position in the plan's ``ModifyRecordsPlan/saves``.
    var saveIndex: Int
    var field: String
    /// Its position in a list field; nil for a single asset.
    var position: Int?
    var data: Data
    var zoneID: WireZoneID
    var recordName: String
    var recordType: String
    /// What the upload answered.
    var uploaded: WireAsset?
}

extension CKModifyRecordsOperation {
    /// Uploads the assets of every save the plan sends, then puts each upload's asset
    /// dictionary (checksum, size, receipt) in its save. A save whose file cannot be read, or
    /// whose bytes the service refused, fails alone (with the other items of its atomic zone,
    /// as any failed item does); a refused `assets/upload` request fails the operation.
    ///
    /// - Returns: The local copies of the uploaded bytes by checksum, so the saved records'
    ///   assets point at them without downloading them again; or the error of the request that
    ///   failed.
    func uploadAssets(of plan: inout ModifyRecordsPlan) async -> Result<[String: URL], CKError> {
        var failures: [Int: CKError] = [:]
        var pending: [PendingAsset] = []
        for (index, save) in plan.sentSaves {
            let record = save.record
            var found: [PendingAsset] = []
            do throws(WireError) {
                for key in record.fields.keys.sorted() {
                    guard let value = record.fields[key], value.holdsAsset else { continue }
                    let assets: [(Int?, WireAsset)]
                    switch value {
                    case .asset(let asset): assets = [(nil, asset)]
                    case .list(let values): assets = values.enumerated().compactMap { if case .asset(let asset) = $1 { ($0, asset) } else { nil } }
                    default: assets = []
                    }
                    for (position, asset) in assets {
                        let data = try AssetFileReader.bytes(of: asset.localFileURL, field: key, recordName: record.recordID.recordName)
                        found.append(PendingAsset(
                            saveIndex: index, field: key, position: position, data: data, zoneID: record.recordID.zoneID,
                            recordName: record.recordID.recordName, recordType: record.recordType
                        ))
                    }
                }
                pending += found
            } catch {
                failures[index] = CKError(error)
            }
        }

        // One assets/upload request per zone, at most 200 tokens each, then the bytes.
        let cache = assetCache
        var copies: [String: URL] = [:]
        let zones = pending.reduce(into: [WireZoneID]()) { zones, asset in if !zones.contains(asset.zoneID) { zones.append(asset.zoneID) } }
        for zoneID in zones {
            let indices = pending.indices.filter { pending[$0].zoneID == zoneID }
            for start in stride(from: 0, to: indices.count, by: WireLimits.maximumAssetUploadTokensPerRequest) {
                let batch = Array(indices[start..<min(indices.count, start + WireLimits.maximumAssetUploadTokensPerRequest)])
                let tokens = batch.map { WireAssetUploadTokenRequest(recordName: pending[$0].recordName, recordType: pending[$0].recordType, fieldName: pending[$0].field) }
                let response = await send(to: runDatabase) { service, context async throws(WireError) in
                    try await service.uploadAssets(WireAssetsUploadRequest(context: context, zoneID: zoneID, tokens: tokens))
                }
                let answered: [WireAssetUploadToken]
                switch response {
                case .success(let response): answered = response.tokens
                case .failure(let error): return .failure(error)
                }
                guard answered.count == batch.count else {
                    return .failure(CKError(.internalError, message: "assets/upload answered \(answered.count) tokens for \(batch.count) assets"))
                }
                for (index, token) in zip(batch, answered) where failures[pending[index].saveIndex] == nil {
                    let upload = WireAssetFileUploadRequest(url: token.url, data: pending[index].data)
                    let result = await send(to: runDatabase) { service, _ async throws(WireError) in
                        try await service.uploadAssetFile(upload)
                    }
                    switch result {
                    case .success(let answer):
                        pending[index].uploaded = answer.singleFile
                        if let checksum = answer.singleFile.fileChecksum, copies[checksum] == nil {
                            copies[checksum] = cache.store(pending[index].data, checksum: checksum)
                        }
                    case .failure(let error):
                        failures[pending[index].saveIndex] = error
                    }
                    pending[index].data = Data()
                }
            }
        }

        if !failures.isEmpty { plan.fail(failures) }
        var receipts: [Int: [(field: String, position: Int?, asset: WireAsset)]] = [:]
        for asset in pending {
            guard let uploaded = asset.uploaded else { continue }
            receipts[asset.saveIndex, default: []].append((asset.field, asset.position, uploaded))
        }
        plan.attachUploads(receipts)
        return .success(copies)
    }
}

extension ModifyRecordsPlan {
    /// Whether a save the plan sends holds an asset, which must be uploaded first.
    var sendsAssets: Bool {
        sentSaves.contains { $0.save.record.holdsAsset }
    }
}

/// Turns the assets of records that arrive into local files: each asset's bytes are
/// downloaded by its `downloadURL` into the device's ``AssetCache`` (once per checksum), and
/// the asset keeps the local copy as its file, as a fetched `CKAsset.fileURL` does in CloudKit.
/// An asset whose bytes cannot be downloaded (no record holds them any more, or the download
/// failed) arrives with no file. Only the fields a fetch asked for (`desiredKeys`) arrive, so
/// only their assets are downloaded.
struct AssetDownloads {
    let service: any CloudService
    let cache: AssetCache
    /// Local copies already made, by checksum: the uploads of a save, then every download.
    var copies: [String: URL]

    init(service: any CloudService, cache: AssetCache, copies: [String: URL] = [:]) {
        self.service = service
        self.cache = cache
        self.copies = copies
    }

    /// `record` with every asset's local copy as its file.
    mutating func localize(_ record: WireRecord) async -> WireRecord {
        guard record.holdsAsset else { return record }
        var localized = record
        for key in record.fields.keys.sorted() {
            guard let value = record.fields[key], value.holdsAsset else { continue }
            localized.fields[key] = await localize(value)
        }
        return localized
    }

    private mutating func localize(_ value: WireFieldValue) async -> WireFieldValue {
        switch value {
        case .asset(let asset):
            var local = asset
            local.localFileURL = await copy(of: asset)
            local.localFileOwner = local.localFileURL == nil ? nil : cache
            local.downloadURL = nil
            return .asset(local)
        case .list(let values):
            var localized: [WireFieldValue] = []
            localized.reserveCapacity(values.count)
            for element in values { localized.append(await localize(element)) }
            return .list(localized)
        default:
            return value
        }
    }

    private mutating func copy(of asset: WireAsset) async -> URL? {
        if let checksum = asset.fileChecksum, let known = copies[checksum] { return known }
        guard let url = asset.downloadURL,
              let data = try? await service.downloadAssetFile(WireAssetFileDownloadRequest(url: url)).data,
              let copy = cache.store(data, checksum: asset.fileChecksum)
        else { return nil }
        if let checksum = asset.fileChecksum { copies[checksum] = copy }
        return copy
    }

    /// The answer with its records' assets as local files.
    mutating func localize(_ response: WireRecordsLookupResponse) async -> WireRecordsLookupResponse {
        var localized = response
        localized.results = await localize(response.results)
        return localized
    }

    /// The answer with its records' assets as local files.
    mutating func localize(_ response: WireRecordsModifyResponse) async -> WireRecordsModifyResponse {
        var localized = response
        localized.saveResults = await localize(response.saveResults)
        return localized
    }

    /// Share metadata with the assets of each root record fetched with it as local files.
    mutating func localize<ID>(_ results: [WireItemResult<ID, WireShareMetadata>]) async -> [WireItemResult<ID, WireShareMetadata>] {
        var localized = results
        for index in localized.indices {
            guard case .success(var metadata) = localized[index].result, let root = metadata.rootRecord, root.holdsAsset else { continue }
            metadata.rootRecord = await localize(root)
            localized[index].result = .success(metadata)
        }
        return localized
    }

    /// Per-item results with the records' assets as local files: each record fetched or
    /// saved, and the server's record a conflict (`serverRecordChanged`) carries, which an app
    /// merges from as from any fetched record.
    private mutating func localize<ID>(_ results: [WireItemResult<ID, WireRecord>]) async -> [WireItemResult<ID, WireRecord>] {
        func record(of result: Result<WireRecord, WireError>) -> WireRecord? {
            switch result {
            case .success(let record): record
            case .failure(let error): error.serverRecord
            }
        }
        guard results.contains(where: { record(of: $0.result)?.holdsAsset == true }) else { return results }
        var localized = results
        for index in localized.indices {
            switch localized[index].result {
            case .success(let record):
                localized[index].result = .success(await localize(record))
            case .failure(var error):
                guard let server = error.serverRecord, server.holdsAsset else { continue }
                error.serverRecord = await localize(server)
                localized[index].result = .failure(error)
            }
        }
        return localized
    }

    /// The answer with its records' assets as local files.
    mutating func localize(_ response: WireQueryResponse) async -> WireQueryResponse {
        guard response.records.contains(where: \.holdsAsset) else { return response }
        var localized = response
        for index in localized.records.indices { localized.records[index] = await localize(localized.records[index]) }
        return localized
    }

    /// The answer with its records' assets as local files.
    mutating func localize(_ response: WireRecordChangesResponse) async -> WireRecordChangesResponse {
        guard response.changed.contains(where: \.holdsAsset) else { return response }
        var localized = response
        for index in localized.changed.indices { localized.changed[index] = await localize(localized.changed[index]) }
        return localized
    }
}

extension CKOperation {
    /// Where the assets of the records this operation receives are kept.
    var assetCache: AssetCache {
        runDatabase.container.device.assetCache
    }
}

extension WireRecord {
    /// Whether a plain field of the record holds an asset (lists walked): what has bytes to
    /// download.
    fileprivate var holdsAsset: Bool {
        fields.values.contains(where: \.holdsAsset)
    }
}
