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

    /// Counts the request, applies injected failures, delays and the rate limit, and says who
    /// sent it.
    func begin(_ context: WireRequestContext, _ endpoint: RecordedRequest.Endpoint) async throws(WireError) -> RequestScope {
        let record = RecordedRequest(endpoint: endpoint, context: context)
        let logged = registry.withLock { registry in
            guard registry.pendingDelays.isEmpty else { return false }
            registry.requestLog.append(record)
            return true
        }
        if !logged {
            // Log the request and schedule its delay in one step, so a test that sees the
            // request logged and advances the clock always reaches the delay.
            let clock = self.clock
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let scheduled = registry.withLock { registry in
                    registry.requestLog.append(record)
                    guard !registry.pendingDelays.isEmpty else { return false }
                    let delay = registry.pendingDelays.removeFirst()
                    clock.schedule(after: delay) { continuation.resume() }
                    return true
                }
                if !scheduled { continuation.resume() }
            }
        }
        let now = clock.now
        let admitted = registry.withLock { $0.admit(context, now: now) }
        let (device, container) = try admitted.get()
        let usable = device.status == .available ? device.account : nil
        let user = usable.map { self.userRecordName(account: $0, containerIdentifier: container.identifier) }
        if let account = usable, let user {
            ensureUserRecords(account: account, userRecordName: user, in: container)
        }
        return RequestScope(
            container: container,
            databaseScope: context.database,
            status: device.status,
            account: usable,
            userRecordName: user
        )
    }
}

/// A token bucket on the server's clock.
struct RateLimiter: Sendable {
    let rate: Double
    private var tokens: Double
    private var updated: Date

    init(rate: Double, now: Date) {
        self.rate = rate
        self.tokens = max(1, rate)
        self.updated = now
    }

    /// Takes a token; returns nil when one was available, otherwise the seconds until one is.
    mutating func admit(now: Date) -> Double? {
        let elapsed = max(0, now.timeIntervalSince(updated))
        tokens = min(max(1, rate), tokens + elapsed * rate)
        updated = max(updated, now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return (1 - tokens) / rate
    }
}

extension CloudServer.Registry {
    /// Counts a request and decides whether it goes ahead: injected failures first, then the
    /// rate limit. Unknown devices are treated as devices with no account.
    mutating func admit(_ context: WireRequestContext, now: Date) -> Result<(CloudServer.Device, ContainerStore), WireError> {
        requestCount += 1
        if !injectedFailures.isEmpty {
            return .failure(injectedFailures.removeFirst())
        }
        if let wait = rateLimiter?.admit(now: now) {
            return .failure(WireError(.requestRateLimited, "too many requests; wait \(wait) seconds", retryAfter: wait))
        }
        let identifier = context.containerIdentifier
        let device = devices[context.deviceID] ?? CloudServer.Device(containerIdentifier: identifier, account: nil)
        if let container = containers[identifier] { return .success((device, container)) }
        let container = ContainerStore(identifier: identifier)
        containers[identifier] = container
        return .success((device, container))
    }
}
