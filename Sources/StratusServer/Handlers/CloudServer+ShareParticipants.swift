import Foundation
import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/lookupShareParticipants(_:)``
    public func lookupShareParticipants(_ request: WireShareParticipantsLookupRequest) async throws(WireError) -> WireShareParticipantsLookupResponse {
        let scope = try await begin(request.context, .lookupShareParticipants)
        let caller = try scope.requireAccount().userRecordName
        try Self.checkItemCount(request.ids.count, of: "lookup infos")
        let container = scope.container.identifier
        let results = registry.withLock { registry in
            let accounts = registry.everyAccount
            return request.ids.map { info -> WireItemResult<WireUserLookupInfo, WireShareParticipant> in
                if let problem = PeopleDirectory.problem(with: info) {
                    return WireItemResult(id: info, result: .failure(WireError(.invalidArguments, problem)))
                }
                // `__defaultOwner__` stands for the caller's own user record, as in record lookups.
                var lookup = info
                if let recordID = info.userRecordID, recordID.zoneID.isDefaultZone,
                   recordID.recordName.hasSameUTF8Bytes(as: WireZoneID.currentUserOwnerName) {
                    lookup.userRecordID = WireRecordID(recordName: caller)
                }
                var identity = registry.people.invitee(lookup, in: container, accounts: accounts) {
                    self.userRecordName(account: $0, containerIdentifier: container)
                }
                identity.lookupInfo = info
                let participant = WireShareParticipant(
                    participantID: RandomUUID.string(),
                    identity: identity,
                    role: .privateUser,
                    acceptanceStatus: .pending,
                    permission: .readOnly
                )
                return WireItemResult(id: info, result: .success(participant))
            }
        }
        return WireShareParticipantsLookupResponse(results: results)
    }
}

extension CloudServer.Registry {
    /// Every account the server knows: those signed in on a device, those given an address,
    /// name or contact list, and those that have used a container.
    var everyAccount: Set<String> {
        var accounts = Set(devices.values.compactMap(\.account))
        accounts.formUnion(people.profiles.keys)
        for key in knownUsers {
            if let account = key.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false).first {
                accounts.insert(String(account))
            }
        }
        return accounts
    }
}
