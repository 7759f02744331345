import Foundation

/// Dates as CloudKit Web Services writes them: milliseconds since 1970 as a JSON number; and,
/// beside them under `stratusDate`, the exact date (seconds since 1 January 2001) when the
/// milliseconds do not give it back exactly, as about half of all dates with microseconds do.
enum JSONTimestamp {
    /// The milliseconds since 1970 CKWS writes for `date`.
    static func milliseconds(_ date: Date) -> Double {
        date.timeIntervalSince1970 * 1000
    }

    /// The exact seconds since 2001 to write beside ``milliseconds(_:)``, or nil when the
    /// milliseconds alone give `date` back.
    static func exactSeconds(_ date: Date) -> Double? {
        Date(timeIntervalSince1970: milliseconds(date) / 1000) == date ? nil : date.timeIntervalSinceReferenceDate
    }

    /// The date that `milliseconds` and, when given, `exact` describe; nil when either is not a
    /// finite number or they disagree by a millisecond or more.
    static func date(milliseconds: Double, exact: Double?) -> Date? {
        guard milliseconds.isFinite else { return nil }
        let approximate = Date(timeIntervalSince1970: milliseconds / 1000)
        guard let exact else { return approximate }
        guard exact.isFinite else { return nil }
        let precise = Date(timeIntervalSinceReferenceDate: exact)
        return abs(precise.timeIntervalSince(approximate)) < 0.001 ? precise : nil
    }
}
