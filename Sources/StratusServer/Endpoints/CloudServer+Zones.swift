import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/listZones(_:)``
    public func listZones(_ context: WireRequestContext) async throws(WireError) -> WireZonesListResponse {
        let scope = try await begin(context, .listZones)
        let database = try scope.databaseForReading()
        if database.scope == .shared { return WireZonesListResponse(zones: listSharedZones(scope)) }
        return WireZonesListResponse(zones: database.allZones.map(\.zone))
    }

    /// - SeeAlso: ``CloudService/lookupZones(_:)``
    public func lookupZones(_ request: WireZonesLookupRequest) async throws(WireError) -> WireZonesLookupResponse {
        let scope = try await begin(request.context, .lookupZones)
        let database = try scope.databaseForReading()
        return WireZonesLookupResponse(results: request.zoneIDs.map { zoneID in
            if database.scope == .shared { return WireItemResult(id: zoneID, result: lookUpSharedZone(zoneID, scope: scope)) }
            if let error = WireValidation.checkZoneName(zoneID.zoneName) {
                return WireItemResult(id: zoneID, result: .failure(error))
            }
            guard let zone = database.zone(scope.normalized(zoneID)) else {
                return WireItemResult(id: zoneID, result: .failure(database.missingZoneError(scope.normalized(zoneID))))
            }
            return WireItemResult(id: zoneID, result: .success(zone.zone))
        })
    }

    /// - SeeAlso: ``CloudService/modifyZones(_:)``
    public func modifyZones(_ request: WireZonesModifyRequest) async throws(WireError) -> WireZonesModifyResponse {
        let scope = try await begin(request.context, .modifyZones)
        let database = try scope.databaseForWriting()
        var events = DatabaseEvents()
        let saveResults = request.saves.map { zone in
            WireItemResult(id: zone.zoneID, result: save(zone.zoneID, in: database, scope: scope, events: &events))
        }
        let deleteResults = request.deletes.map { zoneID in
            WireItemResult(id: zoneID, result: deleteZone(zoneID, from: database, scope: scope, events: &events))
        }
        fireSubscriptions(for: events, in: database, container: scope.container, originator: scope.deviceID)
        return WireZonesModifyResponse(saveResults: saveResults, deleteResults: deleteResults)
    }

    /// What a custom zone of a private database can do: fetch changes, apply atomic batches,
    /// hold record shares, and be shared as a whole (one or the other, not both at once).
    static let customZoneCapabilities: WireZone.Capabilities = [.fetchChanges, .atomic, .sharing, .zoneWideSharing]

    private func save(_ zoneID: WireZoneID, in database: DatabaseStore, scope: RequestScope, events: inout DatabaseEvents) -> Result<WireZone, WireError> {
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
        let (zone, created) = database.createZone(normalized, capabilities: Self.customZoneCapabilities)
        if created { events.zoneChanges.append(normalized) }
        return .success(zone)
    }

    private func deleteZone(_ zoneID: WireZoneID, from database: DatabaseStore, scope: RequestScope, events: inout DatabaseEvents) -> Result<Void, WireError> {
        if let error = WireValidation.checkZoneName(zoneID.zoneName) { return .failure(error) }
        if zoneID.isDefaultZone {
            return .failure(WireError(.invalidArguments, "the default zone '\(WireZoneID.defaultZoneName)' cannot be deleted"))
        }
        if database.scope != .private {
            return .failure(WireError(.badDatabase, "only private databases have custom zones; zone '\(zoneID.zoneName)' cannot be deleted from the \(database.scope) database"))
        }
        let audience = sharedAudience(ofZone: scope.normalized(zoneID), in: database)
        guard let freed = database.removeZone(scope.normalized(zoneID), assets: assets) else {
            return .failure(database.missingZoneError(scope.normalized(zoneID)))
        }
        _ = chargeStorage(-freed, scope: scope)
        if let owner = scope.userRecordName {
            noteSharedAudience(owner: owner, before: audience, after: [:], container: scope.container, originator: scope.deviceID)
        }
        events.zoneChanges.append(scope.normalized(zoneID))
        return .success(())
    }
}
