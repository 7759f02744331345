import StratusCore

/// Queries come in a later part of Stratus. This class holds, for now, the names CloudKit
/// code already uses with the other operations: ``Cursor`` and ``maximumResults``. It has no
/// initializer yet, so no query can be made and none can silently do nothing.
///
/// CloudKit document: *CKQueryOperation*.
public final class CKQueryOperation: CKDatabaseOperation, @unchecked Sendable {
    /// An opaque position in a query's results.
    public typealias Cursor = CKQueryCursor

    /// The `resultsLimit` that lets the server choose how many records a page holds: 0.
    public static let maximumResults = 0

    private override init() {
        super.init()
    }
}
