import StratusCore

// The accept convenience methods of CKContainer, with CloudKit's names: the batch forms of its
// Swift overlay (`accept(_:)` and `accept(_:completionHandler:)` for an array of metadata) and
// the single forms of its Objective-C API (`accept(_:completionHandler:)` for one metadata,
// and its async twin `accept(_:)`). Each runs one `CKAcceptSharesOperation`, so each costs one
// request, at `.userInitiated` quality of service unless `configuredWith` says otherwise.

extension CKContainer {
    /// Accepts the shares `metadatas` describe for the current user.
    ///
    /// - Returns: Each accepted share as the user now sees it, or why it was not accepted
    ///   (`unknownItem`, `participantMayNeedVerification`, `tooManyParticipants`), keyed by
    ///   the metadata objects you passed.
    /// - Throws: Only when the whole request fails (`notAuthenticated` without an account).
    public func accept(_ metadatas: [CKShare.Metadata]) async throws -> [CKShare.Metadata: Result<CKShare, any Error>] {
        var byMetadata: [CKShare.Metadata: Result<CKShare, any Error>] = [:]
        for (metadata, result) in try await runAcceptSharesOperation(metadatas) { byMetadata[metadata] = result }
        return byMetadata
    }

    /// Accepts the shares `metadatas` describe and passes the outcomes, or the request's
    /// error, to `completionHandler`; see the async `accept(_:)` for an array.
    @preconcurrency
    public func accept(
        _ metadatas: [CKShare.Metadata],
        completionHandler: @escaping @Sendable (Result<[CKShare.Metadata: Result<CKShare, any Error>], any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.accept(metadatas) }
    }

    /// Accepts the share `metadata` describes for the current user, and returns the share as
    /// the user now sees it.
    ///
    /// - Throws: `unknownItem`, `participantMayNeedVerification`, `tooManyParticipants`, or
    ///   the request's error.
    public func accept(_ metadata: CKShare.Metadata) async throws -> CKShare {
        let results = try await runAcceptSharesOperation([metadata])
        guard let result = results.first?.1 else {
            throw CKError(.internalError, message: "no result for the share \(metadata.share.recordID.recordName)")
        }
        return try result.get()
    }

    /// Accepts the share `metadata` describes and passes the share, or the error, to
    /// `completionHandler`.
    @preconcurrency
    public func accept(_ metadata: CKShare.Metadata, completionHandler: @escaping @Sendable (CKShare?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.accept(metadata) }
    }

    /// Runs one `CKAcceptSharesOperation` for `metadatas` and returns each one's outcome in
    /// order.
    private func runAcceptSharesOperation(_ metadatas: [CKShare.Metadata]) async throws -> [(CKShare.Metadata, Result<CKShare, any Error>)] {
        try await runItemOperation(CKAcceptSharesOperation(shareMetadatas: metadatas)) { operation, item, final in
            operation.perShareResultBlock = item
            operation.acceptSharesResultBlock = final
        }
    }
}
