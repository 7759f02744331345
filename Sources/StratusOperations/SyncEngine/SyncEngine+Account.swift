import Foundation
import StratusCore

// The checks at the start of every sync: the database is one the engine can sync, an
// account is signed in (and whether it is the one the state belongs to), and the engine's
// database subscription exists.

extension CKSyncEngine {
    /// Makes sure the engine may sync, delivering an account change first when the device's
    /// account is not the one the state belongs to.
    ///
    /// - Throws: `invalidArguments` on the public database; `notAuthenticated` or
    ///   `accountTemporarilyUnavailable` while the engine is dormant; the error of fetching
    ///   the user's record ID.
    func prepare(_ run: SyncRun) async throws {
        guard database.databaseScope != .public else {
            throw CKError(.invalidArguments, message: "CKSyncEngine syncs a private or shared database; the public database has no change tracking to sync with")
        }
        try run.checkCancellation()
        try await checkAccount()
        try run.checkCancellation()
        await ensureSubscription(run)
    }

    private func checkAccount() async throws {
        let status = (try? await database.container.accountStatus()) ?? .couldNotDetermine
        guard status == .available else {
            control.withLock { control in
                control.currentUser = nil
                control.accountMayHaveChanged = true
            }
            if status == .noAccount, let previous = state.read(\.userRecordName) {
                let previousUser = CKRecord.ID(recordName: previous)
                await deliver(.accountChange(.init(changeType: .signOut(previousUser: previousUser))), before: {
                    state.update { $0.reset(for: nil) }
                })
            }
            if status == .temporarilyUnavailable {
                throw CKError(.accountTemporarilyUnavailable, message: "CKSyncEngine is waiting: the device's iCloud account is temporarily unavailable; it syncs again when .CKAccountChanged says the account is ready")
            }
            throw CKError(.notAuthenticated, message: "CKSyncEngine is dormant: no usable iCloud account is signed in on this device; it syncs again once one signs in")
        }
        let cached = control.withLock { $0.accountMayHaveChanged ? nil : $0.currentUser }
        let current: CKRecord.ID
        if let cached {
            current = cached
        } else {
            current = try await database.container.userRecordID()
            control.withLock { control in
                control.currentUser = current
                control.accountMayHaveChanged = false
            }
        }
        switch state.read(\.userRecordName) {
        case current.recordName:
            return
        case nil:
            await deliver(.accountChange(.init(changeType: .signIn(currentUser: current))), before: {
                state.update { $0.bind(to: current.recordName) }
            })
        case let previous?:
            let previousUser = CKRecord.ID(recordName: previous)
            await deliver(.accountChange(.init(changeType: .switchAccounts(previousUser: previousUser, currentUser: current))), before: {
                state.update { $0.reset(for: current.recordName) }
            })
        }
    }

    /// Saves the engine's database subscription once per user, silently (content-available
    /// only). A failure is not the sync's: it is tried again at the next sync.
    private func ensureSubscription(_ run: SyncRun) async {
        guard state.read(\.subscriptionID) != subscriptionID else { return }
        let subscription = CKDatabaseSubscription(subscriptionID: subscriptionID)
        let info = CKSubscription.NotificationInfo()
        info.shouldSendContentAvailable = true
        subscription.notificationInfo = info
        let operation = CKModifySubscriptionsOperation(subscriptionsToSave: [subscription], subscriptionIDsToDelete: nil)
        let saved = Locked(false)
        operation.perSubscriptionSaveBlock = { _, result in
            if case .success = result { saved.value = true }
        }
        await run.execute(operation, group: CKOperationGroup())
        guard saved.value else { return }
        let id = subscriptionID
        await commit { $0.subscriptionID = id }
    }
}
