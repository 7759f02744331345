import StratusWire

extension CloudServer {
    /// Refuses a request that names more than ``WireLimits/maximumItemsPerRequest`` (400)
    /// items with `limitExceeded`, before anything is read or written; `items` names them in
    /// the message ("share URLs", "subscriptions"). Records have their own wording
    /// (``WireValidation/checkLookupSize(_:)``, ``WireValidation/checkRequestSize(saves:deletes:)``).
    static func checkItemCount(_ count: Int, of items: String) throws(WireError) {
        guard count <= WireLimits.maximumItemsPerRequest else {
            throw WireError(.limitExceeded, "\(count) \(items) in one request; at most \(WireLimits.maximumItemsPerRequest) are allowed")
        }
    }
}
