import Foundation
import StratusWire

extension CloudServer {
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
    /// - Parameters:
    ///   - count: How many requests fail.
    ///   - code: The error they fail with.
    ///   - retryAfter: Seconds the client should wait, under `CKErrorRetryAfterKey`.
    public func failNextRequests(_ count: Int, with code: CKErrorCode, retryAfter: Double? = nil) {
        let error = WireError(
            code,
            "injected failure: \(code) (CloudServer.failNextRequests)",
            retryAfter: code.isRetryable ? retryAfter : nil
        )
        registry.withLock { $0.injectedFailures.append(contentsOf: repeatElement(error, count: max(0, count))) }
    }

    /// Limits the server to `requestsPerSecond` requests, measured on its clock; excess requests
    /// fail with `requestRateLimited` and a `retryAfter` of the time until the next one is
    /// allowed. Pass nil to lift the limit.
    public func rateLimit(requestsPerSecond: Double?) {
        registry.withLock { registry in
            registry.rateLimiter = requestsPerSecond.flatMap { $0 > 0 ? RateLimiter(rate: $0, now: clock.now) : nil }
        }
    }

    /// Makes the server take `delay` seconds, on its clock, to answer each of the next `count`
    /// requests, so that tests can reach the client's request and resource timeouts.
    ///
    /// - Parameters:
    ///   - count: How many requests are delayed, in the order they arrive.
    ///   - delay: Seconds on the server's clock before each is handled.
    public func delayNextRequests(_ count: Int, by delay: TimeInterval) {
        registry.withLock { $0.pendingDelays.append(contentsOf: repeatElement(max(0, delay), count: max(0, count))) }
    }

    /// Every request handled so far, in arrival order: the endpoint, where it went, and the
    /// operation and quality of service it was sent with.
    public var requestLog: [RecordedRequest] {
        registry.withLock { $0.requestLog }
    }
}
