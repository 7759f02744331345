import StratusWire

/// CloudKit's rules for a share's own state, which the server applies to every share it saves,
/// whatever the client checked.
///
/// - The server owns the URL and the owner: the URL is assigned on the first save and never
///   changes (a URL the client sends is ignored). It is derived from the root record, as
///   Apple's `CKShare.url` documentation says it "persists across shares and reshares of the
///   same root record": while the root has no share the URL answers `unknownItem`, and once
///   the root is shared again it leads to the new share (which anyone who kept it joins when
///   the new share is public). The owner is the first participant, role `owner`, status
///   `accepted`, permission `readWrite`, with the saving user's identity (its real user
///   record name, not `__defaultOwner__`).
/// - A participant the client adds is stored `privateUser` and `pending`, whatever role and
///   status it was sent with: a client can neither accept for someone nor make anyone the
///   owner. The owner's own entry in the client's list (its participant ID, or the owner's
///   identity, by real user record name or `__defaultOwner__`) stands for the stored owner.
///   A participant is matched to a stored one by participant ID, then by identity (user
///   record name, email or phone); the client may change a stored participant's permission
///   only. A stored participant missing from the client's list is removed (dropped from the
///   list). The owner can be neither removed nor changed.
/// - The public permission: while it is other than `.none`, the share has no pending
///   participants (raising it removes them; accepted ones stay), as CloudKit's header says.
///   Setting it back to `.none` removes every participant but the owner; participants added
///   in the same save stay, pending. It is the permission of anyone with the URL, so a public
///   user (who joined through the URL) has no permission of their own: every `publicUser`
///   participant is stored with the public permission, whatever the client sent, and
///   lowering or raising it changes what each of them may do (``ZoneStore/grants(for:)``).
/// - At most ``WireShareRules/maximumParticipants`` participants, the owner included, as
///   `CKShare.participants.count` reports them (`tooManyParticipants`).
enum ShareRules {
    /// What every share URL starts with.
    static let urlPrefix = "https://www.icloud.com/share/"
    /// How many `parent` links the server follows up a hierarchy when it checks that a record
    /// belongs to at most one share; a chain that is longer (or a cycle) ends the walk there.
    static let maximumHierarchyDepth = 1_000

    /// What a share's save needs to know beyond the records: who owns it and the identifiers
    /// the server derives for it.
    struct Owner {
        /// The owner's identity, with the real user record name.
        var identity: WireUserIdentity
        /// The owner participant's ID in this share.
        var participantID: String
        /// The share's URL if it has none yet.
        var url: String
        /// The ID of a new participant the client sent without a usable one, from the
        /// participant's identity key.
        var newParticipantID: (String) -> String
    }

    /// Why a share named `name` cannot be saved in `zone` of a `database` database, or nil.
    ///
    /// CloudKit's documentation says shares live in custom zones of the private database
    /// without naming the error for other places; Stratus answers `badDatabase` in the public
    /// database (as for the other things that database has not, design.md) and
    /// `invalidArguments` in a zone without the needed capability (the default zone).
    static func checkLocation(ofShare name: String, in zone: WireZone, database: WireDatabaseScope) -> WireError? {
        if database == .public {
            return WireError(.badDatabase, "shares exist only in custom zones of the private database; share '\(name)' cannot be saved in the public database")
        }
        let zoneWide = name.hasSameUTF8Bytes(as: WireShareRules.zoneWideShareName)
        let needed: WireZone.Capabilities = zoneWide ? .zoneWideSharing : .sharing
        guard zone.capabilities.contains(needed) else {
            return WireError(.invalidArguments, zone.zoneID.isDefaultZone
                ? "shares exist only in custom zones; share '\(name)' cannot be saved in the default zone"
                : "zone '\(zone.zoneID.zoneName)' cannot hold \(zoneWide ? "a zone-wide share" : "shares")")
        }
        return nil
    }

    /// An opaque token for `parts` under the server's `key`: 32 characters of base 32, the
    /// first 20 bytes of an HMAC-SHA-256, so it cannot be guessed without the key and another
    /// server gives other tokens.
    static func token(_ parts: [String], key: [UInt8]) -> String {
        var message = Array("stratus-share".utf8)
        for part in parts {
            let bytes = Array(part.utf8)
            let count = UInt32(truncatingIfNeeded: bytes.count)
            message += [UInt8(count >> 24 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + bytes
        }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var text = ""
        var buffer = 0
        var bits = 0
        for byte in HMAC.sha256(key: key, message: message).prefix(20) {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                text.append(alphabet[buffer >> bits & 31])
            }
            buffer &= (1 << bits) - 1
        }
        return text
    }

    /// The key that matches a participant to a stored one and finds duplicates: its user
    /// record name, or what it was looked up by; nil for an identity that names nobody.
    static func identityKey(_ identity: WireUserIdentity) -> String? {
        if let name = identity.userRecordName { return "user:" + name }
        guard let info = identity.lookupInfo else { return nil }
        if let name = info.userRecordID?.recordName { return "user:" + name }
        if let email = info.emailAddress { return "email:" + PeopleDirectory.normalizedEmail(email) }
        if let phone = info.phoneNumber { return "phone:" + PeopleDirectory.normalizedPhone(phone) }
        return nil
    }

    /// The share's state after a save of `incoming` over `stored` (nil for a new share), by
    /// the rules above; `incoming` nil keeps the stored state.
    static func merged(stored: WireShareInfo?, incoming: WireShareInfo?, owner: Owner, shareName: String) -> Result<WireShareInfo, WireError> {
        let ownerKey = identityKey(owner.identity)
        let storedParticipants = stored?.participants ?? []
        let ownerParticipant = storedParticipants.first { $0.role == .owner } ?? WireShareParticipant(
            participantID: owner.participantID,
            identity: owner.identity,
            role: .owner,
            acceptanceStatus: .accepted,
            permission: .readWrite
        )
        let oldPermission = stored?.publicPermission ?? .none
        let url = stored?.url ?? owner.url
        guard let incoming else {
            return .success(WireShareInfo(publicPermission: oldPermission, url: url, participants: [ownerParticipant] + storedParticipants.filter { $0.role != .owner }))
        }
        guard incoming.publicPermission != .unknown else {
            return .failure(WireError(.invalidArguments, "share '\(shareName)' has public permission unknown; use none, readOnly or readWrite"))
        }

        var storedByID: [String: WireShareParticipant] = [:]
        var storedIDByKey: [String: String] = [:]
        for participant in storedParticipants where participant.role != .owner {
            storedByID[participant.participantID] = participant
            if let key = identityKey(participant.identity) { storedIDByKey[key] = participant.participantID }
        }
        var result = [ownerParticipant]
        var seenKeys: Set<String> = ownerKey.map { [$0] } ?? []
        var seenIDs: Set<String> = [ownerParticipant.participantID]
        var added: Set<String> = []
        let currentUserKey = "user:" + WireZoneID.currentUserOwnerName
        for (position, participant) in incoming.participants.enumerated() {
            if participant.participantID == ownerParticipant.participantID { continue }
            let key = identityKey(participant.identity)
            if key == ownerKey || key == currentUserKey || (key == nil && participant.role == .owner) { continue }
            guard let key else {
                return .failure(WireError(.invalidArguments, "participant \(position) of share '\(shareName)' names nobody: its identity has no user record name, email address or phone number"))
            }
            guard participant.permission == .readOnly || participant.permission == .readWrite else {
                return .failure(WireError(.invalidArguments, "participant \(position) of share '\(shareName)' has permission \(participant.permission); a participant may read only or read and write"))
            }
            if var existing = storedByID[participant.participantID] ?? storedIDByKey[key].flatMap({ storedByID[$0] }) {
                guard seenIDs.insert(existing.participantID).inserted else { continue }
                if let existingKey = identityKey(existing.identity) { seenKeys.insert(existingKey) }
                existing.permission = participant.permission
                result.append(existing)
            } else {
                guard seenKeys.insert(key).inserted else { continue }
                var id = participant.participantID
                if id.isEmpty || id.utf8.count > WireLimits.maximumNameBytes || storedByID[id] != nil || seenIDs.contains(id) {
                    id = owner.newParticipantID(key)
                }
                seenIDs.insert(id)
                added.insert(id)
                var identity = participant.identity
                identity.contactIdentifiers = []
                result.append(WireShareParticipant(participantID: id, identity: identity, role: .privateUser, acceptanceStatus: .pending, permission: participant.permission))
            }
        }

        let newPermission = incoming.publicPermission
        if newPermission != .none {
            result.removeAll { $0.role != .owner && $0.acceptanceStatus == .pending }
            for index in result.indices where result[index].role == .publicUser { result[index].permission = newPermission }
        } else if oldPermission != .none {
            result.removeAll { $0.role != .owner && !added.contains($0.participantID) }
        }
        if result.count > WireShareRules.maximumParticipants {
            return .failure(WireError(.tooManyParticipants, "share '\(shareName)' would have \(result.count) participants, its owner included; the limit is \(WireShareRules.maximumParticipants)"))
        }
        return .success(WireShareInfo(publicPermission: newPermission, url: url, participants: result))
    }
}

extension WireShareInfo {
    /// The bytes a share's state counts toward its record's size and the storage quota: the
    /// URL and, for every participant, its ID, the strings of its identity and 3 bytes for its
    /// role, status and permission.
    var byteSize: Int {
        var total = (url?.utf8.count ?? 0) + 1
        for participant in participants {
            let identity = participant.identity
            let name = identity.nameComponents
            let strings = [
                participant.participantID, identity.userRecordName, identity.lookupInfo?.emailAddress,
                identity.lookupInfo?.phoneNumber, identity.lookupInfo?.userRecordID?.recordName,
                name?.namePrefix, name?.givenName, name?.middleName, name?.familyName, name?.nameSuffix, name?.nickname,
            ]
            total += strings.reduce(3) { $0 + ($1?.utf8.count ?? 0) }
        }
        return total
    }
}
