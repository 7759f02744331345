import Foundation
import StratusCore
import StratusWire

/// Turns lookup infos (email addresses, phone numbers, user record IDs) into new share
/// participants, in one request, to add to a share with `CKShare.addParticipant(_:)`.
///
/// ```swift
/// let operation = CKFetchShareParticipantsOperation(userIdentityLookupInfos: CKUserIdentity.LookupInfo.lookupInfos(withEmails: emails))
/// operation.perShareParticipantResultBlock = { lookupInfo, result in
///     if case .success(let participant) = result { share.addParticipant(participant) }
/// }
/// operation.fetchShareParticipantsResultBlock = { result in … }
/// container.add(operation)
/// ```
///
/// Unlike user discovery, the people looked up need not have granted `userDiscoverability`:
/// inviting someone needs no opt-in. Each lookup info gives one participant, a `.privateUser`,
/// `.pending`, with `.readOnly` permission. A person found among iCloud's accounts has a
/// participant whose identity carries their user record ID (and their name only if they are
/// discoverable); a person no account matches still gets a participant, whose identity has only
/// the lookup info and `hasiCloudAccount == false`, so you can invite them by that address.
/// A lookup info that does not name exactly one non-empty address or user record ID fails
/// alone with `invalidArguments`, and the final result is then a `partialFailure` keyed by the
/// lookup infos you passed.
///
/// The request needs an iCloud account (`notAuthenticated` without one) and takes at most
/// 400 lookup infos (`limitExceeded` beyond).
///
/// CloudKit document: *CKFetchShareParticipantsOperation*.
public final class CKFetchShareParticipantsOperation: CKOperation, @unchecked Sendable {
    // MARK: - Properties

    /// The people to make participants of.
    @_Locked public var userIdentityLookupInfos: [CKUserIdentity.LookupInfo]? = nil

    /// Creates an operation that makes participants of the people `userIdentityLookupInfos` name.
    public convenience init(userIdentityLookupInfos: [CKUserIdentity.LookupInfo]) {
        self.init()
        self.userIdentityLookupInfos = userIdentityLookupInfos
    }

    // MARK: - Per-item callbacks

    /// Called once per lookup info, in order, with its participant or why it names no one.
    @_OperationBlock public var perShareParticipantResultBlock: ((CKUserIdentity.LookupInfo, Result<CKShare.Participant, any Error>) -> Void)?

    /// The legacy per-participant block, called once per participant made, without the
    /// failures; ignored when ``perShareParticipantResultBlock`` is set.
    @available(*, deprecated, message: "Use perShareParticipantResultBlock instead, which surfaces per-share-participant errors")
    @_OperationBlock public var shareParticipantFetchedBlock: ((CKShare.Participant) -> Void)?

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` whose
    /// `partialErrorsByItemID` repeats the per-item failures, keyed by lookup info.
    @_OperationBlock public var fetchShareParticipantsResultBlock: ((Result<Void, any Error>) -> Void)?

    /// The legacy final block; ignored when ``fetchShareParticipantsResultBlock`` is set.
    @available(*, deprecated, message: "Use fetchShareParticipantsResultBlock instead")
    @_OperationBlock public var fetchShareParticipantsCompletionBlock: (((any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let lookupInfos = userIdentityLookupInfos ?? []
        let wireInfos = lookupInfos.map(\.wireValue)
        await lookUp(lookupInfos, { service, context async throws(WireError) in
            try await service.lookupShareParticipants(WireShareParticipantsLookupRequest(context: context, ids: wireInfos)).results
        }, making: CKShare.Participant.init(wire:), through: deliverResults)
    }

    override func reportFailure(_ error: CKError) {
        deliverResults(.failing(userIdentityLookupInfos ?? [], with: error))
    }

    // MARK: - Result mapping

    /// Calls the per-item blocks in order, then the final block. Runs on the callback queue.
    private func deliverResults(_ results: ItemReport<CKUserIdentity.LookupInfo, CKShare.Participant>) {
        let legacy = blocks[\CKFetchShareParticipantsOperation._shareParticipantFetchedBlock]
        deliverEach(results.items, to: perShareParticipantResultBlock, orLegacy: legacy.map { legacy in { _, result in if case .success(let participant) = result { legacy(participant) } } })
        deliverFinal(results.finalError, to: fetchShareParticipantsResultBlock, orLegacy: blocks[\CKFetchShareParticipantsOperation._fetchShareParticipantsCompletionBlock])
    }
}
