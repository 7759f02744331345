import Foundation

// Foundation on Linux marks `NSSortDescriptor(key:ascending:)` and `key` unavailable. Stratus
// declares them for CloudKit code, carrying the key in a key path whose subscript holds it.

/// The root of the key paths that carry a sort descriptor's key.
public struct SortDescriptorKey {
    /// The key itself, as a key path component.
    public subscript(stratusKey key: String) -> String { key }
}

extension NSSortDescriptor {
    /// Creates a sort descriptor on a record field or system field, as CloudKit code writes it:
    ///
    /// ```swift
    /// query.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
    /// ```
    public convenience init(key: String?, ascending: Bool) {
        self.init(keyPath: \SortDescriptorKey[stratusKey: key ?? ""], ascending: ascending)
    }

    /// The key the descriptor sorts on, when it was made with ``init(key:ascending:)``.
    public var key: String? {
        guard let path = keyPath as? KeyPath<SortDescriptorKey, String> else { return nil }
        return SortDescriptorKey()[keyPath: path]
    }
}
