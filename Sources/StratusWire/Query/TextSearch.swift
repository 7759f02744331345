import Foundation

/// CloudKit's string rules for queries: equality and prefixes are case- and
/// diacritic-sensitive, full-text tokens are not and skip stop words, and strings sort by
/// Unicode scalar values.
public enum TextSearch {
    /// The words full-text search ignores (cloudkit-api.md §15).
    public static let stopWords: Set<String> = [
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
        "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
        "they", "this", "to", "was", "will", "with",
    ]

    /// The searchable tokens of `text`: words split at anything that is not a letter or a
    /// digit, folded to lowercase without diacritics, stop words removed.
    public static func tokens(of text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var tokens: [String] = []
        var current = ""
        for scalar in folded.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens.filter { !stopWords.contains($0) }
    }

    /// Whether `lhs` sorts before `rhs` by Unicode scalar values.
    public static func scalarOrder(_ lhs: String, _ rhs: String) -> Bool {
        lhs.unicodeScalars.lexicographicallyPrecedes(rhs.unicodeScalars)
    }
}
