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

    /// Creates an operation with nothing to save or delete yet.
    public override init() {
        super.init()
    }

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
            report([], [], failure: nil)
            return
        }
        let wireZones = zones.map(\.wireValue)
        let wireDeletes = deletes.map(\.wireValue)
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.modifyZones(WireZonesModifyRequest(context: context, saves: wireZones, deletes: wireDeletes))
        }
        switch response {
        case .success(let response):
            report(
                zip(zones, response.saveResults).map { zone, answer in
                    (zone.zoneID, answer.result.map { CKRecordZone(wire: $0) }.mapError { CKError($0) as any Error })
                },
                zip(deletes, response.deleteResults).map { zoneID, answer in
                    (zoneID, answer.result.mapError { CKError($0) as any Error })
                },
                failure: nil
            )
        case .failure(let error):
            report(zones.map { ($0.zoneID, .failure(error)) }, deletes.map { ($0, .failure(error)) }, failure: error)
        }
    }

    override func reportFailure(_ error: CKError) {
        deliverResults(
            (recordZonesToSave ?? []).map { ($0.zoneID, .failure(error)) },
            (recordZoneIDsToDelete ?? []).map { ($0, .failure(error)) },
            failure: error
        )
    }

    // MARK: - Result mapping

    private func report(
        _ saves: [(CKRecordZone.ID, Result<CKRecordZone, any Error>)],
        _ deletes: [(CKRecordZone.ID, Result<Void, any Error>)],
        failure: CKError?
    ) {
        finish(with: failure) { self.deliverResults(saves, deletes, failure: failure) }
    }

    private func deliverResults(
        _ saves: [(CKRecordZone.ID, Result<CKRecordZone, any Error>)],
        _ deletes: [(CKRecordZone.ID, Result<Void, any Error>)],
        failure: CKError?
    ) {
        if let perSave = perRecordZoneSaveBlock {
            for (zoneID, result) in saves { perSave(zoneID, result) }
        }
        if let perDelete = perRecordZoneDeleteBlock {
            for (zoneID, result) in deletes { perDelete(zoneID, result) }
        }
        let error = failure ?? CKError.partialFailure(of: saves.map { ($0.0, $0.1.map { _ in () }) } + deletes)
        finishedError.value = error   // what `reportedErrors` gives the toolkit
        if let final = modifyRecordZonesResultBlock {
            final(error.map { .failure($0) } ?? .success(()))
        } else if let legacyFinal: ([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?) -> Void = blocks[\CKModifyRecordZonesOperation._modifyRecordZonesCompletionBlock] {
            let saved = saves.compactMap { try? $0.1.get() }
            let deleted = deletes.compactMap { entry in (try? entry.1.get()).map { _ in entry.0 } }
            legacyFinal(failure == nil ? saved : nil, failure == nil ? deleted : nil, error)
        }
    }
}
