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
        return try modify(request, in: database, scope: scope)
    }
}
