/// Comparisons of secret bytes whose running time does not depend on their contents.
///
/// A MAC compared with `==` stops at the first byte that differs, so the time a refusal takes
/// tells an attacker how many leading bytes of a forged MAC were right, and lets them find a
/// valid one byte by byte once the server answers over a network. These comparisons read every
/// byte whatever they hold.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes: every byte pair is read and the differences
    /// are accumulated, so the time taken depends on the lengths alone. Inputs of different
    /// lengths are unequal at once (a length is not secret: every MAC here is 32 bytes).
    package static func equal<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) {
            difference |= x ^ y
        }
        return difference == 0
    }
}
