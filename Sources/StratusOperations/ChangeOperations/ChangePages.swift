import Foundation
import StratusCore
import StratusWire

/// One answer of a change feed: a page of changes, the token that follows it, and whether more
/// changes wait after it.
protocol ChangePage: Sendable {
    /// The server change token after this page.
    var token: [UInt8] { get }
    /// Whether more changes wait after this page.
    var moreComing: Bool { get }
}

extension WireDatabaseChangesResponse: ChangePage {}
extension WireRecordChangesResponse: ChangePage {}

extension CKOperation {
    /// Reads a change feed from `token`, one request a page, as both change-fetching operations
    /// do: with `fetchAll`, until a page says nothing more is coming; without it, one page.
    ///
    /// `page` gets each page, its token, and whether another page follows; the caller delivers
    /// the page's changes from it. Returns the last page and its token, or the error of the
    /// request that failed (pages before it were already handed to `page`).
    func readChanges<Page: ChangePage>(
        from token: CKServerChangeToken?,
        fetchAll: Bool,
        request: (_ since: [UInt8]?) async -> Result<Page, CKError>,
        page: (Page, CKServerChangeToken, _ continues: Bool) -> Void
    ) async -> Result<(last: Page, token: CKServerChangeToken), CKError> {
        var since = token.map { Array($0.bytes) }
        while true {
            switch await request(since) {
            case .failure(let error):
                return .failure(error)
            case .success(let batch):
                let batchToken = CKServerChangeToken(bytes: Data(batch.token))
                let continues = fetchAll && batch.moreComing
                page(batch, batchToken, continues)
                guard continues else { return .success((batch, batchToken)) }
                since = batch.token
            }
        }
    }
}
