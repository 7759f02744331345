import Stratus

// CloudKit's legacy blocks are deprecated; tests reach them through these protocols so that
// checking them does not warn (the build treats warnings as errors).

protocol LegacyFetchRecordsBlocks: AnyObject {
    var perRecordCompletionBlock: ((CKRecord?, CKRecord.ID?, (any Error)?) -> Void)? { get set }
    var fetchRecordsCompletionBlock: (([CKRecord.ID: CKRecord]?, (any Error)?) -> Void)? { get set }
}

protocol LegacyModifyRecordsBlocks: AnyObject {
    var perRecordCompletionBlock: ((CKRecord, (any Error)?) -> Void)? { get set }
    var modifyRecordsCompletionBlock: (([CKRecord]?, [CKRecord.ID]?, (any Error)?) -> Void)? { get set }
}

protocol LegacyQueryBlocks: AnyObject {
    var recordFetchedBlock: ((CKRecord) -> Void)? { get set }
    var queryCompletionBlock: ((CKQueryOperation.Cursor?, (any Error)?) -> Void)? { get set }
}

protocol LegacyFetchRecordZonesBlocks: AnyObject {
    var fetchRecordZonesCompletionBlock: (([CKRecordZone.ID: CKRecordZone]?, (any Error)?) -> Void)? { get set }
}

protocol LegacyModifyRecordZonesBlocks: AnyObject {
    var modifyRecordZonesCompletionBlock: (([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?) -> Void)? { get set }
}

protocol LegacyConfigurationSpellings: AnyObject {
    var container: CKContainer? { get set }
    var allowsCellularAccess: Bool { get set }
    var isLongLived: Bool { get set }
    var timeoutIntervalForRequest: TimeInterval { get set }
    var timeoutIntervalForResource: TimeInterval { get set }
    var usesBackgroundSession: Bool { get set }
}

extension CKFetchRecordsOperation: LegacyFetchRecordsBlocks {}

extension CKModifyRecordsOperation: LegacyModifyRecordsBlocks {}

extension CKQueryOperation: LegacyQueryBlocks {}

extension CKFetchRecordZonesOperation: LegacyFetchRecordZonesBlocks {}

extension CKModifyRecordZonesOperation: LegacyModifyRecordZonesBlocks {}

extension CKOperation: LegacyConfigurationSpellings {}

protocol LegacyRecordZoneChangesBlocks: AnyObject {
    var recordChangedBlock: ((CKRecord) -> Void)? { get set }
    var recordZoneFetchCompletionBlock: ((CKRecordZone.ID, CKServerChangeToken?, Data?, Bool, (any Error)?) -> Void)? { get set }
    var fetchRecordZoneChangesCompletionBlock: (((any Error)?) -> Void)? { get set }
}

extension CKFetchRecordZoneChangesOperation: LegacyRecordZoneChangesBlocks {}

protocol LegacyDatabaseChangesBlocks: AnyObject {
    var fetchDatabaseChangesCompletionBlock: ((CKServerChangeToken?, Bool, (any Error)?) -> Void)? { get set }
}

extension CKFetchDatabaseChangesOperation: LegacyDatabaseChangesBlocks {}

protocol LegacyFetchSubscriptionsBlocks: AnyObject {
    var fetchSubscriptionCompletionBlock: (([CKSubscription.ID: CKSubscription]?, (any Error)?) -> Void)? { get set }
}

extension CKFetchSubscriptionsOperation: LegacyFetchSubscriptionsBlocks {}

protocol LegacyModifySubscriptionsBlocks: AnyObject {
    var modifySubscriptionsCompletionBlock: (([CKSubscription]?, [CKSubscription.ID]?, (any Error)?) -> Void)? { get set }
}

extension CKModifySubscriptionsOperation: LegacyModifySubscriptionsBlocks {}
