/// The outcome of the rules a `records/modify` request must follow that need no server state:
/// for each save and delete, the error that fails it before anything is applied, or nil.
///
/// The client runs these checks before sending, so a bad item costs no request; the server runs
/// the same checks on whatever reaches it. They cover every item's names, type, keys, values and
/// size (``WireValidation/checkRecordToSave(_:)``, ``WireValidation/checkRecordName(_:)``), a
/// record ID that appears more than once in the request (every one of its items fails with
/// ``CKErrorCode/invalidArguments``), and, for an atomic request, ``WireAtomicBatch``'s rule:
/// the other items of a zone where an item failed fail with ``CKErrorCode/batchRequestFailed``.
public struct WireModifyChecks: Sendable {
    /// For each save, in request order, why it fails before anything is applied.
    public private(set) var saveErrors: [WireError?]
    /// For each delete, in request order, why it fails before anything is applied.
    public private(set) var deleteErrors: [WireError?]

    /// Checks the items of a modify request.
    ///
    /// - Parameters:
    ///   - saves: The records to save.
    ///   - deletes: The records to delete.
    ///   - isAtomic: Whether the request is atomic.
    ///   - failedSaves: Saves the caller already failed for reasons of its own (the client's
    ///     values CloudKit refuses when they are set); they count as broken rules for the
    ///     atomic rule, and their own results are the caller's.
    public init(saves: [WireRecordSave], deletes: [WireRecordID], isAtomic: Bool, failedSaves: Set<Int> = []) {
        saveErrors = Array(repeating: nil, count: saves.count)
        deleteErrors = Array(repeating: nil, count: deletes.count)
        var occurrences: [WireRecordID: Int] = [:]
        occurrences.reserveCapacity(saves.count + deletes.count)
        for save in saves { occurrences[save.record.recordID, default: 0] += 1 }
        for recordID in deletes { occurrences[recordID, default: 0] += 1 }
        func duplicate(_ recordID: WireRecordID) -> WireError? {
            guard let count = occurrences[recordID], count > 1 else { return nil }
            return WireError(.invalidArguments, "record '\(recordID.recordName)' appears \(count) times in one request; save or delete each record once")
        }
        var failedZones: Set<WireZoneID> = []
        for (index, save) in saves.enumerated() {
            let recordID = save.record.recordID
            if failedSaves.contains(index) {
                failedZones.insert(recordID.zoneID)
            } else if let error = duplicate(recordID) ?? WireValidation.checkRecordToSave(save) {
                saveErrors[index] = error
                failedZones.insert(recordID.zoneID)
            }
        }
        for (index, recordID) in deletes.enumerated() {
            let error = duplicate(recordID)
                ?? WireValidation.checkRecordName(recordID.recordName)
                ?? WireValidation.checkZoneName(recordID.zoneID.zoneName)
            if let error {
                deleteErrors[index] = error
                failedZones.insert(recordID.zoneID)
            }
        }
        guard WireAtomicBatch.failureSpreads(isAtomic: isAtomic, zoneIsAtomic: false, brokeStatelessRule: true) else { return }
        for (index, save) in saves.enumerated() where saveErrors[index] == nil && !failedSaves.contains(index) {
            let zoneID = save.record.recordID.zoneID
            if failedZones.contains(zoneID) { saveErrors[index] = WireAtomicBatch.blocked(inZone: zoneID.zoneName) }
        }
        for (index, recordID) in deletes.enumerated() where deleteErrors[index] == nil {
            if failedZones.contains(recordID.zoneID) { deleteErrors[index] = WireAtomicBatch.blocked(inZone: recordID.zoneID.zoneName) }
        }
    }
}
