import Foundation
import StratusWire

extension CloudServer {
    /// What a custom zone of a private database can do: fetch changes, apply atomic batches,
    /// hold record shares, and be shared as a whole (one or the other, not both at once).
    static let customZoneCapabilities: WireZone.Capabilities = [.fetchChanges, .atomic, .sharing, .zoneWideSharing]

    /// Applies a zone modify request to `database` as one write through the pipeline: its
    /// saves, then its deletes, each answered on its own.
    func modify(_ request: WireZonesModifyRequest, in database: DatabaseStore, scope: RequestScope) throws(WireError) -> WireZonesModifyResponse {
        let write = Write(
            to: database, in: scope.container, by: WriteOrigin(scope, operationID: request.context.operationID),
            owner: scope.userRecordName, ledger: StorageLedger(scope)
        )
        return try perform(write) { (write: inout Write) throws(WireError) in
            let saveResults = request.saves.map { zone in
                WireItemResult(id: zone.zoneID, result: save(zone.zoneID, in: &write, scope: scope))
            }
            let deleteResults = request.deletes.map { zoneID in
                WireItemResult(id: zoneID, result: deleteZone(zoneID, in: &write, scope: scope))
            }
            return WireZonesModifyResponse(saveResults: saveResults, deleteResults: deleteResults)
        }
    }

    private func save(_ zoneID: WireZoneID, in write: inout Write, scope: RequestScope) -> Result<WireZone, WireError> {
        let database = write.database
        if let error = WireValidation.checkZoneName(zoneID.zoneName) { return .failure(error) }
        if zoneID.isDefaultZone {
            return .failure(WireError(.invalidArguments, "the default zone '\(WireZoneID.defaultZoneName)' exists in every database and cannot be saved"))
        }
        guard database.scope == .private else {
            return .failure(WireError(.badDatabase, "custom zones exist only in private databases; zone '\(zoneID.zoneName)' cannot be saved in the \(database.scope) database"))
        }
        let normalized = scope.normalized(zoneID)
        guard normalized.ownerName.hasSameUTF8Bytes(as: WireZoneID.currentUserOwnerName) else {
            return .failure(WireError(.permissionFailure, "zone '\(zoneID.zoneName)' belongs to another user"))
        }
        return .success(write.createZone(normalized, capabilities: Self.customZoneCapabilities))
    }

    private func deleteZone(_ zoneID: WireZoneID, in write: inout Write, scope: RequestScope) -> Result<Void, WireError> {
        let database = write.database
        if let error = WireValidation.checkZoneName(zoneID.zoneName) { return .failure(error) }
        if zoneID.isDefaultZone {
            return .failure(WireError(.invalidArguments, "the default zone '\(WireZoneID.defaultZoneName)' cannot be deleted"))
        }
        if database.scope != .private {
            return .failure(WireError(.badDatabase, "only private databases have custom zones; zone '\(zoneID.zoneName)' cannot be deleted from the \(database.scope) database"))
        }
        guard write.removeZone(scope.normalized(zoneID), assets: assets) else {
            return .failure(database.missingZoneError(scope.normalized(zoneID)))
        }
        return .success(())
    }
}
