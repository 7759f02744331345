import Stratus

extension SampleRecord {
    /// The record as an app builds it: a `CKRecord` in `zoneID` with its five fields set.
    func ckRecord(in zoneID: CKRecordZone.ID) -> CKRecord {
        let record = CKRecord(recordType: Self.recordType, recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        record["party"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: party, zoneID: zoneID), action: .none)
        record["title"] = title
        record["order"] = order
        record["taken"] = Date(timeIntervalSince1970: taken)
        record["pinned"] = pinned
        return record
    }

    /// The record as it crosses to the server, for the scenarios that call the `CloudService`
    /// directly: a new record (no change tag) with the same five fields.
    func wireRecord(in zoneID: WireZoneID) -> WireRecord {
        WireRecord(
            recordID: WireRecordID(recordName: name, zoneID: zoneID),
            recordType: Self.recordType,
            fields: [
                "party": .reference(WireReference(recordID: WireRecordID(recordName: party, zoneID: zoneID), action: .none)),
                "title": .string(title),
                "order": .int64(order),
                "taken": .date(Date(timeIntervalSince1970: taken)),
                "pinned": .int64(pinned ? 1 : 0),
            ]
        )
    }
}
