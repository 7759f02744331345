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
}

/// What carries `key` to every `NSSortDescriptor`.
///
/// `key` is declared on this protocol rather than on `NSSortDescriptor` itself: a member of
/// `NSSortDescriptor` named `key` of type `String?` sits next to Foundation's unavailable one,
/// and the Swift 6.3 compiler, reading the method table of a subclass such as
/// ``CKLocationSortDescriptor`` in an optimised build of code that uses it, cannot tell the
/// two apart and crashes ("result is ambiguous").
public protocol SortDescriptorKeyed {}

extension NSSortDescriptor: SortDescriptorKeyed {}

extension SortDescriptorKeyed where Self: NSSortDescriptor {
    /// The key the descriptor sorts on, when it was made with ``init(key:ascending:)`` or as a
    /// ``CKLocationSortDescriptor``.
    public var key: String? {
        guard let path = keyPath as? KeyPath<SortDescriptorKey, String> else { return nil }
        return SortDescriptorKey()[keyPath: path]
    }
}
