import Foundation
import StratusCore

// The share metadata convenience methods of CKContainer, with CloudKit's names: the batch
// forms of its Swift overlay (`shareMetadatas(for:)`, `fetchShareMetadatas(for:completionHandler:)`)
// and the single forms of its Objective-C API (`shareMetadata(for:)`,
// `fetchShareMetadata(with:completionHandler:)`). Each runs one `CKFetchShareMetadataOperation`
// (without the root record), so each costs one request, at `.userInitiated` quality of service
// unless `configuredWith` says otherwise. Like the operation, they work in any container.

extension CKContainer {
    /// The metadata of the shares at `urls`, as the current user sees them.
    ///
    /// - Returns: Each URL's metadata, or why the user cannot have it (`unknownItem` for a URL
    ///   no share has, `participantMayNeedVerification` for a share that does not list the
    ///   user and only invited users may join), keyed by the URLs you passed.
    /// - Throws: Only when the whole request fails (`notAuthenticated` without an account).
    public func shareMetadatas(for urls: [URL]) async throws -> [URL: Result<CKShare.Metadata, any Error>] {
        var byURL: [URL: Result<CKShare.Metadata, any Error>] = [:]
        for (url, result) in try await runShareMetadataOperation(urls) { byURL[url] = result }
        return byURL
    }

    /// Passes the metadata of the shares at `urls`, or the request's error, to
    /// `completionHandler`; see ``shareMetadatas(for:)``.
    @preconcurrency
    public func fetchShareMetadatas(
        for urls: [URL],
        completionHandler: @escaping @Sendable (Result<[URL: Result<CKShare.Metadata, any Error>], any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.shareMetadatas(for: urls) }
    }

    /// The metadata of the share at `url`, as the current user sees it.
    ///
    /// - Throws: `unknownItem` for a URL no share has, `participantMayNeedVerification` for a
    ///   share that does not list the user and only invited users may join, or the request's
    ///   error.
    public func shareMetadata(for url: URL) async throws -> CKShare.Metadata {
        let results = try await runShareMetadataOperation([url])
        guard let result = results.first?.1 else {
            throw CKError(.internalError, message: "no result for the share URL \(url)")
        }
        return try result.get()
    }

    /// Passes the metadata of the share at `url`, or the error, to `completionHandler`; see
    /// ``shareMetadata(for:)``.
    @preconcurrency
    public func fetchShareMetadata(with url: URL, completionHandler: @escaping @Sendable (CKShare.Metadata?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.shareMetadata(for: url) }
    }

    /// Runs one `CKFetchShareMetadataOperation` for `urls` and returns each URL's outcome in
    /// order.
    private func runShareMetadataOperation(_ urls: [URL]) async throws -> [(URL, Result<CKShare.Metadata, any Error>)] {
        try await runItemOperation(CKFetchShareMetadataOperation(shareURLs: urls)) { operation, item, final in
            operation.perShareMetadataResultBlock = item
            operation.fetchShareMetadataResultBlock = final
        }
    }
}
