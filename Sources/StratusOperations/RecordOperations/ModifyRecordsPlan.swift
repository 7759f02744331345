import Foundation
import StratusCore
import StratusWire

/// One modify-records request as the client prepares it: the client-side checks, the items
/// that go to the server, and the mapping of the server's answers back to the caller's objects.
///
/// Client-side checks (names, field keys, value types, record size, duplicate IDs, references
/// to other zones) fail their item without a request: they are ``WireModifyChecks``, which the
/// server applies too, so both sides answer alike, and ``WireAtomicBatch`` says which other
/// items fail with them.
struct ModifyRecordsPlan {
    let saves: [CKRecord]
    let deletes: [CKRecord.ID]
    let policy: CKRecordSavePolicy
    let isAtomic: Bool
    let clientChangeTokenData: Data?

    private(set) var saveOutcomes: [Result<CKRecord, any Error>?]
    private(set) var deleteOutcomes: [Result<Void, any Error>?]
    private(set) var sentSaves: [(index: Int, save: WireRecordSave)] = []
    private var sentDeletes: [Int] = []

    init(saving saves: [CKRecord], deleting deletes: [CKRecord.ID], policy: CKRecordSavePolicy, isAtomic: Bool, clientChangeTokenData: Data? = nil) {
        self.saves = saves
        self.deletes = deletes
        self.policy = policy
        self.isAtomic = isAtomic
        self.clientChangeTokenData = clientChangeTokenData
        saveOutcomes = Array(repeating: nil, count: saves.count)
        deleteOutcomes = Array(repeating: nil, count: deletes.count)
        check()
    }

    /// Runs the client's own check (values CloudKit refuses when they are set) and then
    /// ``WireModifyChecks``, the rules the server applies too, so an item the server would
    /// refuse costs no request.
    private mutating func check(failing failures: [Int: CKError] = [:]) {
        let prepared = saves.map { $0.makeSave(policy: policy.wireValue) }
        var rejected: Set<Int> = []
        for (index, record) in saves.enumerated() {
            if let error = record.rejectionError ?? failures[index] {
                saveOutcomes[index] = .failure(error)
                rejected.insert(index)
            }
        }
        let checks = WireModifyChecks(saves: prepared, deletes: deletes.map(\.wireValue), isAtomic: isAtomic, failedSaves: rejected)
        for (index, save) in prepared.enumerated() where !rejected.contains(index) {
            if let error = checks.saveErrors[index] {
                saveOutcomes[index] = .failure(CKError(error))
            } else {
                sentSaves.append((index, save))
            }
        }
        for index in deletes.indices {
            if let error = checks.deleteErrors[index] {
                deleteOutcomes[index] = .failure(CKError(error))
            } else {
                sentDeletes.append(index)
            }
        }
    }

    /// The request to send, given the context the request path makes when it sends it; nil
    /// when client-side checks left nothing to send.
    var request: (@Sendable (WireRequestContext) -> WireRecordsModifyRequest)? {
        guard !sentSaves.isEmpty || !sentDeletes.isEmpty else { return nil }
        let saves = sentSaves.map(\.save)
        let deletes = sentDeletes.map { self.deletes[$0].wireValue }
        let (policy, isAtomic, token) = (policy.wireValue, isAtomic, clientChangeTokenData)
        return { context in
            WireRecordsModifyRequest(context: context, saves: saves, deletes: deletes, savePolicy: policy, isAtomic: isAtomic, clientChangeTokenData: token)
        }
    }

    /// Takes in the server's answer to ``request``.
    mutating func record(_ response: WireRecordsModifyResponse) {
        for (sent, answer) in zip(sentSaves, response.saveResults) {
            let record = saves[sent.index]
            saveOutcomes[sent.index] = answer.result
                .map { CKRecord.make(wire: $0) }
                .mapError { CKError(saving: record, $0) }
        }
        for (index, answer) in zip(sentDeletes, response.deleteResults) {
            deleteOutcomes[index] = answer.result.mapError { CKError($0) }
        }
    }

    /// Fails every item that was sent with the request's error.
    mutating func record(_ error: CKError) {
        for sent in sentSaves { saveOutcomes[sent.index] = .failure(error) }
        for index in sentDeletes { deleteOutcomes[index] = .failure(error) }
    }

    /// The outcome of each save, in the order of `saves`.
    var orderedSaveResults: [(CKRecord.ID, Result<CKRecord, any Error>)] {
        zip(saves.map(\.recordID), saveOutcomes.map { $0 ?? .failure(CKError(.internalError)) }).map { ($0, $1) }
    }

    /// The outcome of each delete, in the order of `deletes`.
    var orderedDeleteResults: [(CKRecord.ID, Result<Void, any Error>)] {
        zip(deletes, deleteOutcomes.map { $0 ?? .failure(CKError(.internalError)) }).map { ($0, $1) }
    }

    /// The `partialFailure` summing up the failed items, keyed by the caller's IDs, or nil
    /// when every item succeeded.
    var partialFailure: CKError? {
        ModifyReport(saves: orderedSaveResults, deletes: orderedDeleteResults).finalError
    }
}

extension ModifyRecordsPlan {
    /// Fails the saves at the positions `failures` names (an asset that could not be read or
    /// uploaded) and checks the plan again, so the other items of their atomic zones fail
    /// with them and nothing of theirs is sent.
    mutating func fail(_ failures: [Int: CKError]) {
        saveOutcomes = Array(repeating: nil, count: saves.count)
        deleteOutcomes = Array(repeating: nil, count: deletes.count)
        sentSaves = []
        sentDeletes = []
        check(failing: failures)
    }

    /// Puts each uploaded asset's dictionary (checksum, size, receipt) in its save, in place of
    /// the local file: `uploads` lists, by save position, each asset's field and position in
    /// a list (nil for a single asset).
    mutating func attachUploads(_ uploads: [Int: [(field: String, position: Int?, asset: WireAsset)]]) {
        for sent in sentSaves.indices {
            guard let assets = uploads[sentSaves[sent].index] else { continue }
            var fields = sentSaves[sent].save.record.fields
            for (field, position, asset) in assets {
                switch (fields[field], position) {
                case (.asset?, nil):
                    fields[field] = .asset(asset)
                case (.list(var values)?, let position?) where values.indices.contains(position):
                    values[position] = .asset(asset)
                    fields[field] = .list(values)
                default:
                    continue
                }
            }
            sentSaves[sent].save.record.fields = fields
        }
    }
}

extension CKError {
    /// The error of a failed save of `record`; a `serverRecordChanged` carries the server's
    /// record, a copy of the record the client tried to save, and its ancestor.
    init(saving record: CKRecord, _ wire: WireError) {
        guard wire.code == .serverRecordChanged else {
            self.init(wire)
            return
        }
        var extra: [String: Any] = [:]
        if let server = wire.serverRecord { extra[CKRecordChangedErrorServerRecordKey] = CKRecord.make(wire: server) }
        extra[CKRecordChangedErrorClientRecordKey] = record.copy()
        if record.recordChangeTag != nil { extra[CKRecordChangedErrorAncestorRecordKey] = CKRecord.make(wire: record.ancestorSnapshot) }
        self.init(.serverRecordChanged, message: wire.message, extra: extra)
    }
}
