import StratusWire

extension CloudServer {
    /// Charges `delta` bytes to `ledger`: the container's public storage, or an account's.
    /// The write pipeline's charge step.
    ///
    /// - Returns: false, charging nothing, when the charge would go over the quota.
    func chargeStorage(_ delta: Int, to ledger: StorageLedger, in container: ContainerStore) -> Bool {
        switch ledger {
        case .publicDatabase:
            return container.publicStorage.withLock { storage in
                if delta > 0, let quota = storage.quota, storage.used + delta > quota { return false }
                storage.used += delta
                return true
            }
        case .account(let account):
            return accountStorage.withLock { ledger in
                var entry = ledger[account, default: (0, nil)]
                if delta > 0, let quota = entry.quota, entry.used + delta > quota { return false }
                entry.used += delta
                ledger[account] = entry
                return true
            }
        case .none:
            return true
        }
    }
}
