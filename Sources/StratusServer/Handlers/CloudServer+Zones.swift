import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/listZones(_:)``
    public func listZones(_ context: WireRequestContext) async throws(WireError) -> WireZonesListResponse {
        let scope = try await begin(context, .listZones)
        let database = try scope.databaseForReading()
        return WireZonesListResponse(zones: views(of: database, scope: scope).map(\.zone))
    }

    /// - SeeAlso: ``CloudService/lookupZones(_:)``
    public func lookupZones(_ request: WireZonesLookupRequest) async throws(WireError) -> WireZonesLookupResponse {
        let scope = try await begin(request.context, .lookupZones)
        let database = try scope.databaseForReading()
        return WireZonesLookupResponse(results: request.ids.map { zoneID in
            WireItemResult(id: zoneID, result: Result { () throws(WireError) -> WireZone in
                if let error = WireValidation.checkZoneName(zoneID.zoneName) { throw error }
                var view = try view(of: zoneID, in: database, scope: scope)
                try view.acquire()
                defer { view.release() }
                return view.zone
            })
        })
    }

    /// - SeeAlso: ``CloudService/modifyZones(_:)``
    public func modifyZones(_ request: WireZonesModifyRequest) async throws(WireError) -> WireZonesModifyResponse {
        let scope = try await begin(request.context, .modifyZones)
        let database = try scope.databaseForWriting()
        return try modify(request, in: database, scope: scope)
    }
}
