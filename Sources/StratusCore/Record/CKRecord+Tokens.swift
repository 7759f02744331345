import Foundation
import StratusWire

extension CKRecord {
    /// The full-text tokens of the record's string fields and string lists, as the server's
    /// token search sees them: words split at anything that is not a letter or a digit, folded
    /// to lowercase without diacritics, stop words left out. Each token appears once; the
    /// array is sorted. Encrypted fields are not searchable, so their strings give no tokens.
    ///
    /// A record matches `NSPredicate(format: "self CONTAINS %@", word)` exactly when
    /// `allTokens()` holds every token of `word`.
    public func allTokens() -> [String] {
        wireSnapshot.allTokens.sorted()
    }

    /// The value of `keyPath` when it names a single field, as key-value coding would give it
    /// on Apple's platforms; nil for a path with more than one component (`"a.b"`), which a
    /// record's flat fields cannot follow. Record-coding libraries read fields this way.
    public func value(forKeyPath keyPath: String) -> Any? {
        guard !keyPath.contains(".") else { return nil }
        return object(forKey: keyPath)
    }
}
