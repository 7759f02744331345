import Foundation
import StratusCore
import StratusOperations

/// Which CloudKit failures a retry recipe retries, how often, and how long it waits between
/// attempts.
///
/// CloudKit has no retry type; its documentation tells apps to retry transient errors after
/// `retryAfterSeconds`. A policy retries:
/// - `networkUnavailable`, `networkFailure`, `serviceUnavailable`, `zoneBusy` and
///   `requestRateLimited`, always;
/// - `accountTemporarilyUnavailable`, after `.CKAccountChanged` is posted for the container
///   (or at once when the account is already usable again); this wait has no time limit:
///   cancel the recipe (or its task) to end it;
/// - `notAuthenticated`, only when ``retriesNotAuthenticated`` is set, after `.CKAccountChanged`
///   (a sign-in);
/// - `serverResponseLost`, only when ``isIdempotent`` is set: the server may have applied the
///   request, so sending it again must do no harm.
///
/// A policy adds no timeout of its own: each attempt keeps its operation's
/// `timeoutIntervalForRequest` (60 seconds unless set), so a retry never cuts short a request
/// CloudKit would still let finish. A timed-out request fails with `networkFailure` and is
/// retried like it.
///
/// Before a retry it waits the error's `retryAfterSeconds` when the error has one, else an
/// exponential backoff (``initialBackoff`` doubled per retry, at most ``maximumBackoff``),
/// shortened by a random share of up to ``jitter`` drawn from a generator seeded with
/// ``seed``, so two runs with one seed wait the same. Waits use the device's clock
/// (`CloudServer(clock:)`), so a test with a `ManualClock` decides when they end.
///
/// ```swift
/// var policy = RetryPolicy(maximumAttempts: 4, seed: 42)
/// policy.onRetry = { event in print("attempt \(event.attempt) failed: \(event.error.code); waiting \(event.wait)") }
/// let saved = try await database.saveRetrying(record, policy: policy)
/// ```
public struct RetryPolicy: Sendable {
    /// How many attempts in all, the first included: 5 unless set. Values below 1 count as 1.
    public var maximumAttempts: Int

    /// Whether `notAuthenticated` is retried, once `.CKAccountChanged` tells that the account
    /// changed: false unless set.
    public var retriesNotAuthenticated: Bool

    /// Whether the work may safely be sent twice, so that `serverResponseLost` is retried:
    /// false unless set.
    public var isIdempotent: Bool

    /// The backoff before the first retry, in seconds, when the error has no retry-after: 1.
    public var initialBackoff: TimeInterval

    /// The longest backoff, in seconds: 60.
    public var maximumBackoff: TimeInterval

    /// The largest share of a backoff that the random jitter takes off it, from 0 (none) to 1:
    /// 0.5 unless set. Values outside 0...1 are clamped.
    public var jitter: Double

    /// The seed of the jitter's random generator: the same seed waits the same.
    public var seed: UInt64

    /// Called once per retry, after its wait has begun on the clock and before it ends, with
    /// what failed and how long the recipe waits: for logging, and for tests that advance a
    /// `ManualClock` when a wait begins. Called from the recipe's task; keep it short.
    public var onRetry: (@Sendable (RetryEvent) -> Void)?

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maximumAttempts: Attempts in all, the first included.
    ///   - seed: The jitter's seed.
    ///   - retriesNotAuthenticated: Whether `notAuthenticated` is retried after an account change.
    ///   - isIdempotent: Whether `serverResponseLost` is retried.
    public init(maximumAttempts: Int = 5, seed: UInt64 = 0, retriesNotAuthenticated: Bool = false, isIdempotent: Bool = false) {
        self.maximumAttempts = maximumAttempts
        self.seed = seed
        self.retriesNotAuthenticated = retriesNotAuthenticated
        self.isIdempotent = isIdempotent
        self.initialBackoff = 1
        self.maximumBackoff = 60
        self.jitter = 0.5
    }

    /// A policy that never retries: one attempt.
    public static var never: RetryPolicy { RetryPolicy(maximumAttempts: 1) }

    /// ``maximumAttempts``, at least 1.
    var attemptLimit: Int { max(1, maximumAttempts) }

    /// Whether this policy retries `error`.
    ///
    /// - Parameter error: A failure of a request or of one item.
    /// - Returns: true for the transient codes listed on ``RetryPolicy``, under this policy's
    ///   settings; false for every other error, `partialFailure` included (its items decide).
    public func retries(_ error: any Error) -> Bool {
        guard let error = error as? CKError else { return false }
        switch error.code {
        case .networkUnavailable, .networkFailure, .serviceUnavailable, .zoneBusy, .requestRateLimited, .accountTemporarilyUnavailable:
            return true
        case .notAuthenticated:
            return retriesNotAuthenticated
        case .serverResponseLost:
            return isIdempotent
        default:
            return false
        }
    }

    /// Whether a retry of `error` waits for `.CKAccountChanged` rather than for time to pass.
    func waitsForAccountChange(_ error: CKError) -> Bool {
        error.code == .accountTemporarilyUnavailable || error.code == .notAuthenticated
    }

    /// The backoffs this policy waits before each of the first `count` retries when errors
    /// carry no retry-after, as a recipe run with it draws them.
    ///
    /// - Parameter count: How many retries.
    /// - Returns: `count` waits in seconds, each within `(1 - jitter) × base ... base`, where
    ///   base doubles from ``initialBackoff`` up to ``maximumBackoff``.
    public func backoffSchedule(_ count: Int) -> [TimeInterval] {
        var generator = RetryJitterGenerator(seed: seed)
        return (0..<max(0, count)).map { backoff(beforeRetry: $0 + 1, using: &generator) }
    }

    /// The backoff before retry number `retry` (1 for the first retry).
    func backoff(beforeRetry retry: Int, using generator: inout RetryJitterGenerator) -> TimeInterval {
        let initial = Self.finite(initialBackoff, or: 1)
        let ceiling = Self.finite(maximumBackoff, or: 60)
        let exponent = Double(min(max(retry - 1, 0), 62))
        let base = min(ceiling, initial * pow(2, exponent))
        let share = min(1, max(0, jitter.isNaN ? 0 : jitter))
        return base * (1 - share * generator.nextUnit())
    }

    private static func finite(_ value: TimeInterval, or fallback: TimeInterval) -> TimeInterval {
        value.isFinite && value >= 0 ? min(value, CloudRecipeLimits.longestWait) : fallback
    }
}

/// Bounds the recipes keep to, whatever their inputs.
enum CloudRecipeLimits {
    /// The longest single wait a recipe schedules: one day. A longer retry-after is cut to it.
    static let longestWait: TimeInterval = 24 * 60 * 60

    /// `seconds` made safe to schedule: NaN and negatives become 0, more than a day a day.
    static func wait(_ seconds: TimeInterval) -> TimeInterval {
        guard !seconds.isNaN else { return 0 }
        return min(max(0, seconds), longestWait)
    }
}
