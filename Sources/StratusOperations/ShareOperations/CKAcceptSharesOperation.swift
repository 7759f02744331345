import Foundation
import StratusCore
import StratusWire

/// Accepts shares for the current user, in one request, with the metadata fetched for their
/// URLs: afterwards the owner's zone appears in the user's shared database.
///
/// ```swift
/// let operation = CKAcceptSharesOperation(shareMetadatas: [metadata])
/// operation.perShareResultBlock = { metadata, result in … }
/// operation.acceptSharesResultBlock = { result in … }
/// CKContainer(identifier: metadata.containerIdentifier).add(operation)
/// ```
///
/// An invited user's participant becomes `.accepted`. On a share open to the public, a user
/// not yet on it joins as a `.publicUser`, `.accepted`, with the share's public permission
/// (`tooManyParticipants` when the share is full). Accepting a share again, or accepting your
/// own share, changes nothing and gives the share. Each share comes back as the user now sees
/// it, with the user as its `currentUserParticipant`; the metadata you passed is not changed.
///
/// The share is named by its URL, as CloudKit Web Services names it. Per share: a share that
/// no longer exists fails with `unknownItem`; a share only invited users may join, which does
/// not list the user, with `participantMayNeedVerification`; a metadata whose share has no URL
/// (one you made up or decoded from elsewhere) with `invalidArguments`, without being sent.
/// The final result is then a `partialFailure` whose `partialErrorsByItemID` is keyed by the
/// shares' URLs, as CloudKit's header says (a metadata whose share has no URL, by its share's
/// record ID). The request needs an iCloud account (`notAuthenticated`) and takes at most 400
/// shares (`limitExceeded`); with nothing to send, the operation sends no request.
///
/// CloudKit document: *CKAcceptSharesOperation*.
public final class CKAcceptSharesOperation: CKOperation, @unchecked Sendable {
    // MARK: - Properties

    /// The metadata of the shares to accept.
    @_Locked public var shareMetadatas: [CKShare.Metadata]? = nil

    /// Creates an operation that accepts the shares `shareMetadatas` describe.
    public convenience init(shareMetadatas: [CKShare.Metadata]) {
        self.init()
        self.shareMetadatas = shareMetadatas
    }

    // MARK: - Per-item callbacks

    /// Called once per metadata, in order, with the accepted share or why it was not accepted.
    @_OperationBlock public var perShareResultBlock: ((CKShare.Metadata, Result<CKShare, any Error>) -> Void)?

    /// The legacy per-share block, with the accepted share or the error; ignored when
    /// ``perShareResultBlock`` is set.
    @available(*, deprecated, message: "Use perShareResultBlock instead")
    @_OperationBlock public var perShareCompletionBlock: ((CKShare.Metadata, CKShare?, (any Error)?) -> Void)?

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` whose
    /// `partialErrorsByItemID` repeats the per-share failures, keyed by share URL.
    @_OperationBlock public var acceptSharesResultBlock: ((Result<Void, any Error>) -> Void)?

    /// The legacy final block; ignored when ``acceptSharesResultBlock`` is set.
    @available(*, deprecated, message: "Use acceptSharesResultBlock instead")
    @_OperationBlock public var acceptSharesCompletionBlock: (((any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let metadatas = shareMetadatas ?? []
        let urls = metadatas.map { $0.wireValue.share.shareInfo?.url }
        let sent = urls.compactMap { $0 }
        guard !sent.isEmpty else {
            finish(reporting: ItemReport(zip(metadatas, urls).map { metadata, _ in (metadata, .failure(Self.noURL(metadata))) }), through: deliverResults)
            return
        }
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.acceptShares(WireAcceptSharesRequest(context: context, ids: sent))
        }
        switch response {
        case .success(let response):
            var answers = response.results.makeIterator()
            let results = zip(metadatas, urls).map { metadata, url -> (CKShare.Metadata, Result<CKShare, any Error>) in
                guard url != nil else { return (metadata, .failure(Self.noURL(metadata))) }
                guard let answer = answers.next() else {
                    return (metadata, .failure(CKError(.internalError, message: "the service gave no result for the share \(metadata.share.recordID.recordName)")))
                }
                return (metadata, answer.result.mapError { CKError($0) as any Error }.flatMap { record in
                    guard let share = CKRecord.make(wire: record) as? CKShare else {
                        return .failure(CKError(.internalError, message: "the service answered a record of type \(record.recordType) for a share"))
                    }
                    return .success(share)
                })
            }
            finish(reporting: ItemReport(results), through: deliverResults)
        case .failure(let error):
            finish(reporting: .failing(metadatas, with: error), through: deliverResults)
        }
    }

    override func reportFailure(_ error: CKError) {
        deliverResults(.failing(shareMetadatas ?? [], with: error))
    }

    /// The error for a metadata whose share has no URL, which the service cannot find.
    private static func noURL(_ metadata: CKShare.Metadata) -> any Error {
        CKError(.invalidArguments, message: "the share \(metadata.share.recordID.recordName) of this metadata has no URL; accept metadata fetched for a share's URL")
    }

    // MARK: - Result mapping

    /// Calls the per-item blocks in order, then the final block. Runs on the callback queue.
    private func deliverResults(_ results: ItemReport<CKShare.Metadata, CKShare>) {
        let legacy = blocks[\CKAcceptSharesOperation._perShareCompletionBlock]
        deliverEach(results.items, to: perShareResultBlock, orLegacy: legacy.map { legacy in { metadata, result in legacy(metadata, try? result.get(), result.failure) } })
        // Keyed by the shares' URLs, as CloudKit's header says, or by the share's record ID.
        let keyed = results.items.map { metadata, result -> (AnyHashable, Result<CKShare, any Error>) in
            (metadata.share.url.map(AnyHashable.init) ?? AnyHashable(metadata.share.recordID), result)
        }
        deliverFinal(results.failure ?? CKError.partialFailure(of: keyed), to: acceptSharesResultBlock, orLegacy: blocks[\CKAcceptSharesOperation._acceptSharesCompletionBlock])
    }
}
