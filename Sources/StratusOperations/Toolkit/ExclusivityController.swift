import Foundation

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
/// - a ticket is released once its operation has finished, or at once when a condition fails.
///
/// Why this cannot deadlock: the first ticket in the list that is not running waits for no
/// ticket (those before it are running and finish), and every operation it depends on is
/// either untied to exclusivity or before it in the list, so it claims and is granted. All of
/// an operation's categories are granted in one step, so two operations sharing two
/// categories cannot each hold one and wait for the other. (An operation in a
/// ``GroupOperation`` that holds the same category gets the category scoped to the group; see
/// ``MutuallyExclusive``.)
final class ExclusivityController: @unchecked Sendable {
    /// The process-wide controller: categories are shared by every queue.
    static let shared = ExclusivityController()

    private enum Claim {
        /// The evaluator has not claimed yet.
        case waiting
        /// The evaluator claimed; `granted` runs when the categories are free.
        case claimed(@Sendable (Bool) -> Void)
        /// Granted: the operation may run, and holds its categories until it finishes.
        case running
    }

    private struct Entry {
        let ticket: ExclusivityTicket
        var claim: Claim
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    /// The number of tickets not yet released, for tests.
    var ticketCount: Int { lock.withLock { entries.count } }

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
            }
            return grantLocked()
        }
        grants.forEach { $0(true) }
    }

    /// Asks for the ticket's categories; `granted` runs once, with true when they are granted
    /// (the operation may run), or false when the ticket was released first.
    func claim(_ ticket: ExclusivityTicket, granted: @escaping @Sendable (Bool) -> Void) {
        let grants: [@Sendable (Bool) -> Void]? = lock.withLock {
            guard let index = entries.firstIndex(where: { $0.ticket === ticket }) else { return nil }
            guard case .waiting = entries[index].claim else { return [] }
            entries[index].claim = .claimed(granted)
            return grantLocked()
        }
        guard let grants else {
            granted(false)
            return
        }
        grants.forEach { $0(true) }
    }

    /// Frees the ticket's categories; a claim still waiting hears false. Releasing twice does
    /// nothing.
    func release(_ ticket: ExclusivityTicket) {
        let (withdrawn, grants): ((@Sendable (Bool) -> Void)?, [@Sendable (Bool) -> Void]) = lock.withLock {
            guard let index = entries.firstIndex(where: { $0.ticket === ticket }) else { return (nil, []) }
            let removed = entries.remove(at: index)
            var withdrawn: (@Sendable (Bool) -> Void)?
            if case .claimed(let waiting) = removed.claim { withdrawn = waiting }
            return (withdrawn, grantLocked())
        }
        withdrawn?(false)
        grants.forEach { $0(true) }
    }

    /// Grants every claim whose categories are free; returns their callbacks, to run after the
    /// lock is given up.
    private func grantLocked() -> [@Sendable (Bool) -> Void] {
        var blocked = Set<String>()
        for entry in entries {
            if case .running = entry.claim { blocked.formUnion(entry.ticket.categories) }
        }
        var grants: [@Sendable (Bool) -> Void] = []
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
