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
    /// The shares of this zone that the user `userRecordName` accepted (as an invited or a
    /// public participant; the owner needs none), with what each lets them do. Call only with
    /// the lock held.
    func grants(for userRecordName: String) -> [ShareGrant] {
        shareNames.sorted().compactMap { name -> ShareGrant? in
            guard let info = records[name]?.record.shareInfo,
                  let participant = info.participants.first(where: { $0.role != .owner && $0.acceptanceStatus == .accepted && $0.identity.userRecordName == userRecordName })
            else { return nil }
            if name.string == WireShareRules.zoneWideShareName {
                return ShareGrant(shareName: name, rootName: nil, permission: participant.permission)
            }
            guard let root = shareHolders[name]?.min() else { return nil }
            return ShareGrant(shareName: name, rootName: root, permission: participant.permission)
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
        let zoneName = zone.zoneID.zoneName
        var current: WireName? = name
        var visited: Set<WireName> = []
        while let step = current, visited.count <= ShareRules.maximumHierarchyDepth, visited.insert(step).inserted {
            if let grant = grants.first(where: { $0.rootName == step }) { return grant.permission }
            current = records[step]?.record.parent.flatMap { parent in
                parent.recordID.zoneID.zoneName.hasSameUTF8Bytes(as: zoneName) ? WireName(parent.recordID.recordName) : nil
            }
        }
        return nil
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
