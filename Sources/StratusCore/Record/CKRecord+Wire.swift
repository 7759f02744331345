import StratusWire

extension CKRecord {
    /// What a save under `policy` sends: the changed keys (or, under `.allKeys`, every key the
    /// record has), the keys set to nil, and the parent when it changed.
    package func makeSave(policy: WireSavePolicy) -> WireRecordSave {
        let shareInfo = shareInfoToSave
        return state.withLock { state in
            var record = state.snapshot
            record.shareInfo = shareInfo
            // Only changed keys go out; a new record's keys all are, and keep their dictionary.
            if policy != .allKeys, !record.fields.keys.allSatisfy(state.plain.changed.contains) {
                record.fields = record.fields.filter { state.plain.changed.contains($0.key) }
            }
            if policy != .allKeys, !record.encryptedFields.keys.allSatisfy(state.encrypted.changed.contains) {
                record.encryptedFields = record.encryptedFields.filter { state.encrypted.changed.contains($0.key) }
            }
            let removed = state.plain.changed.filter { state.snapshot.fields[$0] == nil && state.plain.rejections[$0] == nil }
            let removedEncrypted = state.encrypted.changed.filter {
                state.snapshot.encryptedFields[$0] == nil && state.encrypted.rejections[$0] == nil
            }
            return WireRecordSave(
                record: record,
                removedKeys: removed.sorted(),
                removedEncryptedKeys: removedEncrypted.sorted(),
                parentChanged: state.parentChanged
            )
        }
    }

    /// The record a server's snapshot describes: a ``CKShare`` for a record of type
    /// `cloudkit.share`, a plain record otherwise. Every record the client receives is made here.
    package static func make(wire: WireRecord) -> CKRecord {
        wire.recordType == SystemType.share ? CKShare(received: wire) : CKRecord(wire: wire)
    }

    /// Why the record cannot be saved as it is: a value it rejected, named with its key, or
    /// for a share, a participant change it refused.
    package var rejectionError: CKError? {
        if let refusal = sharingRefusal {
            return CKError(.invalidArguments, message: "share '\(recordID.recordName)': \(refusal)")
        }
        let (plain, encrypted) = rejectedValues
        if let key = plain.keys.sorted().first, let reason = plain[key] {
            return CKError(.invalidArguments, message: "field '\(key)' of record '\(recordID.recordName)': \(reason)")
        }
        if let key = encrypted.keys.sorted().first, let reason = encrypted[key] {
            return CKError(.invalidArguments, message: "encrypted field '\(key)' of record '\(recordID.recordName)': \(reason)")
        }
        return nil
    }
}
