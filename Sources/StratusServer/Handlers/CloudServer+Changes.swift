import Foundation
import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/recordChanges(_:)``
    ///
    /// Each record changed since the token appears once, in its latest version, and a record
    /// deleted since then as a tombstone with the type it had (a record created and deleted in
    /// between appears at most as a tombstone). Changes come in the order they were made; the
    /// token of a batch follows its last change, so a fetch interrupted after any batch resumes
    /// from that batch's token.
    public func recordChanges(_ request: WireRecordChangesRequest) async throws(WireError) -> WireRecordChangesResponse {
        let scope = try await begin(request.context, .recordChanges)
        try refusePublicDatabase(scope)
        let database = try scope.databaseForReading()
        if let error = WireValidation.checkZoneName(request.zoneID.zoneName) { throw error }
        // In the shared database the token is checked before the zone is looked for: what a
        // caller hears of a zone they may not see must not depend on whether it exists.
        var since: ChangeToken?
        if database.scope == .shared {
            if let refusal = scope.refusalInSharedDatabase(of: request.zoneID) { throw refusal }
            since = try openToken(request.sinceToken, scope: scope, zoneID: request.zoneID)
        }
        let view = try view(of: request.zoneID, in: database, scope: scope)
        guard view.store.zone.capabilities.contains(.fetchChanges) else {
            throw WireError(.invalidArguments, "zone '\(request.zoneID.zoneName)' does not support fetching changes (the default zone never does)")
        }
        if database.scope != .shared { since = try openToken(request.sinceToken, scope: scope, zoneID: view.zoneID) }
        return try changes(of: view, since: since, request)
    }

    /// - SeeAlso: ``CloudService/databaseChanges(_:)``
    ///
    /// A zone appears once, as changed (created, or its records changed) or as deleted with
    /// the reason, in the order of its latest change. The default zone never appears: it has
    /// no change history to fetch.
    public func databaseChanges(_ request: WireDatabaseChangesRequest) async throws(WireError) -> WireDatabaseChangesResponse {
        let scope = try await begin(request.context, .databaseChanges)
        try refusePublicDatabase(scope)
        let database = try scope.databaseForReading()
        let since = try openToken(request.sinceToken, scope: scope, zoneID: nil)
        return changes(of: database, since: since, request, scope: scope)
    }

    /// Change fetches exist only in the private and shared databases.
    private func refusePublicDatabase(_ scope: RequestScope) throws(WireError) {
        guard scope.databaseScope != .public else {
            throw WireError(.badDatabase, "the public database has no change history to fetch")
        }
    }

    /// The token a change fetch starts from, checked against the caller and the history it
    /// asks for (a zone's, or the database's when `zoneID` is nil); nil for a fetch from the
    /// beginning.
    private func openToken(_ bytes: [UInt8]?, scope: RequestScope, zoneID: WireZoneID?) throws(WireError) -> ChangeToken? {
        guard let bytes else { return nil }
        let token = try ChangeToken.open(bytes, key: sealingKey)
        try token.check(container: scope.container.identifier, database: scope.databaseScope, user: scope.userRecordName, zoneID: zoneID)
        return token
    }
}
