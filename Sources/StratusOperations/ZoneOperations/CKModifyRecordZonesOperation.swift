import StratusCore
import StratusWire

/// Creates and deletes zones in one request.
///
/// Custom zones exist only in private databases (`badDatabase` elsewhere); saving a zone that
/// exists changes nothing; deleting a zone deletes every record in it.
///
/// CloudKit document: *CKModifyRecordZonesOperation*.
public final class CKModifyRecordZonesOperation: CKDatabaseOperation, @unchecked Sendable {
    // MARK: - Properties

    /// The zones to create.
    @_Locked public var recordZonesToSave: [CKRecordZone]? = nil

    /// The zones to delete, with their records.
    @_Locked public var recordZoneIDsToDelete: [CKRecordZone.ID]? = nil

    /// Creates an operation that creates `recordZonesToSave` and deletes `recordZoneIDsToDelete`.
    public convenience init(recordZonesToSave: [CKRecordZone]? = nil, recordZoneIDsToDelete: [CKRecordZone.ID]? = nil) {
        self.init()
        self.recordZonesToSave = recordZonesToSave
        self.recordZoneIDsToDelete = recordZoneIDsToDelete
    }

    // MARK: - Per-item callbacks

    /// Called once per zone to save with the zone as the server has it, or why not.
    @_OperationBlock public var perRecordZoneSaveBlock: ((CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?

    /// Called once per zone to delete.
    @_OperationBlock public var perRecordZoneDeleteBlock: ((CKRecordZone.ID, Result<Void, any Error>) -> Void)?

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` repeating the
    /// per-zone failures.
    @_OperationBlock public var modifyRecordZonesResultBlock: ((Result<Void, any Error>) -> Void)?

    /// The legacy final block, with the saved zones and deleted IDs; ignored when
    /// ``modifyRecordZonesResultBlock`` is set.
    @available(*, deprecated, message: "Use modifyRecordZonesResultBlock instead")
    @_OperationBlock public var modifyRecordZonesCompletionBlock: (([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        let zones = recordZonesToSave ?? []
        let deletes = recordZoneIDsToDelete ?? []
        guard !zones.isEmpty || !deletes.isEmpty else {
            finish(reporting: ModifyReport(saves: [], deletes: []), through: deliverResults)
            return
        }
        let wireZones = zones.map(\.wireValue)
        let wireDeletes = deletes.map(\.wireValue)
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.modifyZones(WireZonesModifyRequest(context: context, saves: wireZones, deletes: wireDeletes))
        }
        switch response {
        case .success(let response):
            finish(reporting: ModifyReport(
                saves: zip(zones, response.saveResults).map { zone, answer in
                    (zone.zoneID, answer.result.map { CKRecordZone(wire: $0) }.mapError { CKError($0) as any Error })
                },
                deletes: zip(deletes, response.deleteResults).map { zoneID, answer in
                    (zoneID, answer.result.mapError { CKError($0) as any Error })
                }
            ), through: deliverResults)
        case .failure(let error):
            finish(reporting: .failing(saving: zones.map(\.zoneID), deleting: deletes, with: error), through: deliverResults)
        }
    }

    override func reportFailure(_ error: CKError) {
        deliverResults(.failing(saving: (recordZonesToSave ?? []).map(\.zoneID), deleting: recordZoneIDsToDelete ?? [], with: error))
    }

    // MARK: - Result mapping

    /// Calls the per-item blocks in order, saves first, then the final block. Runs on the
    /// callback queue.
    private func deliverResults(_ results: ModifyReport<CKRecordZone.ID, CKRecordZone>) {
        deliverEach(results.saves.items, to: perRecordZoneSaveBlock)
        deliverEach(results.deletes.items, to: perRecordZoneDeleteBlock)
        let legacyFinal = blocks[\CKModifyRecordZonesOperation._modifyRecordZonesCompletionBlock]
        deliverFinal(results.finalError, to: modifyRecordZonesResultBlock, orLegacy: legacyFinal.map { legacy in { legacy(results.saves.values, results.deletes.succeededIDs, $0) } })
    }
}
