import _StratusTestSupport
import Foundation
import Stratus
import XCTest

/// A seeded property test of sharing: random histories of an owner (john) and two or three
/// participant accounts on one server — shares of record hierarchies and of the whole zone,
/// some open to anyone with the URL (joined as public users, whose permission is the share's
/// public permission as it is now), invitations, acceptances, permission changes, removals,
/// writes by the owner and by the participants (child records, edits, moves, deletions; a
/// parent is deleted only with or after its children), reads (by ID, zone changes from nil
/// and from a kept token, queries, database changes), and the ways sharing stops (deleting
/// the share, its root or the zone, a participant leaving). A participant's copy kept from a
/// token holds exactly what they may see, and the token expires only when their shares of
/// the zone change.
///
/// A model says at each moment who may read and write what, by the rules of the shared
/// database. Every step's outcome is checked against it: no read or write succeeds for an
/// account that was not allowed it at that moment, and a refusal has the code the server
/// gives for it (`zoneNotFound` for a zone the account does not see, `unknownItem` for a
/// record it does not see, `permissionFailure` for a write its share does not allow). Every
/// write that succeeded is seen at once by the owner and by every participant allowed to
/// see it, and the regular full checks compare the server with the model record by record,
/// for the owner and for each participant (zone changes from nil and from a kept token,
/// queries, the zones of the shared database and its database changes).
///
/// `STRATUS_SHARING_PROPERTY_SEED` replays one seed; `STRATUS_STRESS_SCALE` runs more seeds.
/// A failure prints the seed and the history that led to it.
final class SharingPropertyTests: XCTestCase {
    private static let steps = 150
    private static let fullCheckEvery = 10

    func testRandomSharingHistoriesNeverLetAnAccountReadOrWriteWhatItMayNotAndLoseNoWrite() async throws {
        let seeds: [UInt64]
        if let replay = ProcessInfo.processInfo.environment["STRATUS_SHARING_PROPERTY_SEED"].flatMap({ UInt64($0) }) {
            seeds = [replay]
        } else {
            seeds = (0..<UInt64(6 * stressScale)).map { 0x5_4A2E &+ $0 }
        }
        for seed in seeds {
            let simulation = SharingSimulation(seed: seed)
            do {
                try await simulation.run(steps: Self.steps, fullCheckEvery: Self.fullCheckEvery)
            } catch let failure as SharingSimulation.Failure {
                XCTFail(failure.description)
            }
        }
    }
}

// MARK: - The model

/// What the server should hold and allow, as the rules of sharing say.
struct SharingModel {
    /// A record of the owner's zone.
    struct Record: Equatable {
        var parent: String?
        var value: String
    }

    /// A participant's place on a share: invited (with a permission of their own), or a
    /// public user who joined through the URL (whose permission is the share's public one).
    struct Participant: Equatable {
        var permission: CKShare.ParticipantPermission
        var accepted: Bool
        var isPublic = false
    }

    /// A share of the zone: of the hierarchy under `root`, or of the whole zone (`root` nil).
    struct Share {
        var root: String?
        var url: URL
        var participants: [String: Participant]
        /// What anyone with the URL may do; `.none` for a share only invited people join.
        var publicPermission: CKShare.ParticipantPermission = .none
    }

    var zoneExists = false
    var records: [String: Record] = [:]
    var shares: [String: Share] = [:]

    /// The shares `account` accepted.
    func grants(of account: String) -> [(name: String, share: Share, permission: CKShare.ParticipantPermission)] {
        shares.keys.sorted().compactMap { name in
            guard let share = shares[name], let participant = share.participants[account], participant.accepted else { return nil }
            return (name, share, participant.isPublic ? share.publicPermission : participant.permission)
        }
    }

    /// Whether the zone is in `account`'s shared database.
    func seesZone(_ account: String) -> Bool { zoneExists && !grants(of: account).isEmpty }

    /// What `account` may do with the record or share `name`, which must exist; nil when the
    /// account may not see it.
    func permission(of account: String, on name: String) -> CKShare.ParticipantPermission? {
        let grants = grants(of: account)
        guard records[name] != nil || shares[name] != nil, !grants.isEmpty else { return nil }
        if let zoneWide = grants.first(where: { $0.share.root == nil }) { return zoneWide.permission }
        if let share = grants.first(where: { $0.name == name }) { return share.permission }
        var current: String? = name
        var visited: Set<String> = []
        while let step = current, visited.insert(step).inserted {
            if let grant = grants.first(where: { $0.share.root == step }) { return grant.permission }
            current = records[step]?.parent
        }
        return nil
    }

    /// The records and shares `account` sees, by name, with each record's value ("" for a share).
    func visible(to account: String) -> [String: String] {
        guard seesZone(account) else { return [:] }
        var seen: [String: String] = [:]
        for (name, record) in records where permission(of: account, on: name) != nil { seen[name] = record.value }
        for name in shares.keys where permission(of: account, on: name) != nil { seen[name] = "" }
        return seen
    }

    /// The share `name` is the root of.
    func share(rootedAt name: String) -> String? {
        shares.first { $0.value.root == name }?.key
    }

    /// Why a new share of `root` would be refused (`alreadyShared`), or nil: the zone is
    /// shared whole, the record is a root already, or a record above or below it is one.
    func shareConflict(root: String) -> Bool {
        if shares.values.contains(where: { $0.root == nil }) { return true }
        var current: String? = root
        var visited: Set<String> = []
        while let step = current, visited.insert(step).inserted {
            if share(rootedAt: step) != nil { return true }
            current = records[step]?.parent
        }
        let roots = shares.values.compactMap(\.root)
        for other in roots {
            var up: String? = records[other]?.parent
            var seen: Set<String> = [other]
            while let step = up, seen.insert(step).inserted {
                if step == root { return true }
                up = records[step]?.parent
            }
        }
        return false
    }

    /// Whether some share's root would be below another share's root (`alreadyShared`).
    func hasNestedRoots() -> Bool {
        for root in shares.values.compactMap(\.root) {
            var up = records[root]?.parent
            var seen: Set<String> = [root]
            while let step = up, seen.insert(step).inserted {
                if share(rootedAt: step) != nil { return true }
                up = records[step]?.parent
            }
        }
        return false
    }

    /// The records whose parent is `name`.
    func children(of name: String) -> [String] {
        records.keys.sorted().filter { records[$0]?.parent == name }
    }

    /// `name` and every record below it, parents before their children.
    func hierarchy(under name: String) -> [String] {
        var found: [String] = []
        var pending = [name]
        while let next = pending.first {
            pending.removeFirst()
            guard records[next] != nil, !found.contains(next) else { continue }
            found.append(next)
            pending.append(contentsOf: children(of: next))
        }
        return found
    }

    /// Whether `name` is `ancestor` or below it.
    func isBelow(_ name: String, _ ancestor: String) -> Bool {
        var current: String? = name
        var seen: Set<String> = []
        while let step = current, seen.insert(step).inserted {
            if step == ancestor { return true }
            current = records[step]?.parent
        }
        return false
    }

    /// Record `name` is deleted: a root takes its share with it. (A record with children is
    /// never deleted alone: the server refuses it with `referenceViolation`.)
    mutating func deleteRecord(_ name: String) {
        records[name] = nil
        if let share = share(rootedAt: name) { shares[share] = nil }
    }
}

// MARK: - The simulation

/// One seeded history against one server.
final class SharingSimulation {
    /// Why a history failed: what was expected, the seed, and the steps that led there.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A participant's copy of the shared zone, kept by zone changes from a token.
    struct Mirror {
        var token: CKServerChangeToken?
        var records: [String: String] = [:]
        /// The account's shares of the zone (name and root) and the zone's incarnation when
        /// the token was taken: only a change of these expires the token (a move keeps it).
        var tokenShares: [String] = []
        var tokenIncarnation = 0
        /// Whether the zone is in the copy of the database changes.
        var zoneKnown = false
        var databaseToken: CKServerChangeToken?
    }

    let seed: UInt64
    private var random: SeededGenerator
    private let identifier = "iCloud.com.example.sharing-property"
    private let zoneID = CKRecordZone.ID(zoneName: "Parties")
    private let server: CloudServer
    private let owner: CKContainer
    private let participants: [String]
    private var containers: [String: CKContainer] = [:]
    private var model = SharingModel()
    private var mirrors: [String: Mirror] = [:]
    private var trace: [String] = []
    private var names: [String] = []
    private var shareNames: [String] = []
    private var urls: [URL] = []
    private var counter = 0
    private var zoneIncarnation = 0

    init(seed: UInt64) {
        self.seed = seed
        random = SeededGenerator(seed: seed)
        server = CloudServer(clock: ManualClock())
        owner = server.container(identifier: identifier, account: "john")
        server.setEmailAddress("john@example.com", forAccount: "john")
        let everyone = ["mary", "bob", "cleo"]
        participants = Array(everyone.prefix(Int.random(in: 2...3, using: &random)))
        for account in participants {
            server.setEmailAddress("\(account)@example.com", forAccount: account)
            containers[account] = server.container(identifier: identifier, account: account)
            mirrors[account] = Mirror()
        }
    }

    // MARK: Running

    func run(steps: Int, fullCheckEvery: Int) async throws {
        trace.append("seed \(seed): participants \(participants.joined(separator: ", "))")
        do {
            try await ownerCreate(parent: nil)
            for step in 1...steps {
                try await randomStep(step)
                if step % fullCheckEvery == 0 { try await fullCheck() }
            }
            try await fullCheck()
        } catch let failure as Failure {
            throw failure
        } catch {
            throw failure("unexpected error \(error)")
        }
    }

    private func randomStep(_ step: Int) async throws {
        let inside = participants.filter { model.seesZone($0) }
        let account = !inside.isEmpty && !chance(4) ? pick(inside) : pick(participants)
        // What the participant sees now, so that most of their steps aim at it and some at
        // what they may not touch.
        let visible = model.visible(to: account).keys.filter { model.records[$0] != nil }.sorted()
        let aimed = { (share: Int) -> String? in
            !visible.isEmpty && Int.random(in: 0..<10, using: &self.random) < share ? self.pick(visible) : self.names.isEmpty ? nil : self.pick(self.names)
        }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<10:
            try await ownerCreate(parent: chance(3) ? nil : pickRecord())
        case 10..<15:
            if let name = pickRecord() { try await ownerModify(name) }
        case 15..<18:
            let leaves = model.records.keys.sorted().filter { model.share(rootedAt: $0) == nil }
            if let name = chance(4) || leaves.isEmpty ? pickRecord() : pick(leaves) {
                if chance(2) { try await ownerDeleteHierarchy(name) } else { try await ownerDelete(name) }
            }
        case 18..<25:
            try await ownerShare(zoneWide: chance(6))
        case 25..<29:
            try await ownerInvite(account)
        case 29..<32:
            try await ownerChangePermission(account)
        case 32..<34:
            try await ownerRemove(account)
        case 34..<36:
            if chance(2) { try await ownerDeleteShare() } else if chance(2) { try await ownerChangePublicPermission() }
        case 36:
            if chance(2) { try await ownerDeleteZone() }
        case 37..<48:
            try await participantAccept(account)
        case 48..<60:
            try await participantCreate(account, parent: chance(10) ? nil : aimed(7))
        case 60..<68:
            if let name = aimed(7) { try await participantModify(account, name) }
        case 68..<73:
            if let name = aimed(6) { try await participantDelete(account, name) }
        case 73..<75:
            let own = model.grants(of: account).map(\.name)
            let pool = !own.isEmpty && chance(4) == false ? own : shareNames
            if !pool.isEmpty { try await participantLeave(account, pick(pool)) }
        case 75..<78:
            if let name = pickRecord() { try await ownerMove(name) }
        case 78..<82:
            if let name = aimed(8) { try await participantMove(account, name) }
        case 82..<88:
            try await participantRead(account, chance(2) ? aimed(10) ?? "ghost" : pick(names + shareNames + ["ghost"]))
        case 88..<94:
            try await participantFetchChanges(account)
        default:
            try await participantQuery(account)
        }
    }

    // MARK: The owner

    private func ownerCreate(parent: String?) async throws {
        if !model.zoneExists {
            _ = try await owner.privateCloudDatabase.modifyRecordZones(saving: [CKRecordZone(zoneID: zoneID)], deleting: [])
            model.zoneExists = true
            zoneIncarnation += 1
            trace.append("john creates the zone (incarnation \(zoneIncarnation))")
        }
        let name = newName()
        let value = "john-\(counter)"
        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        record["value"] = value
        record.parent = parent.map { CKRecord.Reference(recordID: CKRecord.ID(recordName: $0, zoneID: zoneID), action: .none) }
        let outcome = try await ownerWrite(saving: [record], deleting: [])
        trace.append("john creates \(name) under \(parent ?? "nothing"): \(outcome)")
        try expect(outcome, nil, "the owner creates a record in his zone")
        model.records[name] = .init(parent: parent, value: value)
        try await checkSeen(name)
    }

    private func ownerModify(_ name: String) async throws {
        counter += 1
        let value = "john-\(counter)"
        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        record["value"] = value
        let outcome = try await ownerWrite(saving: [record], deleting: [], policy: .changedKeys)
        trace.append("john sets \(name) to \(value): \(outcome)")
        try expect(outcome, nil, "the owner edits a record of his zone")
        model.records[name]?.value = value
        try await checkSeen(name)
    }

    private func ownerDelete(_ name: String) async throws {
        let outcome = try await ownerWrite(saving: [], deleting: [CKRecord.ID(recordName: name, zoneID: zoneID)])
        let share = model.share(rootedAt: name)
        trace.append("john deletes \(name)\(share.map { " (root of \($0))" } ?? ""): \(outcome)")
        if !model.children(of: name).isEmpty {
            try expect(outcome, .referenceViolation, "the owner deletes a record whose children stay")
            return try await checkSeen(name)
        }
        try expect(outcome, nil, "the owner deletes a record of his zone")
        model.deleteRecord(name)
        try await checkSeen(name)
        if let share { try await checkSeen(share) }
    }

    /// The owner deletes `name` with every record below it, in one request, in random order.
    private func ownerDeleteHierarchy(_ name: String) async throws {
        var doomed = model.hierarchy(under: name)
        doomed.shuffle(using: &random)
        let (_, deletes) = try await owner.privateCloudDatabase.modifyRecords(
            saving: [], deleting: doomed.map { CKRecord.ID(recordName: $0, zoneID: zoneID) }, atomically: false
        )
        let shares = doomed.compactMap { model.share(rootedAt: $0) }
        trace.append("john deletes \(doomed.joined(separator: ", ")) in one request")
        for recordID in deletes.keys.sorted(by: { $0.recordName < $1.recordName }) {
            try expect(Outcome(deletes[recordID]), nil, "the owner deletes \(recordID.recordName) with its parent and children")
        }
        for removed in doomed { model.deleteRecord(removed) }
        for removed in doomed + shares { try await checkSeen(removed) }
    }

    private func ownerShare(zoneWide: Bool) async throws {
        guard model.zoneExists else { return }
        let database = owner.privateCloudDatabase
        let invitees = participants.filter { _ in !chance(3) }
        var invited: [String: SharingModel.Participant] = [:]
        let share: CKShare
        var saving: [CKRecord] = []
        var root: String?
        if zoneWide {
            guard !model.shares.keys.contains(CKRecordNameZoneWideShare) else { return }
            share = CKShare(recordZoneID: zoneID)
        } else {
            let free = model.records.keys.sorted().filter { !model.shareConflict(root: $0) }
            guard let name = chance(4) || free.isEmpty ? pickRecord() : pick(free) else { return }
            root = name
            let rootRecord = try await database.record(for: CKRecord.ID(recordName: name, zoneID: zoneID))
            counter += 1
            share = CKShare(rootRecord: rootRecord, shareID: CKRecord.ID(recordName: "share-\(name)-\(counter)", zoneID: zoneID))
            saving.append(rootRecord)
        }
        // Some shares are open to anyone with the URL, and then invite no one (the client
        // refuses pending invitations on such a share).
        let publicPermission: CKShare.ParticipantPermission = chance(4) ? (chance(2) ? .readWrite : .readOnly) : .none
        share.publicPermission = publicPermission
        for account in invitees where publicPermission == .none {
            let participant = try await owner.shareParticipant(forEmailAddress: "\(account)@example.com")
            participant.permission = chance(2) ? .readWrite : .readOnly
            share.addParticipant(participant)
            invited[account] = .init(permission: participant.permission, accepted: false)
        }
        saving.append(share)
        let (saves, _) = try await database.modifyRecords(saving: saving, deleting: [], atomically: false)
        let outcome = Outcome(saves[share.recordID])
        let shareName = share.recordID.recordName
        let described = invited.keys.sorted().map { "\($0) \(invited[$0].map { describe($0.permission) } ?? "")" }.joined(separator: ", ")
        trace.append("john shares \(root ?? "the zone") as \(shareName) with [\(described)]\(publicPermission == .none ? "" : ", open to anyone \(describe(publicPermission))"): \(outcome)")
        let conflict = root.map { model.shareConflict(root: $0) } ?? model.shares.values.contains { $0.root != nil }
        if conflict {
            return try expect(outcome, .alreadyShared, "a record belongs to at most one share, and a zone shared whole holds no record shares")
        }
        try expect(outcome, nil, "the owner shares \(root ?? "his zone")")
        guard case .success(let saved as CKShare)? = saves[share.recordID], let url = saved.url else {
            throw failure("the saved share \(shareName) has no URL")
        }
        model.shares[shareName] = .init(root: root, url: url, participants: invited, publicPermission: publicPermission)
        if !shareNames.contains(shareName) { shareNames.append(shareName) }
        if !urls.contains(url) { urls.append(url) }
        try await checkSeen(shareName)
    }

    /// Fetches the share `name` as the owner has it, changes it with `change` and saves it.
    private func ownerChangeShare(_ name: String, _ change: (CKShare) async throws -> Void) async throws -> Outcome {
        let database = owner.privateCloudDatabase
        let fetched = try await database.record(for: CKRecord.ID(recordName: name, zoneID: zoneID))
        guard let share = fetched as? CKShare else { throw failure("\(name) does not read back as a CKShare") }
        try await change(share)
        let (saves, _) = try await database.modifyRecords(saving: [share], deleting: [], atomically: false)
        return Outcome(saves[share.recordID])
    }

    private func participantEntry(_ account: String, in share: CKShare) -> CKShare.Participant? {
        let user = server.userRecordName(account: account, containerIdentifier: identifier)
        return share.participants.first { $0.role != .owner && $0.userIdentity.userRecordID?.recordName == user }
    }

    private func ownerInvite(_ account: String) async throws {
        guard let name = model.shares.keys.sorted().filter({ model.shares[$0]?.participants[account] == nil }).randomElement(using: &random) else { return }
        let permission: CKShare.ParticipantPermission = chance(2) ? .readWrite : .readOnly
        let outcome = try await ownerChangeShare(name) { share in
            let participant = try await self.owner.shareParticipant(forEmailAddress: "\(account)@example.com")
            participant.permission = permission
            share.addParticipant(participant)
        }
        trace.append("john invites \(account) to \(name) \(describe(permission)): \(outcome)")
        if model.shares[name]?.publicPermission != CKShare.ParticipantPermission.none {
            return try expect(outcome, .invalidArguments, "the owner invites someone to a share open to anyone with its URL")
        }
        try expect(outcome, nil, "the owner invites a participant")
        model.shares[name]?.participants[account] = .init(permission: permission, accepted: false)
    }

    private func ownerChangePermission(_ account: String) async throws {
        guard let name = model.shares.keys.sorted().filter({ model.shares[$0]?.participants[account].map { !$0.isPublic } == true }).randomElement(using: &random),
              let current = model.shares[name]?.participants[account] else { return }
        let permission: CKShare.ParticipantPermission = current.permission == .readWrite ? .readOnly : .readWrite
        let outcome = try await ownerChangeShare(name) { share in
            guard let entry = self.participantEntry(account, in: share) else { throw self.failure("\(account) is missing from the owner's copy of \(name)") }
            entry.permission = permission
        }
        trace.append("john makes \(account) \(describe(permission)) on \(name): \(outcome)")
        try expect(outcome, nil, "the owner changes a participant's permission")
        model.shares[name]?.participants[account]?.permission = permission
    }

    private func ownerRemove(_ account: String) async throws {
        guard let name = model.shares.keys.sorted().filter({ model.shares[$0]?.participants[account] != nil }).randomElement(using: &random) else { return }
        let outcome = try await ownerChangeShare(name) { share in
            guard let entry = self.participantEntry(account, in: share) else { throw self.failure("\(account) is missing from the owner's copy of \(name)") }
            share.removeParticipant(entry)
        }
        trace.append("john removes \(account) from \(name): \(outcome)")
        try expect(outcome, nil, "the owner removes a participant")
        model.shares[name]?.participants[account] = nil
        try await checkSeen(name)
    }

    /// The owner opens a share to anyone with its URL, changes what they may do, or closes
    /// it: a public user's permission is the share's public permission, whatever it was when
    /// they joined.
    private func ownerChangePublicPermission() async throws {
        guard let name = model.shares.keys.sorted().randomElement(using: &random), let share = model.shares[name] else { return }
        let choices: [CKShare.ParticipantPermission] = [.none, .readOnly, .readWrite].filter { $0 != share.publicPermission }
        let permission = pick(choices)
        let outcome = try await ownerChangeShare(name) { $0.publicPermission = permission }
        trace.append("john makes \(name) \(permission == .none ? "closed" : "open to anyone \(describe(permission))"): \(outcome)")
        try expect(outcome, nil, "the owner changes the public permission")
        model.shares[name]?.publicPermission = permission
        if permission == .none {
            model.shares[name]?.participants = [:]
        } else {
            model.shares[name]?.participants = share.participants.filter { $0.value.accepted }
        }
        try await checkSeen(name)
    }

    private func ownerDeleteShare() async throws {
        guard let name = model.shares.keys.sorted().randomElement(using: &random) else { return }
        let outcome = try await ownerWrite(saving: [], deleting: [CKRecord.ID(recordName: name, zoneID: zoneID)])
        trace.append("john deletes share \(name): \(outcome)")
        try expect(outcome, nil, "the owner deletes a share")
        let root = model.shares[name]?.root
        model.shares[name] = nil
        try await checkSeen(name)
        if let root { try await checkSeen(root) }
    }

    /// The owner moves `name` under another record (never one below it) or to the top.
    private func ownerMove(_ name: String) async throws {
        let targets = model.records.keys.sorted().filter { !model.isBelow($0, name) && $0 != model.records[name]?.parent }
        let parent = targets.isEmpty || chance(5) ? nil : pick(targets)
        guard parent != model.records[name]?.parent else { return }
        let record = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name, zoneID: zoneID))
        record.parent = parent.map { CKRecord.Reference(recordID: CKRecord.ID(recordName: $0, zoneID: zoneID), action: .none) }
        let outcome = try await ownerWrite(saving: [record], deleting: [], policy: .changedKeys)
        trace.append("john moves \(name) under \(parent ?? "nothing"): \(outcome)")
        var moved = model
        moved.records[name]?.parent = parent
        if moved.hasNestedRoots() {
            return try expect(outcome, .alreadyShared, "the move would put a share's root inside another share")
        }
        try expect(outcome, nil, "the owner moves a record of his zone")
        model = moved
        try await checkSeen(name)
    }

    private func ownerDeleteZone() async throws {
        guard model.zoneExists else { return }
        _ = try await owner.privateCloudDatabase.modifyRecordZones(saving: [], deleting: [zoneID])
        trace.append("john deletes the zone")
        model = SharingModel()
    }

    private func ownerWrite(saving: [CKRecord], deleting: [CKRecord.ID], policy: CKRecordSavePolicy = .ifServerRecordUnchanged) async throws -> Outcome {
        let (saves, deletes) = try await owner.privateCloudDatabase.modifyRecords(saving: saving, deleting: deleting, savePolicy: policy, atomically: false)
        if let record = saving.first { return Outcome(saves[record.recordID]) }
        if let recordID = deleting.first { return Outcome(deletes[recordID]) }
        return .ok
    }

    // MARK: Participants

    private func sharedZoneID() -> CKRecordZone.ID {
        CKRecordZone.ID(zoneName: zoneID.zoneName, ownerName: server.userRecordName(account: "john", containerIdentifier: identifier))
    }

    private func sharedID(_ name: String) -> CKRecord.ID {
        CKRecord.ID(recordName: name, zoneID: sharedZoneID())
    }

    private func container(_ account: String) -> CKContainer {
        containers[account] ?? owner
    }

    private func participantAccept(_ account: String) async throws {
        let invitations = model.shares.keys.sorted().compactMap { name in
            model.shares[name].flatMap { $0.participants[account]?.accepted == false ? $0.url : nil }
        }
        let pool = !invitations.isEmpty && !chance(5) ? invitations : urls
        guard !pool.isEmpty else { return }
        let url = pick(pool)
        let outcome: Outcome
        do {
            let metadata = try await container(account).shareMetadata(for: url)
            _ = try await container(account).accept(metadata)
            outcome = .ok
        } catch {
            outcome = Outcome(error)
        }
        let target = model.shares.first { $0.value.url == url }?.key
        trace.append("\(account) accepts \(target ?? url.lastPathComponent): \(outcome)")
        guard let target else { return try expect(outcome, .unknownItem, "no share has the URL any more") }
        guard let share = model.shares[target] else { return }
        if share.participants[account] == nil, share.publicPermission != .none {
            try expect(outcome, nil, "\(account) joins \(target), open to anyone with the URL")
            model.shares[target]?.participants[account] = .init(permission: share.publicPermission, accepted: true, isPublic: true)
            return
        }
        guard share.participants[account] != nil else {
            return try expect(outcome, .participantMayNeedVerification, "\(account) is not invited to \(target)")
        }
        try expect(outcome, nil, "\(account) accepts an invitation to \(target)")
        model.shares[target]?.participants[account]?.accepted = true
    }

    /// What the server should answer `account` writing record `name` (nil: allowed).
    private func writeRefusal(_ account: String, _ name: String, delete: Bool) -> CKError.Code? {
        guard model.seesZone(account) else { return .zoneNotFound }
        guard model.records[name] != nil else { return delete ? .unknownItem : zoneWidePermission(account) == .readWrite ? nil : .permissionFailure }
        guard let permission = model.permission(of: account, on: name) else { return delete ? .unknownItem : .permissionFailure }
        if permission != .readWrite { return .permissionFailure }
        if delete, model.share(rootedAt: name) != nil { return .permissionFailure }
        return nil
    }

    private func zoneWidePermission(_ account: String) -> CKShare.ParticipantPermission? {
        model.grants(of: account).first { $0.share.root == nil }?.permission
    }

    private func participantCreate(_ account: String, parent: String?) async throws {
        let name = newName()
        let value = "\(account)-\(counter)"
        let record = CKRecord(recordType: "Item", recordID: sharedID(name))
        record["value"] = value
        record.parent = parent.map { CKRecord.Reference(recordID: sharedID($0), action: .none) }
        let outcome = try await participantWrite(account, saving: [record], deleting: [])
        trace.append("\(account) creates \(name) under \(parent ?? "nothing"): \(outcome)")
        let expected: CKError.Code?
        if !model.seesZone(account) {
            expected = .zoneNotFound
        } else if let zoneWide = zoneWidePermission(account) {
            // The whole zone is shared: a parent that does not exist is what any account
            // that may write the zone is told.
            expected = zoneWide != .readWrite ? .permissionFailure : parent.map { model.records[$0] == nil } == true ? .referenceViolation : nil
        } else {
            expected = parent.flatMap { model.permission(of: account, on: $0) } == .readWrite ? nil : .permissionFailure
        }
        try expect(outcome, expected, "\(account) creates a record under \(parent ?? "no parent")")
        if expected == nil {
            model.records[name] = .init(parent: parent, value: value)
            try await checkSeen(name)
        }
    }

    private func participantModify(_ account: String, _ name: String) async throws {
        counter += 1
        let value = "\(account)-\(counter)"
        let record = CKRecord(recordType: "Item", recordID: sharedID(name))
        record["value"] = value
        let outcome = try await participantWrite(account, saving: [record], deleting: [], policy: .changedKeys)
        trace.append("\(account) sets \(name) to \(value): \(outcome)")
        let expected = writeRefusal(account, name, delete: false)
        try expect(outcome, expected, "\(account) edits \(name)")
        if expected == nil {
            if model.records[name] == nil {
                model.records[name] = .init(parent: nil, value: value)
            } else {
                model.records[name]?.value = value
            }
        }
        try await checkSeen(name)
    }

    /// The participant gives `name` a new parent: any record (one below it too, which would
    /// make a loop), or now and then the share itself.
    private func participantMove(_ account: String, _ name: String) async throws {
        guard model.records[name] != nil else { return }
        let candidates = model.records.keys.sorted().filter { $0 != model.records[name]?.parent && $0 != name }
        let shares = model.shares.keys.sorted()
        let parent: String
        if !shares.isEmpty, chance(8) {
            parent = pick(shares)
        } else if !candidates.isEmpty {
            parent = pick(candidates)
        } else {
            return
        }
        let record = CKRecord(recordType: "Item", recordID: sharedID(name))
        record.parent = CKRecord.Reference(recordID: sharedID(parent), action: .none)
        let outcome = try await participantWrite(account, saving: [record], deleting: [], policy: .changedKeys)
        trace.append("\(account) moves \(name) under \(parent): \(outcome)")
        var moved = model
        moved.records[name]?.parent = parent
        let expected: CKError.Code?
        if !model.seesZone(account) {
            expected = .zoneNotFound
        } else if model.permission(of: account, on: name) != .readWrite {
            expected = .permissionFailure
        } else if model.share(rootedAt: name) != nil || model.shares[parent] != nil {
            expected = .permissionFailure
        } else {
            expected = moved.permission(of: account, on: name) == .readWrite ? nil : .permissionFailure
        }
        try expect(outcome, expected, "\(account) moves \(name) under \(parent)")
        if expected == nil { model = moved }
        try await checkSeen(name)
    }

    private func participantDelete(_ account: String, _ name: String) async throws {
        let outcome = try await participantWrite(account, saving: [], deleting: [sharedID(name)])
        trace.append("\(account) deletes \(name): \(outcome)")
        var expected = writeRefusal(account, name, delete: true)
        if expected == nil, !model.children(of: name).isEmpty { expected = .referenceViolation }
        try expect(outcome, expected, "\(account) deletes \(name)")
        if expected == nil { model.deleteRecord(name) }
        try await checkSeen(name)
    }

    private func participantLeave(_ account: String, _ name: String) async throws {
        let outcome = try await participantWrite(account, saving: [], deleting: [sharedID(name)])
        trace.append("\(account) deletes share \(name) from their shared database: \(outcome)")
        let expected: CKError.Code?
        if !model.seesZone(account) {
            expected = .zoneNotFound
        } else if model.shares[name]?.participants[account]?.accepted == true {
            expected = nil
        } else {
            expected = .unknownItem
        }
        try expect(outcome, expected, "\(account) leaves \(name)")
        if expected == nil { model.shares[name]?.participants[account] = nil }
        try await checkSeen(name)
    }

    private func participantWrite(_ account: String, saving: [CKRecord], deleting: [CKRecord.ID], policy: CKRecordSavePolicy = .ifServerRecordUnchanged) async throws -> Outcome {
        let (saves, deletes) = try await container(account).sharedCloudDatabase.modifyRecords(saving: saving, deleting: deleting, savePolicy: policy, atomically: false)
        if let record = saving.first { return Outcome(saves[record.recordID]) }
        if let recordID = deleting.first { return Outcome(deletes[recordID]) }
        return .ok
    }

    private func participantRead(_ account: String, _ name: String) async throws {
        let outcome: Outcome
        var value: String?
        do {
            let record = try await container(account).sharedCloudDatabase.record(for: sharedID(name))
            value = record is CKShare ? "" : (record["value"] as? String)
            outcome = .ok
        } catch {
            outcome = Outcome(error)
        }
        trace.append("\(account) reads \(name): \(outcome)")
        try checkRead(account, name, outcome: outcome, value: value)
    }

    private func participantQuery(_ account: String) async throws {
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(value: true))
        let outcome: Outcome
        var found: [String: String] = [:]
        do {
            let (results, cursor) = try await container(account).sharedCloudDatabase.records(matching: query, inZoneWith: sharedZoneID(), desiredKeys: nil)
            if cursor != nil { throw failure("the query of a small zone has more than one page") }
            for (recordID, result) in results {
                found[recordID.recordName] = (try? result.get())?["value"] as? String
            }
            outcome = .ok
        } catch let failure as Failure {
            throw failure
        } catch {
            outcome = Outcome(error)
        }
        trace.append("\(account) queries the shared zone: \(outcome) \(found.count) records")
        guard model.seesZone(account) else { return try expect(outcome, .zoneNotFound, "\(account) queries a zone they do not see") }
        try expect(outcome, nil, "\(account) queries the shared zone")
        let expected = model.visible(to: account).filter { model.records[$0.key] != nil }
        if found != expected {
            throw failure("\(account)'s query found \(found.sorted { $0.key < $1.key }) but may see exactly \(expected.sorted { $0.key < $1.key })")
        }
    }

    /// Brings `account`'s copy of the zone up to date from its token, as an app does: a
    /// `changeTokenExpired` starts again from nil, a zone that is gone empties the copy.
    private func participantFetchChanges(_ account: String) async throws {
        var mirror = mirrors[account] ?? Mirror()
        var restarted = false
        let shares = model.grants(of: account).map { "\($0.name) at \($0.share.root ?? "the zone")" }
        var log: [String] = []
        while true {
            do {
                let changes = try await container(account).sharedCloudDatabase.recordZoneChanges(inZoneWith: sharedZoneID(), since: mirror.token)
                if mirror.token == nil { mirror.records = [:] }
                for (recordID, result) in changes.modificationResultsByID {
                    guard case .success(let modification) = result else { throw failure("\(account) got a failed modification for \(recordID.recordName)") }
                    let record = modification.record
                    mirror.records[recordID.recordName] = record is CKShare ? "" : (record["value"] as? String ?? "")
                }
                for deletion in changes.deletions { mirror.records[deletion.recordID.recordName] = nil }
                mirror.token = changes.changeToken
                mirror.tokenShares = shares
                mirror.tokenIncarnation = zoneIncarnation
                log.append("\(changes.modificationResultsByID.count) changed, \(changes.deletions.count) deleted")
                if !changes.moreComing { break }
            } catch let error as CKError where error.code == .changeTokenExpired && mirror.token != nil && !restarted {
                log.append("changeTokenExpired")
                if mirror.tokenShares == shares, mirror.tokenIncarnation == zoneIncarnation {
                    throw failure("\(account)'s token expired though their shares of the zone (\(shares)) stayed the same since it was taken")
                }
                restarted = true
                mirror.token = nil
            } catch let error as CKError where error.code == .zoneNotFound {
                log.append("zoneNotFound")
                mirror = Mirror(zoneKnown: mirror.zoneKnown, databaseToken: mirror.databaseToken)
                break
            }
        }
        mirrors[account] = mirror
        trace.append("\(account) fetches changes: \(log.joined(separator: "; "))")

        let visible = model.visible(to: account)
        if !model.seesZone(account) {
            if !mirror.records.isEmpty || mirror.token != nil { throw failure("\(account) fetched changes of a zone they do not see") }
            return
        }
        for (name, value) in visible where mirror.records[name] != value {
            throw failure("\(account)'s copy has \(name) as \(mirror.records[name].map { "'\($0)'" } ?? "missing"), the server '\(value)'")
        }
        // A record that left the account's shares (deleted, with its parent or after it, or
        // moved out) comes as a deletion: the copy holds exactly what they see.
        for name in mirror.records.keys where visible[name] == nil {
            throw failure("\(account)'s copy holds \(name), which they may not see (it exists: \(model.records[name] != nil || model.shares[name] != nil))")
        }
    }

    // MARK: Checks

    /// After a change of record `name`: the owner reads it as the model has it, and each
    /// participant reads it when allowed and is refused with the right code when not.
    private func checkSeen(_ name: String) async throws {
        let ownerOutcome: Outcome
        var ownerValue: String?
        do {
            let record = try await owner.privateCloudDatabase.record(for: CKRecord.ID(recordName: name, zoneID: zoneID))
            ownerValue = record is CKShare ? "" : (record["value"] as? String)
            ownerOutcome = .ok
        } catch {
            ownerOutcome = Outcome(error)
        }
        if let record = model.records[name] {
            try expect(ownerOutcome, nil, "the owner reads \(name)")
            if ownerValue != record.value { throw failure("the owner reads \(name) as \(ownerValue ?? "nil"), not \(record.value)") }
        } else if model.shares[name] != nil {
            try expect(ownerOutcome, nil, "the owner reads share \(name)")
        } else {
            try expect(ownerOutcome, model.zoneExists ? .unknownItem : .zoneNotFound, "the owner reads \(name), which is gone")
        }
        for account in participants {
            var value: String?
            let outcome: Outcome
            do {
                let record = try await container(account).sharedCloudDatabase.record(for: sharedID(name))
                value = record is CKShare ? "" : (record["value"] as? String)
                outcome = .ok
            } catch {
                outcome = Outcome(error)
            }
            try checkRead(account, name, outcome: outcome, value: value)
        }
    }

    private func checkRead(_ account: String, _ name: String, outcome: Outcome, value: String?) throws {
        guard model.seesZone(account) else { return try expect(outcome, .zoneNotFound, "\(account) reads \(name) in a zone they do not see") }
        guard let expected = model.visible(to: account)[name] else { return try expect(outcome, .unknownItem, "\(account) reads \(name), which they may not see") }
        try expect(outcome, nil, "\(account) reads \(name)")
        if value != expected { throw failure("\(account) reads \(name) as \(value ?? "nil"), not \(expected)") }
    }

    /// Compares the server with the model: the owner's zone record by record; for each
    /// participant, the zones of their shared database, its database changes, the zone's
    /// changes from nil and from their kept token, and a query.
    private func fullCheck() async throws {
        trace.append("full check")
        if model.zoneExists {
            let all = try await everything(in: owner.privateCloudDatabase, zoneID: zoneID)
            var expected: [String: String] = model.records.mapValues(\.value)
            for name in model.shares.keys { expected[name] = "" }
            if all != expected {
                throw failure("the owner's zone holds \(all.sorted { $0.key < $1.key }), the model \(expected.sorted { $0.key < $1.key })")
            }
        }
        for account in participants {
            let database = container(account).sharedCloudDatabase
            let sees = model.seesZone(account)
            let zones = try await database.allRecordZones().map(\.zoneID)
            if zones != (sees ? [sharedZoneID()] : []) {
                throw failure("\(account)'s shared database lists \(zones.map(\.zoneName)), seeing the zone: \(sees)")
            }

            var mirror = mirrors[account] ?? Mirror()
            var moreComing = true
            while moreComing {
                let changes = try await database.databaseChanges(since: mirror.databaseToken)
                for modification in changes.modifications where modification.zoneID == sharedZoneID() { mirror.zoneKnown = true }
                for deletion in changes.deletions where deletion.zoneID == sharedZoneID() { mirror.zoneKnown = false }
                mirror.databaseToken = changes.changeToken
                moreComing = changes.moreComing
            }
            mirrors[account] = mirror
            if mirror.zoneKnown != sees {
                throw failure("\(account)'s database changes leave the zone \(mirror.zoneKnown ? "present" : "absent"), but they \(sees ? "see" : "do not see") it")
            }

            if sees {
                let all = try await everything(in: database, zoneID: sharedZoneID())
                let visible = model.visible(to: account)
                if all != visible {
                    throw failure("\(account)'s shared zone from nil holds \(all.sorted { $0.key < $1.key }), but they may see exactly \(visible.sorted { $0.key < $1.key })")
                }
            } else {
                do {
                    _ = try await database.recordZoneChanges(inZoneWith: sharedZoneID(), since: nil)
                    throw failure("\(account) fetched the changes of a zone they do not see")
                } catch let error as CKError {
                    if error.code != .zoneNotFound { throw failure("\(account) fetching an unseen zone got \(error.code), not zoneNotFound") }
                }
            }
            try await participantFetchChanges(account)
            try await participantQuery(account)
        }
    }

    /// Every record of a zone, by name, with its value ("" for a share): its changes from nil.
    private func everything(in database: CKDatabase, zoneID: CKRecordZone.ID) async throws -> [String: String] {
        var all: [String: String] = [:]
        var token: CKServerChangeToken?
        while true {
            let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
            for (recordID, result) in changes.modificationResultsByID {
                let record = try result.get().record
                all[recordID.recordName] = record is CKShare ? "" : (record["value"] as? String ?? "")
            }
            for deletion in changes.deletions { all[deletion.recordID.recordName] = nil }
            token = changes.changeToken
            if !changes.moreComing { return all }
        }
    }

    // MARK: Outcomes

    /// How a request for one item ended.
    enum Outcome: Equatable, CustomStringConvertible {
        case ok
        case failed(CKError.Code)
        case other(String)

        init<Value>(_ result: Result<Value, any Error>?) {
            switch result {
            case .success?: self = .ok
            case .failure(let error)?: self.init(error)
            case nil: self = .other("no result")
            }
        }

        init(_ error: any Error) {
            if let error = error as? CKError { self = .failed(error.code) } else { self = .other("\(error)") }
        }

        var description: String {
            switch self {
            case .ok: "ok"
            case .failed(let code): "\(code)"
            case .other(let text): text
            }
        }
    }

    private func expect(_ outcome: Outcome, _ code: CKError.Code?, _ what: String) throws {
        let expected: Outcome = code.map { .failed($0) } ?? .ok
        if outcome != expected { throw failure("\(what): expected \(expected), got \(outcome)") }
    }

    private func failure(_ message: String) -> Failure {
        Failure(description: """
            \(message)
            seed \(seed) (replay with STRATUS_SHARING_PROPERTY_SEED=\(seed)); the history:
            \(trace.joined(separator: "\n"))
            """)
    }

    // MARK: Random choices

    private func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }

    private func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }

    private func pickRecord() -> String? {
        let existing = model.records.keys.sorted()
        return existing.isEmpty ? nil : pick(existing)
    }

    private func newName() -> String {
        counter += 1
        let name = "r\(counter)"
        names.append(name)
        return name
    }

    private func describe(_ permission: CKShare.ParticipantPermission) -> String {
        permission == .readWrite ? "read-write" : "read-only"
    }
}
