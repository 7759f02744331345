import Stratus
import XCTest

/// Every block of every operation (per-item, final, legacy, and `CKOperation`'s own) is released
/// once the operation finishes, whether it ran or was cancelled, while the operation itself is
/// still alive; so blocks that capture their operation never keep it alive. A block set after
/// that is dropped at once, and setting it does not crash.
///
/// A new operation class adds one line to the test and a list of its block properties below.
final class BlockReleaseTests: OperationTestCase {
    func testEveryBlockOfEveryOperationIsReleasedWhenItFinishesAndOneSetLaterIsDropped() async throws {
        try await seed([note("a")])
        for cancelled in [false, true] {
            await assertBlocksReleased(CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "a"), CKRecord.ID(recordName: "missing")]), fetchRecordsBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKModifyRecordsOperation(recordsToSave: [note("b")], recordIDsToDelete: [CKRecord.ID(recordName: "gone")]), modifyRecordsBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKQueryOperation(query: CKQuery(recordType: "Note", predicate: NSPredicate(value: true))), queryBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKFetchRecordZonesOperation.fetchAllRecordZonesOperation(), fetchRecordZonesBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneName: "z")], recordZoneIDsToDelete: [CKRecordZone.ID(zoneName: "never")]), modifyRecordZonesBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKFetchRecordZoneChangesOperation(recordZoneIDs: [CKRecordZone.ID(zoneName: "z"), CKRecordZone.ID(zoneName: "never")]), recordZoneChangesBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKFetchDatabaseChangesOperation(previousServerChangeToken: nil), databaseChangesBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKFetchSubscriptionsOperation(subscriptionIDs: ["never"]), fetchSubscriptionsBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKModifySubscriptionsOperation(subscriptionsToSave: [CKDatabaseSubscription(subscriptionID: "all")], subscriptionIDsToDelete: ["never"]), modifySubscriptionsBlocks, cancelled: cancelled)
        }
    }

    /// The discovery operations are deprecated (iOS 17), so their check is marked deprecated too.
    @available(*, deprecated)
    func testEveryBlockOfEveryDiscoveryOperationIsReleasedWhenItFinishesAndOneSetLaterIsDropped() async throws {
        let infos = [CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")]
        for cancelled in [false, true] {
            await assertBlocksReleased(CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: infos), discoverUserIdentitiesBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKDiscoverAllUserIdentitiesOperation(), discoverAllUserIdentitiesBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKDiscoverAllContactsOperation(), discoverAllContactsBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKDiscoverUserInfosOperation(emailAddresses: ["ann@example.com"], userRecordIDs: nil), discoverUserInfosBlocks, cancelled: cancelled)
        }
    }

    /// The notification-collection operations are deprecated (iOS 11), so their check is
    /// marked deprecated too.
    @available(*, deprecated)
    func testEveryBlockOfEveryNotificationCollectionOperationIsReleasedWhenItFinishesAndOneSetLaterIsDropped() async throws {
        let subscription = CKDatabaseSubscription(subscriptionID: "all")
        let info = CKSubscription.NotificationInfo()
        info.shouldSendContentAvailable = true
        subscription.notificationInfo = info
        _ = try await database.save(subscription)
        _ = try await database.save(CKRecordZone(zoneName: "z"))
        for cancelled in [false, true] {
            await assertBlocksReleased(CKFetchNotificationChangesOperation(previousServerChangeToken: nil), fetchNotificationChangesBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKMarkNotificationsReadOperation(notificationIDsToMarkRead: []), markNotificationsReadBlocks, cancelled: cancelled)
            await assertBlocksReleased(CKModifyBadgeOperation(badgeValue: 1), modifyBadgeBlocks, cancelled: cancelled)
        }
    }

    // MARK: - Every block property, per operation

    private func operationBlocks<Operation: CKOperation>() -> [BlockProperty<Operation>] {
        [BlockProperty("longLivedOperationWasPersistedBlock", { $0.longLivedOperationWasPersistedBlock = { [canary = $1] in _ = canary } }, { $0.longLivedOperationWasPersistedBlock != nil })]
    }

    private var fetchRecordsBlocks: [BlockProperty<CKFetchRecordsOperation>] {
        operationBlocks() + [
            BlockProperty("perRecordProgressBlock", { $0.perRecordProgressBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perRecordProgressBlock != nil }),
            BlockProperty("perRecordResultBlock", { $0.perRecordResultBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perRecordResultBlock != nil }),
            BlockProperty("fetchRecordsResultBlock", { $0.fetchRecordsResultBlock = { [canary = $1] _ in _ = canary } }, { $0.fetchRecordsResultBlock != nil }),
            BlockProperty("perRecordCompletionBlock", { ($0 as any LegacyFetchRecordsBlocks).perRecordCompletionBlock = { [canary = $1] _, _, _ in _ = canary } }, { ($0 as any LegacyFetchRecordsBlocks).perRecordCompletionBlock != nil }),
            BlockProperty("fetchRecordsCompletionBlock", { ($0 as any LegacyFetchRecordsBlocks).fetchRecordsCompletionBlock = { [canary = $1] _, _ in _ = canary } }, { ($0 as any LegacyFetchRecordsBlocks).fetchRecordsCompletionBlock != nil }),
        ]
    }

    private var modifyRecordsBlocks: [BlockProperty<CKModifyRecordsOperation>] {
        operationBlocks() + [
            BlockProperty("perRecordProgressBlock", { $0.perRecordProgressBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perRecordProgressBlock != nil }),
            BlockProperty("perRecordSaveBlock", { $0.perRecordSaveBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perRecordSaveBlock != nil }),
            BlockProperty("perRecordDeleteBlock", { $0.perRecordDeleteBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perRecordDeleteBlock != nil }),
            BlockProperty("modifyRecordsResultBlock", { $0.modifyRecordsResultBlock = { [canary = $1] _ in _ = canary } }, { $0.modifyRecordsResultBlock != nil }),
            BlockProperty("perRecordCompletionBlock", { ($0 as any LegacyModifyRecordsBlocks).perRecordCompletionBlock = { [canary = $1] _, _ in _ = canary } }, { ($0 as any LegacyModifyRecordsBlocks).perRecordCompletionBlock != nil }),
            BlockProperty("modifyRecordsCompletionBlock", { ($0 as any LegacyModifyRecordsBlocks).modifyRecordsCompletionBlock = { [canary = $1] _, _, _ in _ = canary } }, { ($0 as any LegacyModifyRecordsBlocks).modifyRecordsCompletionBlock != nil }),
        ]
    }

    private var queryBlocks: [BlockProperty<CKQueryOperation>] {
        operationBlocks() + [
            BlockProperty("recordMatchedBlock", { $0.recordMatchedBlock = { [canary = $1] _, _ in _ = canary } }, { $0.recordMatchedBlock != nil }),
            BlockProperty("queryResultBlock", { $0.queryResultBlock = { [canary = $1] _ in _ = canary } }, { $0.queryResultBlock != nil }),
            BlockProperty("recordFetchedBlock", { ($0 as any LegacyQueryBlocks).recordFetchedBlock = { [canary = $1] _ in _ = canary } }, { ($0 as any LegacyQueryBlocks).recordFetchedBlock != nil }),
            BlockProperty("queryCompletionBlock", { ($0 as any LegacyQueryBlocks).queryCompletionBlock = { [canary = $1] _, _ in _ = canary } }, { ($0 as any LegacyQueryBlocks).queryCompletionBlock != nil }),
        ]
    }

    private var fetchRecordZonesBlocks: [BlockProperty<CKFetchRecordZonesOperation>] {
        operationBlocks() + [
            BlockProperty("perRecordZoneResultBlock", { $0.perRecordZoneResultBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perRecordZoneResultBlock != nil }),
            BlockProperty("fetchRecordZonesResultBlock", { $0.fetchRecordZonesResultBlock = { [canary = $1] _ in _ = canary } }, { $0.fetchRecordZonesResultBlock != nil }),
            BlockProperty("fetchRecordZonesCompletionBlock", { ($0 as any LegacyFetchRecordZonesBlocks).fetchRecordZonesCompletionBlock = { [canary = $1] _, _ in _ = canary } }, { ($0 as any LegacyFetchRecordZonesBlocks).fetchRecordZonesCompletionBlock != nil }),
        ]
    }

    private var fetchSubscriptionsBlocks: [BlockProperty<CKFetchSubscriptionsOperation>] {
        operationBlocks() + [
            BlockProperty("perSubscriptionResultBlock", { $0.perSubscriptionResultBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perSubscriptionResultBlock != nil }),
            BlockProperty("fetchSubscriptionsResultBlock", { $0.fetchSubscriptionsResultBlock = { [canary = $1] _ in _ = canary } }, { $0.fetchSubscriptionsResultBlock != nil }),
            BlockProperty("fetchSubscriptionCompletionBlock", { ($0 as any LegacyFetchSubscriptionsBlocks).fetchSubscriptionCompletionBlock = { [canary = $1] _, _ in _ = canary } }, { ($0 as any LegacyFetchSubscriptionsBlocks).fetchSubscriptionCompletionBlock != nil }),
        ]
    }

    private var modifySubscriptionsBlocks: [BlockProperty<CKModifySubscriptionsOperation>] {
        operationBlocks() + [
            BlockProperty("perSubscriptionSaveBlock", { $0.perSubscriptionSaveBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perSubscriptionSaveBlock != nil }),
            BlockProperty("perSubscriptionDeleteBlock", { $0.perSubscriptionDeleteBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perSubscriptionDeleteBlock != nil }),
            BlockProperty("modifySubscriptionsResultBlock", { $0.modifySubscriptionsResultBlock = { [canary = $1] _ in _ = canary } }, { $0.modifySubscriptionsResultBlock != nil }),
            BlockProperty("modifySubscriptionsCompletionBlock", { ($0 as any LegacyModifySubscriptionsBlocks).modifySubscriptionsCompletionBlock = { [canary = $1] _, _, _ in _ = canary } }, { ($0 as any LegacyModifySubscriptionsBlocks).modifySubscriptionsCompletionBlock != nil }),
        ]
    }

    private var modifyRecordZonesBlocks: [BlockProperty<CKModifyRecordZonesOperation>] {
        operationBlocks() + [
            BlockProperty("perRecordZoneSaveBlock", { $0.perRecordZoneSaveBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perRecordZoneSaveBlock != nil }),
            BlockProperty("perRecordZoneDeleteBlock", { $0.perRecordZoneDeleteBlock = { [canary = $1] _, _ in _ = canary } }, { $0.perRecordZoneDeleteBlock != nil }),
            BlockProperty("modifyRecordZonesResultBlock", { $0.modifyRecordZonesResultBlock = { [canary = $1] _ in _ = canary } }, { $0.modifyRecordZonesResultBlock != nil }),
            BlockProperty("modifyRecordZonesCompletionBlock", { ($0 as any LegacyModifyRecordZonesBlocks).modifyRecordZonesCompletionBlock = { [canary = $1] _, _, _ in _ = canary } }, { ($0 as any LegacyModifyRecordZonesBlocks).modifyRecordZonesCompletionBlock != nil }),
        ]
    }

    private var recordZoneChangesBlocks: [BlockProperty<CKFetchRecordZoneChangesOperation>] {
        operationBlocks() + [
            BlockProperty("recordWasChangedBlock", { $0.recordWasChangedBlock = { [canary = $1] _, _ in _ = canary } }, { $0.recordWasChangedBlock != nil }),
            BlockProperty("recordWithIDWasDeletedBlock", { $0.recordWithIDWasDeletedBlock = { [canary = $1] _, _ in _ = canary } }, { $0.recordWithIDWasDeletedBlock != nil }),
            BlockProperty("recordZoneChangeTokensUpdatedBlock", { $0.recordZoneChangeTokensUpdatedBlock = { [canary = $1] _, _, _ in _ = canary } }, { $0.recordZoneChangeTokensUpdatedBlock != nil }),
            BlockProperty("recordZoneFetchResultBlock", { $0.recordZoneFetchResultBlock = { [canary = $1] _, _ in _ = canary } }, { $0.recordZoneFetchResultBlock != nil }),
            BlockProperty("fetchRecordZoneChangesResultBlock", { $0.fetchRecordZoneChangesResultBlock = { [canary = $1] _ in _ = canary } }, { $0.fetchRecordZoneChangesResultBlock != nil }),
            BlockProperty("recordChangedBlock", { ($0 as any LegacyRecordZoneChangesBlocks).recordChangedBlock = { [canary = $1] _ in _ = canary } }, { ($0 as any LegacyRecordZoneChangesBlocks).recordChangedBlock != nil }),
            BlockProperty("recordZoneFetchCompletionBlock", { ($0 as any LegacyRecordZoneChangesBlocks).recordZoneFetchCompletionBlock = { [canary = $1] _, _, _, _, _ in _ = canary } }, { ($0 as any LegacyRecordZoneChangesBlocks).recordZoneFetchCompletionBlock != nil }),
            BlockProperty("fetchRecordZoneChangesCompletionBlock", { ($0 as any LegacyRecordZoneChangesBlocks).fetchRecordZoneChangesCompletionBlock = { [canary = $1] _ in _ = canary } }, { ($0 as any LegacyRecordZoneChangesBlocks).fetchRecordZoneChangesCompletionBlock != nil }),
        ]
    }

    private var databaseChangesBlocks: [BlockProperty<CKFetchDatabaseChangesOperation>] {
        operationBlocks() + [
            BlockProperty("recordZoneWithIDChangedBlock", { $0.recordZoneWithIDChangedBlock = { [canary = $1] _ in _ = canary } }, { $0.recordZoneWithIDChangedBlock != nil }),
            BlockProperty("recordZoneWithIDWasDeletedBlock", { $0.recordZoneWithIDWasDeletedBlock = { [canary = $1] _ in _ = canary } }, { $0.recordZoneWithIDWasDeletedBlock != nil }),
            BlockProperty("recordZoneWithIDWasPurgedBlock", { $0.recordZoneWithIDWasPurgedBlock = { [canary = $1] _ in _ = canary } }, { $0.recordZoneWithIDWasPurgedBlock != nil }),
            BlockProperty("recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock", { $0.recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock = { [canary = $1] _ in _ = canary } }, { $0.recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock != nil }),
            BlockProperty("changeTokenUpdatedBlock", { $0.changeTokenUpdatedBlock = { [canary = $1] _ in _ = canary } }, { $0.changeTokenUpdatedBlock != nil }),
            BlockProperty("fetchDatabaseChangesResultBlock", { $0.fetchDatabaseChangesResultBlock = { [canary = $1] _ in _ = canary } }, { $0.fetchDatabaseChangesResultBlock != nil }),
            BlockProperty("fetchDatabaseChangesCompletionBlock", { ($0 as any LegacyDatabaseChangesBlocks).fetchDatabaseChangesCompletionBlock = { [canary = $1] _, _, _ in _ = canary } }, { ($0 as any LegacyDatabaseChangesBlocks).fetchDatabaseChangesCompletionBlock != nil }),
        ]
    }

    @available(*, deprecated)
    private var discoverUserIdentitiesBlocks: [BlockProperty<CKDiscoverUserIdentitiesOperation>] {
        operationBlocks() + [
            BlockProperty("userIdentityDiscoveredBlock", { $0.userIdentityDiscoveredBlock = { [canary = $1] _, _ in _ = canary } }, { $0.userIdentityDiscoveredBlock != nil }),
            BlockProperty("discoverUserIdentitiesResultBlock", { $0.discoverUserIdentitiesResultBlock = { [canary = $1] _ in _ = canary } }, { $0.discoverUserIdentitiesResultBlock != nil }),
            BlockProperty("discoverUserIdentitiesCompletionBlock", { $0.discoverUserIdentitiesCompletionBlock = { [canary = $1] _ in _ = canary } }, { $0.discoverUserIdentitiesCompletionBlock != nil }),
        ]
    }

    @available(*, deprecated)
    private var discoverAllUserIdentitiesBlocks: [BlockProperty<CKDiscoverAllUserIdentitiesOperation>] {
        operationBlocks() + [
            BlockProperty("userIdentityDiscoveredBlock", { $0.userIdentityDiscoveredBlock = { [canary = $1] _ in _ = canary } }, { $0.userIdentityDiscoveredBlock != nil }),
            BlockProperty("discoverAllUserIdentitiesResultBlock", { $0.discoverAllUserIdentitiesResultBlock = { [canary = $1] _ in _ = canary } }, { $0.discoverAllUserIdentitiesResultBlock != nil }),
            BlockProperty("discoverAllUserIdentitiesCompletionBlock", { $0.discoverAllUserIdentitiesCompletionBlock = { [canary = $1] _ in _ = canary } }, { $0.discoverAllUserIdentitiesCompletionBlock != nil }),
        ]
    }

    @available(*, deprecated)
    private var discoverAllContactsBlocks: [BlockProperty<CKDiscoverAllContactsOperation>] {
        operationBlocks() + [
            BlockProperty("discoverAllContactsCompletionBlock", { $0.discoverAllContactsCompletionBlock = { [canary = $1] _, _ in _ = canary } }, { $0.discoverAllContactsCompletionBlock != nil }),
        ]
    }

    @available(*, deprecated)
    private var discoverUserInfosBlocks: [BlockProperty<CKDiscoverUserInfosOperation>] {
        operationBlocks() + [
            BlockProperty("discoverUserInfosCompletionBlock", { $0.discoverUserInfosCompletionBlock = { [canary = $1] _, _, _ in _ = canary } }, { $0.discoverUserInfosCompletionBlock != nil }),
        ]
    }

    @available(*, deprecated)
    private var fetchNotificationChangesBlocks: [BlockProperty<CKFetchNotificationChangesOperation>] {
        operationBlocks() + [
            BlockProperty("notificationChangedBlock", { $0.notificationChangedBlock = { [canary = $1] _ in _ = canary } }, { $0.notificationChangedBlock != nil }),
            BlockProperty("fetchNotificationChangesCompletionBlock", { $0.fetchNotificationChangesCompletionBlock = { [canary = $1] _, _ in _ = canary } }, { $0.fetchNotificationChangesCompletionBlock != nil }),
        ]
    }

    @available(*, deprecated)
    private var markNotificationsReadBlocks: [BlockProperty<CKMarkNotificationsReadOperation>] {
        operationBlocks() + [
            BlockProperty("markNotificationsReadCompletionBlock", { $0.markNotificationsReadCompletionBlock = { [canary = $1] _, _ in _ = canary } }, { $0.markNotificationsReadCompletionBlock != nil }),
        ]
    }

    @available(*, deprecated)
    private var modifyBadgeBlocks: [BlockProperty<CKModifyBadgeOperation>] {
        operationBlocks() + [
            BlockProperty("modifyBadgeCompletionBlock", { $0.modifyBadgeCompletionBlock = { [canary = $1] _ in _ = canary } }, { $0.modifyBadgeCompletionBlock != nil }),
        ]
    }

    // MARK: - Checking

    /// Sets every block of `operation` to one that holds its own canary, runs the operation
    /// (cancelled first when asked), and waits for every canary to go while the test still
    /// holds the operation. Then sets every block again and waits for those canaries too.
    private func assertBlocksReleased<Operation: CKOperation>(
        _ operation: Operation,
        _ blocks: [BlockProperty<Operation>],
        cancelled: Bool,
        file: StaticString = #filePath,
        line: UInt = #line
    ) async {
        let label = "\(Operation.self)\(cancelled ? " (cancelled)" : "")"
        let finished = expectation(description: "\(label) finished")
        operation.completionBlock = { finished.fulfill() }
        let released = setEveryBlock(blocks, of: operation, label: label)
        for block in blocks {
            XCTAssertTrue(block.isSet(operation), "\(label).\(block.name) reads back nil", file: file, line: line)
        }
        if cancelled { operation.cancel() }
        if let operation = operation as? CKDatabaseOperation {
            database.add(operation)
        } else {
            database.container.add(operation)
        }
        await fulfillment(of: released + [finished], timeout: 10)
        XCTAssertTrue(operation.isFinished, label, file: file, line: line)
        for block in blocks {
            XCTAssertFalse(block.isSet(operation), "\(label).\(block.name) is still set after finishing", file: file, line: line)
        }

        let dropped = setEveryBlock(blocks, of: operation, label: "\(label), set after finishing")
        await fulfillment(of: dropped, timeout: 10)
        for block in blocks {
            XCTAssertFalse(block.isSet(operation), "\(label).\(block.name) set after finishing was kept", file: file, line: line)
        }
        withExtendedLifetime(operation) {}
    }

    /// Sets each of `blocks` on `operation` to a block holding a fresh canary; the expectations
    /// are fulfilled as the canaries go away.
    private func setEveryBlock<Operation>(_ blocks: [BlockProperty<Operation>], of operation: Operation, label: String) -> [XCTestExpectation] {
        blocks.map { block in
            let released = expectation(description: "\(label).\(block.name) released")
            block.set(operation, Canary(released))
            return released
        }
    }
}

/// One block property of an operation: how to set it to a block that holds a canary, and
/// whether it is set.
private struct BlockProperty<Operation> {
    let name: String
    let set: (Operation, Canary) -> Void
    let isSet: (Operation) -> Bool

    init(_ name: String, _ set: @escaping (Operation, Canary) -> Void, _ isSet: @escaping (Operation) -> Bool) {
        self.name = name
        self.set = set
        self.isSet = isSet
    }
}

/// An object that fulfils an expectation when it is deallocated.
private final class Canary {
    private let released: XCTestExpectation

    init(_ released: XCTestExpectation) {
        self.released = released
    }

    deinit {
        released.fulfill()
    }
}
