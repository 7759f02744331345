import Foundation
import StratusWire

extension CloudServer {
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
