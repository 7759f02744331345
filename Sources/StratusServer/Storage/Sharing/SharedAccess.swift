import StratusWire

/// One share of a zone that an account accepted, and what it lets the account do.
struct ShareGrant: Equatable, Sendable {
    /// The share record's name.
    var shareName: WireName
    /// The share's root record; nil for the zone-wide share, which covers every record.
    var rootName: WireName?
    /// What the account may do with the shared records.
    var permission: WireParticipantPermission
}

extension ZoneStore {
    /// Who sees each of `stores` in their shared database now, by zone ID (owner's view).
    /// Call with the zones locked.
    static func sharedAudience(of stores: [ZoneStore]) -> [WireZoneID: Set<String>] {
        var audience: [WireZoneID: Set<String>] = [:]
        for store in stores where !store.shareNames.isEmpty && !store.isDeleted {
            audience[store.zoneID] = store.acceptedParticipants
        }
        return audience
    }

    /// Who sees this zone in their shared database now. Call with the zone locked.
    var sharedAudience: [WireZoneID: Set<String>] { Self.sharedAudience(of: [self]) }

    /// The shares of this zone that the user `userRecordName` accepted (as an invited or a
    /// public participant; the owner needs none), with what each lets them do: an invited
    /// participant's own permission, and for a public user the share's public permission as
    /// it is now (anyone with the URL has it; a public user has none of their own). Call only
    /// with the lock held.
    func grants(for userRecordName: String) -> [ShareGrant] {
        shareNames.sorted().compactMap { name -> ShareGrant? in
            guard let info = records[name]?.record.shareInfo,
                  let participant = info.participants.first(where: { $0.role != .owner && $0.acceptanceStatus == .accepted && $0.identity.userRecordName == userRecordName })
            else { return nil }
            let permission = participant.role == .publicUser ? info.publicPermission : participant.permission
            guard permission == .readOnly || permission == .readWrite else { return nil }
            if name.string == WireShareRules.zoneWideShareName {
                return ShareGrant(shareName: name, rootName: nil, permission: permission)
            }
            guard let root = shareHolders[name]?.min() else { return nil }
            return ShareGrant(shareName: name, rootName: root, permission: permission)
        }
    }

    /// What `grants` let their holder do with the record named `name`: the grant of a share
    /// record itself, of a root and of every record whose `parent` chain reaches that root, and
    /// of the zone-wide share for every record; nil when no grant covers the record (it is
    /// then invisible to the holder). Call only with the lock held.
    func permission(on name: WireName, grants: [ShareGrant]) -> WireParticipantPermission? {
        guard !grants.isEmpty else { return nil }
        if let zoneWide = grants.first(where: { $0.rootName == nil }) { return zoneWide.permission }
        if let share = grants.first(where: { $0.shareName == name }) { return share.permission }
        var current: WireName? = name
        var visited: Set<WireName> = []
        while let step = current, visited.count <= ShareRules.maximumHierarchyDepth, visited.insert(step).inserted {
            if let grant = grants.first(where: { $0.rootName == step }) { return grant.permission }
            current = records[step]?.parentName
        }
        return nil
    }

    /// A digest of what decides which records `grants` cover, for a participant's change
    /// token of the zone: which shares they are and their roots (names). The token holds only
    /// while the digest stays the same: a share added to or taken from the participant changes
    /// what they see without a change in the zone's history for each record concerned (the
    /// records a new share covers were saved before the token). A record moved into or out of
    /// a shared hierarchy keeps the token: the move is in the history, with the records below
    /// it (``CoverageShift``). The permissions are left out: they change what the participant
    /// may write, not what they see. FNV-1a over length-prefixed names, sorted; the token's MAC
    /// keeps it from being forged. Call only with the lock held.
    func grantsDigest(_ grants: [ShareGrant]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String?) {
            let bytes = text.map { Array($0.utf8) }
            let count = bytes.map { UInt64($0.count) + 1 } ?? 0
            for shift in stride(from: 0, to: 64, by: 8) {
                hash = (hash ^ (count >> UInt64(shift) & 0xFF)) &* 0x100_0000_01b3
            }
            for byte in bytes ?? [] { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        for grant in grants.sorted(by: { $0.shareName < $1.shareName }) {
            mix(grant.shareName.string)
            mix(grant.rootName?.string)
        }
        return hash
    }

    /// The user record names of everyone (but the owner) who accepted a share of this zone:
    /// the accounts that see it in their shared database. Call only with the lock held.
    var acceptedParticipants: Set<String> {
        var users: Set<String> = []
        for name in shareNames {
            for participant in records[name]?.record.shareInfo?.participants ?? [] where participant.role != .owner && participant.acceptanceStatus == .accepted {
                if let user = participant.identity.userRecordName { users.insert(user) }
            }
        }
        return users
    }
}

extension ZoneStore {
    /// Whether the deletion `change` removed a record `grants` covered: one whose `parent`
    /// chain, followed through the records there are and the tombstones of those deleted,
    /// reaches the root of one of the shares, or any record under a zone-wide share. A record
    /// whose parent was deleted with it, or later, is reported too: its chain runs on through
    /// the parent's tombstone. So is a record that left one of the shares after `position`
    /// (the caller's token) and before it was deleted (``leftShare(_:grants:after:)``).
    /// Call only with the lock held.
    func coveredDeletion(_ change: ZoneChangeLog.Change, grants: [ShareGrant], after position: UInt64) -> Bool {
        if grants.contains(where: { $0.rootName == nil }) { return true }
        if leftShare(change.recordName, grants: grants, after: position) { return true }
        var parent = change.parentName
        var visited: Set<WireName> = []
        while let name = parent, visited.count <= ShareRules.maximumHierarchyDepth, visited.insert(name).inserted {
            if grants.contains(where: { $0.rootName == name }) { return true }
            parent = records[name].map(\.parentName) ?? changeLog.tombstone(of: name)?.parentName
        }
        return false
    }
}
