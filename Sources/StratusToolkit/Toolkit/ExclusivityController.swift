import Foundation
import StratusCore
import StratusOperations

/// Grants mutual-exclusivity categories across every queue: at most one operation of a
/// category runs at a time, in the order the operations were added.
///
/// Every operation with categories gets a ticket when it is added, and the tickets form one
/// list in which tickets only ever wait for tickets before them:
/// - a new ticket goes at the end (the order of adding), except that it goes before the first
///   ticket whose operation waits for it (that operation cannot run first anyway); if the new
///   operation itself waits for a ticket further on, the list is sorted again so that every
///   operation comes after those it waits for, and otherwise in the order of adding;
/// - the hidden evaluator of an operation claims its ticket only once the operation's
///   dependencies have finished and its conditions have passed; a claim is granted when no
///   running operation holds one of its categories and no ticket before it in the list shares
///   one (a ticket that has not claimed yet still blocks those after it, which keeps the order);
///   all of an operation's categories are granted in one step;
/// - a ticket is released once its operation has finished and its observers heard it, or at
///   once when a condition fails.
///
/// Why it cannot hang:
/// - An operation holds categories only from its grant to its finish, and waits for nothing
///   while it holds them, except a running ``GroupOperation``, which waits for its children.
/// - Between operations that are not groups, the first ticket in the list that is not running
///   waits for no ticket (those before it are running and finish), and every operation it
///   depends on is untied to exclusivity or before it, so it is granted in turn. Two
///   operations sharing two categories cannot each hold one and wait for the other, since
///   both are granted at once.
/// - A child needing a category its running group (or a group around it) holds gets the
///   category scoped to that group, so it never waits for its own group.
/// - A group with categories also holds those its children (added before it) need, so two
///   groups whose children need each other's categories take turns as wholes.
/// - The remaining case is a lock-order inversion between groups through children added while
///   they run: a group holding A gets a child needing B, while a group holding B gets a child
///   needing A. When a claim would close such a cycle of waits, it is refused instead of
///   waiting forever: the operation does not run, and fails with an
///   ``OperationConditionError`` that names the cycle.
///
/// What it cannot see: waits that did not exist when the operations were added (a dependency
/// added to an operation already in a queue; a child added to a running group that depends on
/// an operation outside it needing a category the group holds), and a queue slot: an
/// operation granted its categories may still wait for its queue to start it, so a queue that
/// runs few operations at a time, busy with a group whose children need those categories,
/// waits forever. Put groups and operations that share categories with their children on
/// different queues, or on queues with no width limit.
final class ExclusivityController: @unchecked Sendable {
    /// The process-wide controller: categories are shared by every queue.
    static let shared = ExclusivityController()

    /// What a claim came to.
    enum Outcome: Sendable {
        /// The categories are the operation's until it finishes.
        case granted
        /// The ticket was released before it was granted (the operation was cancelled).
        case withdrawn
        /// Waiting would close a cycle of waits; the message names it.
        case refused(String)
    }

    private enum Claim {
        /// The evaluator has not claimed yet.
        case waiting
        /// The evaluator claimed; `outcome` runs when the categories are free.
        case claimed(@Sendable (Outcome) -> Void)
        /// Granted: the operation may run, and holds its categories until it finishes.
        case running
    }

    private struct Entry {
        let ticket: ExclusivityTicket
        var claim: Claim

        var isRunning: Bool {
            if case .running = claim { return true }
            return false
        }
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    /// Puts `ticket` in the list, in the order of adding, before any ticket that waits for it.
    func enqueue(_ ticket: ExclusivityTicket) {
        let grants = lock.withLock {
            let key = ticket.operationKey
            let firstWaiter = entries.firstIndex { $0.ticket.waits(for: key) }
            let lastAwaited = entries.lastIndex { ticket.waitsFor.contains($0.ticket.operationKey) }
            let entry = Entry(ticket: ticket, claim: .waiting)
            switch (firstWaiter, lastAwaited) {
            case (nil, _):
                entries.append(entry)
            case (let waiter?, nil):
                entries.insert(entry, at: waiter)
            case (let waiter?, let awaited?) where awaited < waiter:
                entries.insert(entry, at: waiter)
            case (_?, _?):
                entries.append(entry)
                sortByWaits()
                // Sorting may move a claim ahead of what blocked it.
                return grantLocked()
            }
            // A ticket that has not claimed only ever blocks others: nothing to grant.
            return []
        }
        grants.forEach { $0(.granted) }
    }

    /// Asks for the ticket's categories; `outcome` runs once: granted (the operation may run),
    /// withdrawn (the ticket was released first), or refused (waiting would never end).
    func claim(_ ticket: ExclusivityTicket, outcome: @escaping @Sendable (Outcome) -> Void) {
        let (immediate, grants): (Outcome?, [@Sendable (Outcome) -> Void]) = lock.withLock {
            guard let index = entries.firstIndex(where: { $0.ticket === ticket }) else { return (.withdrawn, []) }
            guard case .waiting = entries[index].claim else { return (nil, []) }
            entries[index].claim = .claimed(outcome)
            // Claiming blocks no one new and frees no one: only this claim may be granted.
            var grants: [@Sendable (Outcome) -> Void] = []
            if isGrantableLocked(index) {
                entries[index].claim = .running
                grants.append(outcome)
            }
            if let position = entries.firstIndex(where: { $0.ticket === ticket }), !entries[position].isRunning,
               let cycle = cycleLocked(from: position) {
                entries.remove(at: position)
                return (.refused(cycle), grants + grantLocked())
            }
            return (nil, grants)
        }
        if let immediate { outcome(immediate) }
        grants.forEach { $0(.granted) }
    }

    /// Frees the ticket's categories; a claim still waiting hears `withdrawn`. Releasing twice
    /// does nothing.
    func release(_ ticket: ExclusivityTicket) {
        let (withdrawn, grants): ((@Sendable (Outcome) -> Void)?, [@Sendable (Outcome) -> Void]) = lock.withLock {
            guard let index = entries.firstIndex(where: { $0.ticket === ticket }) else { return (nil, []) }
            let removed = entries.remove(at: index)
            var withdrawn: (@Sendable (Outcome) -> Void)?
            if case .claimed(let waiting) = removed.claim { withdrawn = waiting }
            return (withdrawn, grantLocked())
        }
        withdrawn?(.withdrawn)
        grants.forEach { $0(.granted) }
    }

    /// Whether the claim at `index` may be granted now: no running ticket and no ticket before
    /// it shares one of its categories (what ``grantLocked()`` decides, for one claim).
    private func isGrantableLocked(_ index: Int) -> Bool {
        let categories = entries[index].ticket.categories
        for other in entries.indices where other != index && (other < index || entries[other].isRunning) {
            if !entries[other].ticket.categories.isDisjoint(with: categories) { return false }
        }
        return true
    }

    /// Grants every claim whose categories are free; returns their callbacks, to run after the
    /// lock is given up.
    private func grantLocked() -> [@Sendable (Outcome) -> Void] {
        var blocked = Set<String>()
        for entry in entries where entry.isRunning {
            blocked.formUnion(entry.ticket.categories)
        }
        var grants: [@Sendable (Outcome) -> Void] = []
        for index in entries.indices {
            let categories = entries[index].ticket.categories
            switch entries[index].claim {
            case .running:
                continue
            case .claimed(let granted) where blocked.isDisjoint(with: categories):
                entries[index].claim = .running
                grants.append(granted)
            case .claimed, .waiting:
                break
            }
            blocked.formUnion(categories)
        }
        return grants
    }

    /// The cycle of waits the claimed ticket at `start` would close, described, or nil.
    ///
    /// Who waits for whom: a claimed ticket waits for the running holder of each of its
    /// categories and for the nearest ticket before it sharing each one; one that has not
    /// claimed waits for the tickets of the operations it depends on; a running group waits for
    /// the tickets of the operations inside it. A cycle is found when the claim that closes it
    /// is made.
    private func cycleLocked(from start: Int) -> String? {
        // Every cycle passes through a running group: other running operations wait for
        // nothing, and a ticket not yet granted waits only for tickets before it.
        guard entries.contains(where: { $0.isRunning && $0.ticket.isGroup }) else { return nil }
        var runningHolder: [String: Int] = [:]
        var previousSharing: [[Int]] = Array(repeating: [], count: entries.count)
        var lastWaiting: [String: Int] = [:]
        var indexByOperation: [ObjectIdentifier: Int] = [:]
        var insideGroup: [ObjectIdentifier: [Int]] = [:]
        for (index, entry) in entries.enumerated() {
            indexByOperation[entry.ticket.operationKey] = index
            for group in entry.ticket.enclosingGroups { insideGroup[group, default: []].append(index) }
            for category in entry.ticket.categories {
                if entry.isRunning {
                    runningHolder[category] = index
                } else {
                    if let previous = lastWaiting[category] { previousSharing[index].append(previous) }
                    lastWaiting[category] = index
                }
            }
        }
        func successors(_ index: Int) -> [Int] {
            let ticket = entries[index].ticket
            switch entries[index].claim {
            case .running:
                return ticket.isGroup ? insideGroup[ticket.operationKey] ?? [] : []
            case .claimed:
                return previousSharing[index] + ticket.categories.compactMap { runningHolder[$0] }
            case .waiting:
                // Not waiting for categories yet (its claim may never come): only for what
                // it depends on.
                return ticket.waitsFor.compactMap { indexByOperation[$0] }.filter { ticket.waits(for: entries[$0].ticket.operationKey) }
            }
        }
        // Depth-first search for a way back to `start`, remembering it for the message.
        var visited: Set<Int> = [start]
        var path: [Int] = []
        func search(_ index: Int) -> Bool {
            for next in successors(index) {
                if next == start || (visited.insert(next).inserted && search(next)) {
                    path.append(index)
                    return true
                }
            }
            return false
        }
        guard search(start) else { return nil }
        let names = path.reversed().map { entries[$0].ticket.operationName }
        return "waiting for its categories would never end: " + (names + [names[0]]).joined(separator: " waits for ")
    }

    /// Orders the list so that every ticket comes after the tickets it waits for, and otherwise
    /// keeps the present order. Tickets caught in a cycle of waits (which would never finish
    /// anyway) keep their order at the end.
    private func sortByWaits() {
        var remaining = entries
        var sorted: [Entry] = []
        sorted.reserveCapacity(remaining.count)
        while !remaining.isEmpty {
            let ready = remaining.firstIndex { candidate in
                !remaining.contains { other in other.ticket !== candidate.ticket && candidate.ticket.waits(for: other.ticket.operationKey) }
            }
            guard let ready else {
                sorted.append(contentsOf: remaining)
                break
            }
            sorted.append(remaining.remove(at: ready))
        }
        entries = sorted
    }
}
