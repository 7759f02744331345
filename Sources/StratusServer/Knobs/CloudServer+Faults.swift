import Foundation
import StratusWire

extension CloudServer {
    /// The longest delay or retry-after a test knob takes: one year. Longer values, infinity
    /// included, are clamped to it with a warning; no timer or date is ever made from more.
    public static let longestKnobInterval: TimeInterval = 365 * 24 * 60 * 60

    /// How many deleted records a zone remembers unless ``changeHistoryLimit`` is set: 10,000.
    public static let defaultChangeHistoryLimit = StoreSettings.defaultTombstoneLimit

    /// How many deleted records each zone remembers for change fetches (at least; a quarter
    /// more may wait to be dropped): ``defaultChangeHistoryLimit`` unless set. A change token
    /// from before the oldest deletion dropped has expired: fetching with it fails with
    /// `changeTokenExpired`, and a fetch from nil recovers the zone. Values below zero count as
    /// zero.
    public var changeHistoryLimit: Int {
        get { storeSettings.tombstoneLimit }
        set { storeSettings.tombstoneLimit = max(0, newValue) }
    }

    /// How many requests ``requestLog`` keeps unless ``requestLogLimit`` is set: 10,000.
    public static let defaultRequestLogLimit = RequestLog.defaultLimit

    /// The number of requests the server has handled so far: every call across the service
    /// boundary except `accountStatus`, including requests that failed.
    public var requestCount: Int {
        registry.withLock { $0.requestCount }
    }

    /// Makes the next `count` requests fail as a whole with `code`, in the order they arrive.
    ///
    /// The failure is the request's error: an operation reports it as its final error, and
    /// per-item callbacks get the same error. `retryAfter` is attached only to retryable codes
    /// (``CKErrorCode/isRetryable``), as CloudKit's server does.
    ///
    /// Any count is cheap, `Int.max` included; a count of zero or less fails nothing. A
    /// `retryAfter` that is not a number or negative is dropped, and one longer than
    /// ``longestKnobInterval`` (infinity included) is clamped to it, each with a warning on
    /// standard error.
    ///
    /// - Parameters:
    ///   - count: How many requests fail.
    ///   - code: The error they fail with.
    ///   - retryAfter: Seconds the client should wait, under `CKErrorRetryAfterKey`.
    public func failNextRequests(_ count: Int, with code: CKErrorCode, retryAfter: Double? = nil) {
        let wait = retryAfter.flatMap { Self.checkedInterval($0, knob: "failNextRequests(_:with:retryAfter:)", negative: nil) }
        let error = WireError(
            code,
            "injected failure: \(code) (CloudServer.failNextRequests)",
            retryAfter: code.isRetryable ? wait : nil
        )
        registry.withLock { $0.injectedFailures.append(error, count: count) }
    }

    /// Limits the server to `requestsPerSecond` requests, measured on its clock; excess requests
    /// fail with `requestRateLimited` and a `retryAfter` of the time until the next one is
    /// allowed. Pass nil, zero or less, or infinity to lift the limit; a value that is not a
    /// number lifts it too, with a warning on standard error.
    public func rateLimit(requestsPerSecond: Double?) {
        if let rate = requestsPerSecond, rate.isNaN {
            runtimeWarning("rateLimit(requestsPerSecond:) was given NaN; the rate limit is lifted")
        }
        registry.withLock { registry in
            registry.rateLimiter = requestsPerSecond.flatMap { $0 > 0 && $0.isFinite ? RateLimiter(rate: $0, now: clock.now) : nil }
        }
    }

    /// Makes the server take `delay` seconds, on its clock, to answer each of the next `count`
    /// requests, so that tests can reach the client's request and resource timeouts.
    ///
    /// Any count is cheap, `Int.max` included. A delay of zero answers at once; one that is
    /// not a number or negative counts as zero, and one longer than ``longestKnobInterval`` (infinity included) is clamped to
    /// it, each with a warning on standard error.
    ///
    /// - Parameters:
    ///   - count: How many requests are delayed, in the order they arrive.
    ///   - delay: Seconds on the server's clock before each is handled.
    public func delayNextRequests(_ count: Int, by delay: TimeInterval) {
        let checked = Self.checkedInterval(delay, knob: "delayNextRequests(_:by:)", negative: 0) ?? 0
        registry.withLock { $0.pendingDelays.append(checked, count: count) }
    }

    /// The newest requests handled, at most ``requestLogLimit`` of them, in arrival order: the
    /// endpoint, where each went, and the operation and quality of service it was sent with.
    public var requestLog: [RecordedRequest] {
        registry.withLock { $0.requestLog.requests }
    }

    /// How many requests ``requestLog`` keeps: ``defaultRequestLogLimit`` unless set. Older
    /// requests are dropped, so a long-lived server does not grow without end; ``requestCount``
    /// still counts them all. Values below zero count as zero (keep none).
    public var requestLogLimit: Int {
        get { registry.withLock { $0.requestLog.limit } }
        set { registry.withLock { $0.requestLog.limit = max(0, newValue) } }
    }

    /// `value` made safe for a knob: NaN and negative values become `negative` (nil: dropped),
    /// values over ``longestKnobInterval`` become it; each change is reported.
    private static func checkedInterval(_ value: TimeInterval, knob: String, negative: TimeInterval?) -> TimeInterval? {
        if value.isNaN || value < 0 {
            runtimeWarning("\(knob) was given \(value) seconds; \(negative.map { "\($0) seconds are used" } ?? "it is ignored")")
            return negative
        }
        if value > longestKnobInterval {
            runtimeWarning("\(knob) was given \(value) seconds; it is clamped to \(longestKnobInterval) seconds (one year)")
            return longestKnobInterval
        }
        return value
    }
}
