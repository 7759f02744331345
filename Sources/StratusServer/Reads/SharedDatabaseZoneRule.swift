import StratusWire

extension RequestScope {
    /// Why a request to the shared database may never name `zoneID`, if it may not: a
    /// default zone (whoever is named as its owner: only custom zones are ever shared), or
    /// one of the caller's own zones (`__defaultOwner__` or their user record name as owner:
    /// those are in their private database). Such a zone gets `invalidArguments`, iCloud's
    /// answer ("Only shared zones can be accessed in the shared DB"), for saves, deletes,
    /// record and zone fetches, queries and zone change fetches alike.
    ///
    /// CloudKit's documentation is silent here; the code and message are what apps report
    /// iCloud answering for fetches, queries and saves that name their own zone or the default
    /// zone in the shared database, and Stratus applies the same answer to every request that
    /// names a zone there. Decided from the request alone, the rule tells nothing of other
    /// users' zones: an owner's zone the caller cannot see still reads as `zoneNotFound`, the
    /// same as a zone that does not exist.
    func refusalInSharedDatabase(of zoneID: WireZoneID) -> WireError? {
        if zoneID.isDefaultZone {
            return WireError(.invalidArguments, "the default zone is never shared; only shared zones can be accessed in the shared database")
        }
        let isOwn = zoneID.ownerName.hasSameUTF8Bytes(as: WireZoneID.currentUserOwnerName)
            || userRecordName.map { zoneID.ownerName.hasSameUTF8Bytes(as: $0) } == true
        guard isOwn else { return nil }
        return WireError(.invalidArguments, "zone '\(zoneID.zoneName)' is your own, in your private database; only shared zones can be accessed in the shared database")
    }
}
