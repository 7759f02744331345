/// CloudKit's rule for atomic modify requests (`CKModifyRecordsOperation.isAtomic`), defined
/// once for the client's checks and the server's.
///
/// When an item of a request fails, the other items of the same zone fail with it, with
/// ``CKErrorCode/batchRequestFailed``, when the request is atomic and either
/// - the zone is atomic (a custom zone: `CKRecordZone.Capabilities.atomic`), whatever the
///   failure, and nothing of the request in that zone is kept; or
/// - the item broke a rule that needs no server state (``WireValidation``: a bad name, key or
///   value, a duplicate ID, a size limit), in any zone, the default zone included: such an item
///   makes the request invalid for its zone before anything is applied (the SDK header's rule
///   for failures found before sending; the server applies it to what reaches it unchecked).
///
/// A failure found against stored data (a conflict, a missing reference target) in a zone that
/// is not atomic fails only its own item. Zones never fail each other.
public enum WireAtomicBatch {
    /// Whether a failed item fails the other items of its zone.
    ///
    /// - Parameters:
    ///   - isAtomic: Whether the request is atomic.
    ///   - zoneIsAtomic: Whether the item's zone applies batches all or nothing.
    ///   - brokeStatelessRule: Whether the item failed a rule that needs no server state.
    public static func failureSpreads(isAtomic: Bool, zoneIsAtomic: Bool, brokeStatelessRule: Bool) -> Bool {
        isAtomic && (zoneIsAtomic || brokeStatelessRule)
    }

    /// The error of an item that failed only because another item of its zone did.
    public static func blocked(inZone zoneName: String) -> WireError {
        WireError(.batchRequestFailed, "not applied: another item of the atomic batch in zone '\(zoneName)' failed")
    }
}
