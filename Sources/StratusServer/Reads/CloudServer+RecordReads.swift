import Foundation
import StratusWire

// The read view of records: what a caller sees of a stored record, in every database.

extension CloudServer {
    /// One record, as the caller sees it, in any database (``ZoneView``).
    func lookUp(_ recordID: WireRecordID, in database: DatabaseStore, scope: RequestScope, desiredKeys: [String]?) -> Result<WireRecord, WireError> {
        Result { () throws(WireError) -> WireRecord in
            if let error = WireValidation.checkRecordName(recordID.recordName) ?? WireValidation.checkZoneName(recordID.zoneID.zoneName) {
                throw error
            }
            var view = try view(of: recordID.zoneID, in: database, scope: scope)
            var name = recordID.recordName
            if name.hasSameUTF8Bytes(as: WireZoneID.currentUserOwnerName), view.zoneID.isDefaultZone, let user = scope.userRecordName { name = user }
            try view.acquire()
            defer { view.release() }
            guard let stored = view.store.record(named: name) else {
                throw WireError(.unknownItem, "record '\(recordID.recordName)' does not exist")
            }
            if let refusal = view.readRefusal(of: stored) { throw refusal }
            return present(stored.record, in: view, desiredKeys: desiredKeys)
        }
    }

    /// The record as `scope`'s user sees it: their own user record name as `__defaultOwner__`
    /// (in a share's participants too), only the desired fields, assets with download URLs, and, in a zone shared as a
    /// whole, the zone-wide share as the record's `share` (as last committed).
    ///
    /// - Parameter store: The record's zone, when the caller holds it: saves a lookup per record.
    func present(_ record: WireRecord, to scope: RequestScope, desiredKeys: [String]? = nil, in store: ZoneStore? = nil) -> WireRecord {
        var shown = record
        // Assigned only when there is one: any assignment copies a record shared with the store.
        if shown.share == nil, !WireShareRules.isShareType(shown.recordType),
           let share = zoneWideShare(of: shown.recordID.zoneID, scope: scope, in: store) {
            shown.share = share
        }
        if let user = scope.userRecordName {
            if shown.creatorUserRecordName == user { shown.creatorUserRecordName = WireZoneID.currentUserOwnerName }
            if shown.lastModifiedUserRecordName == user { shown.lastModifiedUserRecordName = WireZoneID.currentUserOwnerName }
            if var info = shown.shareInfo {
                // The caller finds itself among a share's participants as CloudKit's client
                // does (`currentUserParticipant`): by the current user's name.
                for index in info.participants.indices where info.participants[index].identity.userRecordName == user {
                    info.participants[index].identity.userRecordName = WireZoneID.currentUserOwnerName
                }
                shown.shareInfo = info
            }
        }
        if let desiredKeys {
            let wanted = Set(desiredKeys)
            shown.fields = shown.fields.filter { wanted.contains($0.key) }
            shown.encryptedFields = shown.encryptedFields.filter { wanted.contains($0.key) }
        }
        if shown.fields.values.contains(where: \.holdsAsset) { shown.fields = shown.fields.mapValues(downloadable) }
        return shown
    }

    /// The zone-wide share of the zone `zoneID` (owner normalised) of `scope`'s private
    /// database, if it has one.
    private func zoneWideShare(of zoneID: WireZoneID, scope: RequestScope, in store: ZoneStore?) -> WireReference? {
        guard scope.databaseScope == .private, !zoneID.isDefaultZone, let account = scope.account else { return nil }
        if let store { return store.committedZoneWideShare }
        return scope.container.database(.private, account: account).zone(zoneID)?.committedZoneWideShare
    }
}

extension RequestScope {
    /// An equality as the stored records spell it: `__defaultOwner__` in a user field stands
    /// for the reader's own user record name, which is what the records hold.
    func storedForm(of equality: (field: WireQueryField, value: WireFieldValue)) -> (field: WireQueryField, value: WireFieldValue) {
        guard equality.field == .creatorUserRecordID || equality.field == .lastModifiedUserRecordID,
              case .reference(let reference) = equality.value,
              reference.recordID.recordName.hasSameUTF8Bytes(as: WireZoneID.currentUserOwnerName),
              let user = userRecordName
        else { return equality }
        return (equality.field, .reference(WireReference(recordID: WireRecordID(recordName: user), action: .none)))
    }
}

extension RequestScope {
    /// Whether the caller created `stored`: what the creator's security role in the public
    /// database depends on.
    func isCreator(of stored: StoredRecord) -> Bool {
        userRecordName != nil && stored.record.creatorUserRecordName == userRecordName
    }
}
