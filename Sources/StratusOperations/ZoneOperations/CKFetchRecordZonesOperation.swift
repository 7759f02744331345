import StratusCore
import StratusWire

/// Fetches zones by ID, or every zone of the database, in one request.
///
/// CloudKit document: *CKFetchRecordZonesOperation*.
public final class CKFetchRecordZonesOperation: CKDatabaseOperation, @unchecked Sendable {
    // MARK: - Properties

    @_Locked private var fetchesAllZones = false

    /// The zones to fetch; nil for an operation made by ``fetchAllRecordZonesOperation()``.
    @_Locked public var recordZoneIDs: [CKRecordZone.ID]? = nil

    /// Creates an operation that fetches `zoneIDs`.
    public convenience init(recordZoneIDs zoneIDs: [CKRecordZone.ID]) {
        self.init()
        recordZoneIDs = zoneIDs
    }

    /// An operation that fetches every zone of the database.
    public class func fetchAllRecordZonesOperation() -> CKFetchRecordZonesOperation {
        let operation = CKFetchRecordZonesOperation()
        operation.fetchesAllZones = true
        return operation
    }

    // MARK: - Per-item callbacks

    /// Called once per zone with the zone or why it could not be fetched.
    @_OperationBlock public var perRecordZoneResultBlock: ((CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?

    // MARK: - Completion

    /// Called once, last: success, the request's error, or a `partialFailure` repeating the
    /// per-zone failures.
    @_OperationBlock public var fetchRecordZonesResultBlock: ((Result<Void, any Error>) -> Void)?

    /// The legacy final block, with the zones by ID; ignored when
    /// ``fetchRecordZonesResultBlock`` is set.
    @available(*, deprecated, message: "Use fetchRecordZonesResultBlock instead")
    @_OperationBlock public var fetchRecordZonesCompletionBlock: (([CKRecordZone.ID: CKRecordZone]?, (any Error)?) -> Void)?

    // MARK: - Request

    override func run() async {
        if fetchesAllZones {
            let response = await send(to: runDatabase) { service, context async throws(WireError) in
                try await service.listZones(context)
            }
            switch response {
            case .success(let response):
                finish(reporting: ItemReport(response.zones.map { (CKRecordZone.ID(wire: $0.zoneID), .success(CKRecordZone(wire: $0))) }), through: deliverResults)
            case .failure(let error):
                finish(reporting: ItemReport([], failure: error), through: deliverResults)
            }
            return
        }
        let zoneIDs = recordZoneIDs ?? []
        let wireIDs = zoneIDs.map(\.wireValue)
        await lookUp(zoneIDs, { service, context async throws(WireError) in
            try await service.lookupZones(WireZonesLookupRequest(context: context, ids: wireIDs)).results
        }, making: CKRecordZone.init(wire:), through: deliverResults)
    }

    override func reportFailure(_ error: CKError) {
        deliverResults(.failing(recordZoneIDs ?? [], with: error))
    }

    // MARK: - Result mapping

    /// Calls the per-item blocks in order, then the final block. Runs on the callback queue.
    private func deliverResults(_ results: ItemReport<CKRecordZone.ID, CKRecordZone>) {
        deliverEach(results.items, to: perRecordZoneResultBlock)
        let legacyFinal = blocks[\CKFetchRecordZonesOperation._fetchRecordZonesCompletionBlock]
        deliverFinal(results.finalError, to: fetchRecordZonesResultBlock, orLegacy: legacyFinal.map { legacy in { legacy(results.valuesByID, $0) } })
    }
}
