import StratusWire

/// A record as the server keeps it: the snapshot with real user record names and stored asset
/// files, and the asset bytes it takes in storage.
struct StoredRecord: Sendable {
    var record: WireRecord
    var assetBytes: Int

    /// The bytes the record counts toward a storage quota: its field data, a share's
    /// participants and URL, and its asset files.
    var storageBytes: Int { record.byteSize + (record.shareInfo?.byteSize ?? 0) + assetBytes }

    /// Whether the record is a share (type `cloudkit.share`).
    var isShare: Bool { WireShareRules.isShareType(record.recordType) }

    /// The name of the share this record is the root of (its `share` reference); nil for a
    /// share record and for a record that is no share's root.
    var shareTarget: WireName? {
        guard !isShare, let share = record.share else { return nil }
        return WireName(share.recordID.recordName)
    }

    /// The name of the record's `parent`, when it is a record of the same zone (the only place
    /// a parent may be); nil for a record without one.
    var parentName: WireName? {
        guard let parent = record.parent,
              parent.recordID.zoneID.zoneName.hasSameUTF8Bytes(as: record.recordID.zoneID.zoneName) else { return nil }
        return WireName(parent.recordID.recordName)
    }

    /// The names of the records this one holds a `deleteSelf` reference to, in any field.
    var deleteSelfTargets: Set<WireName> {
        var targets: Set<WireName> = []
        func visit(_ value: WireFieldValue) {
            switch value {
            case .reference(let reference) where reference.action == .deleteSelf:
                targets.insert(WireName(reference.recordID.recordName))
            case .list(let values):
                values.forEach(visit)
            default:
                break
            }
        }
        record.fields.values.forEach(visit)
        return targets
    }
}
