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

    /// Creates an operation with no zones to fetch yet.
    public override init() {
        super.init()
    }

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
                report(response.zones.map { (CKRecordZone.ID(wire: $0.zoneID), .success(CKRecordZone(wire: $0))) }, failure: nil)
            case .failure(let error):
                report([], failure: error)
            }
            return
        }
        let zoneIDs = recordZoneIDs ?? []
        guard !zoneIDs.isEmpty else {
            report([], failure: nil)
            return
        }
        let wireIDs = zoneIDs.map(\.wireValue)
        let response = await send(to: runDatabase) { service, context async throws(WireError) in
            try await service.lookupZones(WireZonesLookupRequest(context: context, zoneIDs: wireIDs))
        }
        switch response {
        case .success(let response):
            report(zip(zoneIDs, response.results).map { zoneID, answer in
                (zoneID, answer.result.map { CKRecordZone(wire: $0) }.mapError { CKError($0) as any Error })
            }, failure: nil)
        case .failure(let error):
            report(zoneIDs.map { ($0, .failure(error)) }, failure: error)
        }
    }

    override func reportFailure(_ error: CKError) {
        deliverResults((recordZoneIDs ?? []).map { ($0, .failure(error)) }, failure: error)
    }

    // MARK: - Result mapping

    private func report(_ results: [(CKRecordZone.ID, Result<CKRecordZone, any Error>)], failure: CKError?) {
        finish(with: failure) { self.deliverResults(results, failure: failure) }
    }

    private func deliverResults(_ results: [(CKRecordZone.ID, Result<CKRecordZone, any Error>)], failure: CKError?) {
        if let perZone = perRecordZoneResultBlock {
            for (zoneID, result) in results { perZone(zoneID, result) }
        }
        let error = failure ?? CKError.partialFailure(of: results)
        finishedError.value = error   // what `reportedErrors` gives the toolkit
        if let final = fetchRecordZonesResultBlock {
            final(error.map { .failure($0) } ?? .success(()))
        } else if let legacyFinal: ([CKRecordZone.ID: CKRecordZone]?, (any Error)?) -> Void = blocks[\CKFetchRecordZonesOperation._fetchRecordZonesCompletionBlock] {
            let zones = Dictionary(results.compactMap { id, result in (try? result.get()).map { (id, $0) } }, uniquingKeysWith: { first, _ in first })
            legacyFinal(failure == nil ? zones : nil, error)
        }
    }
}
