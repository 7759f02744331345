import Foundation
import StratusCore
import StratusWire

/// Fetches what share URLs tell the current user (`CKShare.Metadata`), in one request: the
/// share, its owner, what it shares, and the user's own part in it, before they accept it.
///
/// ```swift
/// let operation = CKFetchShareMetadataOperation(shareURLs: [url])
/// operation.shouldFetchRootRecord = true
/// operation.rootRecordDesiredKeys = ["title"]
/// operation.perShareMetadataResultBlock = { url, result in … }
/// operation.fetchShareMetadataResultBlock = { result in … }
/// container.add(operation)
/// ```
///
/// As in CloudKit, the operation may run in any container: an app cannot know a share's
/// container before it has the metadata, whose `containerIdentifier` names it. The metadata
/// shows the share as the user sees it: the owner as in their private database, anyone else
/// as in their shared database (the zone's owner named by the owner's user record name). Its
/// `hierarchicalRootRecordID` is nil for a zone-wide share, and its `rootRecord` is there only
/// when ``shouldFetchRootRecord`` asks for it.
///
/// The user's part: the owner is `.owner`, `.accepted`, `.readWrite`; an invited user has
/// their participant's role, status and permission (`.pending` until they accept); anyone
/// signed in who opens a share open to the public, and is not yet on it, is `.publicUser`,
/// `.pending`, with the share's public permission (CloudKit's header does not say which
/// status such a user has; pending says they have not joined and may).
///
/// Per URL: a URL no share has fails with `unknownItem`; a share only invited users may join,
/// which does not list the user, with `participantMayNeedVerification`. The final result is
/// then a `partialFailure` whose `partialErrorsByItemID` is keyed by the URLs you passed. The
/// request needs an iCloud account (`notAuthenticated`) and takes at most 400 URLs
/// (`limitExceeded`); with no URLs the operation succeeds without a request.
///
/// CloudKit document: *CKFetchShareMetadataOperation*.
public final class CKFetchShareMetadataOperation: CKOperation, @unchecked Sendable {
    // MARK: - Properties

    /// The share URLs to fetch metadata for.
    @_Locked public var shareURLs: [URL]? = nil

    /// Whether each metadata carries its share's root record in `rootRecord`; false by
    /// default. `hierarchicalRootRecordID` is there either way (nil for a zone-wide share).
    @_Locked public var shouldFetchRootRecord: Bool = false

    /// The root record's fields to fetch when ``shouldFetchRootRecord`` is set: nil (the
    /// default) for every field, an empty array for system fields only.
    @_Locked public var rootRecordDesiredKeys: [CKRecord.FieldKey]? = nil

    /// Creates an operation that fetches the metadata of `shareURLs`.
    public convenience init(shareURLs: [URL]) {
        self.init()
        self.shareURLs = shareURLs
    }

    // MARK: - Per-item callbacks

    /// Called once per URL, in order, with its metadata or why the user cannot have it.
    @_OperationBlock public var perShareMetadataResultBlock: ((URL, Result<CKShare.Metadata, any Error>) -> Void)?

    /// The legacy per-URL block, with the metadata or the error; ignored when
    /// ``perShareMetadataResultBlock`` is set.
    @available(*, deprecated, message: "Use perShareMetadataResultBlock instead")
    @_OperationBlock public var perShareMetadataBlock: ((URL, CKShare.Metadata?, (any Error)?) -> Void)?

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` whose
    /// `partialErrorsByItemID` repeats the per-URL failures, keyed by URL.
    @_OperationBlock public var fetchShareMetadataResultBlock: ((Result<Void, any Error>) -> Void)?

    /// The legacy final block; ignored when ``fetchShareMetadataResultBlock`` is set.
    @available(*, deprecated, message: "Use fetchShareMetadataResultBlock instead")
    @_OperationBlock public var fetchShareMetadataCompletionBlock: (((any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let urls = shareURLs ?? []
        let request = (urls: urls.map(\.absoluteString), root: shouldFetchRootRecord, keys: rootRecordDesiredKeys)
        let cache = assetCache
        await lookUp(urls, { service, context async throws(WireError) in
            var downloads = AssetDownloads(service: service, cache: cache)
            return await downloads.localize(try await service.lookupShareMetadata(WireShareMetadataLookupRequest(
                context: context, shareURLs: request.urls, shouldFetchRootRecord: request.root, rootRecordDesiredKeys: request.keys
            )).results)
        }, making: CKShare.Metadata.init(wire:), through: deliverResults)
    }

    override func reportFailure(_ error: CKError) {
        deliverResults(.failing(shareURLs ?? [], with: error))
    }

    // MARK: - Result mapping

    /// Calls the per-item blocks in order, then the final block. Runs on the callback queue.
    private func deliverResults(_ results: ItemReport<URL, CKShare.Metadata>) {
        let legacy = blocks[\CKFetchShareMetadataOperation._perShareMetadataBlock]
        deliverEach(results.items, to: perShareMetadataResultBlock, orLegacy: legacy.map { legacy in { url, result in legacy(url, try? result.get(), result.failure) } })
        deliverFinal(results.finalError, to: fetchShareMetadataResultBlock, orLegacy: blocks[\CKFetchShareMetadataOperation._fetchShareMetadataCompletionBlock])
    }
}
