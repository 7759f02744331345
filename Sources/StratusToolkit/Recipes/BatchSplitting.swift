import StratusCore
import StratusOperations
import StratusWire

/// How ``BatchModifyOperation`` and `CKDatabase.modifyRecordsInBatches(...)` split a large
/// modification into requests.
///
/// CloudKit documents 400 items and 2 MB of record data (assets excluded) per request as
/// guidelines the server may lower, answering `limitExceeded`, and tells apps to split such a
/// batch in half and retry both halves. The recipe splits by zone first, keeps records that
/// reference each other (fields and `parent`) in one request where they fit, pre-splits at
/// these limits, and halves again on `limitExceeded`.
public struct BatchSplitting: Sendable {
    /// The most items (saves and deletes) the recipe puts in one request: 400 unless set.
    public var maximumItemsPerRequest: Int

    /// The most bytes of record data, as the server counts them (field keys and values of the
    /// keys a save sends, and record names of deletes), the recipe puts in one request: 2 MB
    /// (2,097,152) unless set.
    public var maximumBytesPerRequest: Int

    /// Whether an atomic batch (an atomic request's items in an atomic zone: any custom zone)
    /// may be split over several requests, each then all or nothing on its own: false unless set.
    /// When false, an atomic batch too large for one request fails with `limitExceeded`, every
    /// item of it, without a request.
    public var allowsSplittingAtomicBatches: Bool

    /// Creates a splitting setting.
    ///
    /// - Parameters:
    ///   - maximumItemsPerRequest: The most items per request; values below 1 count as 1.
    ///   - maximumBytesPerRequest: The most bytes of record data per request.
    ///   - allowsSplittingAtomicBatches: Whether atomic batches may be split.
    public init(
        maximumItemsPerRequest: Int = WireLimits.maximumItemsPerRequest,
        maximumBytesPerRequest: Int = WireLimits.maximumRequestBytes,
        allowsSplittingAtomicBatches: Bool = false
    ) {
        self.maximumItemsPerRequest = maximumItemsPerRequest
        self.maximumBytesPerRequest = maximumBytesPerRequest
        self.allowsSplittingAtomicBatches = allowsSplittingAtomicBatches
    }
}
