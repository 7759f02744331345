import StratusCore

// The zone convenience methods of CKDatabase. Each runs one operation at `.userInitiated`
// quality of service, so each costs one request. Single-zone methods throw the zone's own error; batch methods throw only when the
// whole request fails.

extension CKDatabase {
    /// Creates a zone, with `fetchChanges` and `atomic`, in a private database. Saving a zone
    /// that exists changes nothing and returns it.
    ///
    /// - Throws: `badDatabase` outside a private database, `invalidArguments` for the default
    ///   zone or a bad name, or the request's error.
    @discardableResult
    public func save(_ zone: CKRecordZone) async throws -> CKRecordZone {
        let (saveResults, _) = try await modifyRecordZones(saving: [zone], deleting: [])
        return try saveResults.result(for: zone.zoneID, of: "zone '\(zone.zoneID.zoneName)'")
    }

    /// Creates a zone and passes it, or the error, to `completionHandler`.
    @preconcurrency
    public func save(_ zone: CKRecordZone, completionHandler: @escaping @Sendable (CKRecordZone?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.save(zone) }
    }

    /// Fetches one zone.
    ///
    /// - Throws: `zoneNotFound` when it does not exist, or the request's error.
    @discardableResult
    public func recordZone(for zoneID: CKRecordZone.ID) async throws -> CKRecordZone {
        let results = try await recordZones(for: [zoneID])
        return try results.result(for: zoneID, of: "zone '\(zoneID.zoneName)'")
    }

    /// Fetches one zone and passes it, or the error, to `completionHandler`.
    @preconcurrency
    public func fetch(withRecordZoneID zoneID: CKRecordZone.ID, completionHandler: @escaping @Sendable (CKRecordZone?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.recordZone(for: zoneID) }
    }

    /// Fetches every zone of the database, the default zone first.
    @discardableResult
    public func allRecordZones() async throws -> [CKRecordZone] {
        try await perform(CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()) { operation, resume in
            var zones: [CKRecordZone] = []
            operation.perRecordZoneResultBlock = { _, result in
                if case .success(let zone) = result { zones.append(zone) }
            }
            operation.fetchRecordZonesResultBlock = { final in
                resume(final.map { zones })
            }
        }
    }

    /// Fetches every zone and passes them, or the error, to `completionHandler`.
    @preconcurrency
    public func fetchAllRecordZones(completionHandler: @escaping @Sendable ([CKRecordZone]?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.allRecordZones() }
    }

    /// Deletes a zone and every record in it.
    ///
    /// - Returns: The ID you passed.
    /// - Throws: `zoneNotFound` when it does not exist, `invalidArguments` for the default zone,
    ///   or the request's error.
    @discardableResult
    public func deleteRecordZone(withID zoneID: CKRecordZone.ID) async throws -> CKRecordZone.ID {
        let (_, deleteResults) = try await modifyRecordZones(saving: [], deleting: [zoneID])
        try deleteResults.result(for: zoneID, of: "zone '\(zoneID.zoneName)'")
        return zoneID
    }

    /// Deletes a zone and passes its ID, or the error, to `completionHandler`.
    @preconcurrency
    public func delete(withRecordZoneID zoneID: CKRecordZone.ID, completionHandler: @escaping @Sendable (CKRecordZone.ID?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.deleteRecordZone(withID: zoneID) }
    }

    /// Fetches zones by ID.
    ///
    /// - Returns: Each zone, or why it could not be fetched, keyed by the IDs you passed.
    /// - Throws: Only when the whole request fails.
    public func recordZones(for zoneIDs: [CKRecordZone.ID]) async throws -> [CKRecordZone.ID: Result<CKRecordZone, any Error>] {
        try await performItems(CKFetchRecordZonesOperation(recordZoneIDs: zoneIDs)) { operation, item, final in
            operation.perRecordZoneResultBlock = item
            operation.fetchRecordZonesResultBlock = final
        }
    }

    /// Fetches zones by ID and passes the results to `completionHandler`.
    @preconcurrency
    public func fetch(
        withRecordZoneIDs zoneIDs: [CKRecordZone.ID],
        completionHandler: @escaping @Sendable (Result<[CKRecordZone.ID: Result<CKRecordZone, any Error>], any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.recordZones(for: zoneIDs) }
    }

    /// Creates and deletes zones in one request.
    ///
    /// - Returns: Each item's outcome, keyed by the IDs you passed.
    /// - Throws: Only when the whole request fails.
    public func modifyRecordZones(
        saving recordZonesToSave: [CKRecordZone],
        deleting recordZoneIDsToDelete: [CKRecordZone.ID]
    ) async throws -> (saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>], deleteResults: [CKRecordZone.ID: Result<Void, any Error>]) {
        let operation = CKModifyRecordZonesOperation(recordZonesToSave: recordZonesToSave, recordZoneIDsToDelete: recordZoneIDsToDelete)
        let outcome = try await performModify(operation) { operation, save, delete, final in
            operation.perRecordZoneSaveBlock = save
            operation.perRecordZoneDeleteBlock = delete
            operation.modifyRecordZonesResultBlock = final
        }
        return (outcome.saveResults, outcome.deleteResults)
    }

    /// Creates and deletes zones in one request and passes the results to `completionHandler`.
    @preconcurrency
    public func modifyRecordZones(
        saving recordZonesToSave: [CKRecordZone],
        deleting recordZoneIDsToDelete: [CKRecordZone.ID],
        completionHandler: @escaping @Sendable (Result<(saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>], deleteResults: [CKRecordZone.ID: Result<Void, any Error>]), any Error>) -> Void
    ) {
        complete(completionHandler) { try await self.modifyRecordZones(saving: recordZonesToSave, deleting: recordZoneIDsToDelete) }
    }
}
