import StratusWire

/// A record as the server keeps it: the snapshot with real user record names and stored asset
/// files, and the asset bytes it takes in storage.
struct StoredRecord: Sendable {
    var record: WireRecord
    var assetBytes: Int

    /// The bytes the record counts toward a storage quota: its field data and its asset files.
    var storageBytes: Int { record.byteSize + assetBytes }

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
