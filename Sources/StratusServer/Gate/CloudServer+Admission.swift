import Foundation
import StratusWire

extension CloudServer {
    /// The request gate: logs the request and fixes who sent it, as it arrives; then waits out an injected delay,
    /// counts it, applies injected failures and the rate limit, and says where it goes.
    ///
    /// The account is bound on arrival from the request's session, never read from the device
    /// later: a device that signs in to another account while the request is delayed does not
    /// move it to the other account's data.
    ///
    /// A request from a device that is offline (``setOffline(_:forDevice:)``) fails with
    /// `networkUnavailable`: it never reached the server, so it is neither logged nor counted.
    func pass(_ context: WireRequestContext, _ endpoint: RecordedRequest.Endpoint) async throws(WireError) -> RequestScope {
        if isOffline(context.deviceID) {
            throw WireError(.networkUnavailable, "the device is offline; the request did not reach the server")
        }
        let record = RecordedRequest(endpoint: endpoint, context: context)
        var binding = registry.withLock { registry -> Result<Caller, WireError>? in
            guard registry.pendingDelays.isEmpty else { return nil }
            registry.requestLog.append(record)
            return registry.bind(context)
        }
        if binding == nil {
            // Log the request and schedule its delay in one step, so a test that sees the
            // request logged and advances the clock always reaches the delay.
            let clock = self.clock
            binding = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Caller, WireError>, Never>) in
                registry.withLock { registry in
                    registry.requestLog.append(record)
                    let bound = registry.bind(context)
                    if let delay = registry.pendingDelays.popFirst(), delay > 0 {
                        clock.schedule(after: delay) { continuation.resume(returning: bound) }
                    } else {
                        continuation.resume(returning: bound)
                    }
                }
            }
        }
        let now = clock.now
        let container = try registry.withLock { $0.admit(context, now: now) }.get()
        guard let caller = try binding?.get() else { throw WireError(.internalError, "the request was not bound to a caller") }
        return RequestScope(
            container: container,
            deviceID: context.deviceID,
            databaseScope: context.database,
            status: caller.status,
            account: caller.account,
            userRecordName: caller.userRecordName
        )
    }

    /// Who sent a request, fixed when it arrived: the account its session names and that
    /// account's state on the device.
    struct Caller: Sendable {
        /// The account, when its state lets it work.
        var account: String?
        /// The account's user record name in the device's container.
        var userRecordName: String?
        var status: WireAccountStatus
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
    /// The caller of a request that arrives now: the device's account when the request
    /// carries the device's current session, no account when it carries none. A session
    /// the device no longer has (it signed in or out since) or a device of another container
    /// is refused.
    func bind(_ context: WireRequestContext) -> Result<CloudServer.Caller, WireError> {
        guard let device = devices[context.deviceID], let session = context.sessionToken else {
            return .success(CloudServer.Caller(account: nil, userRecordName: nil, status: .noAccount))
        }
        guard session == device.sessionToken else {
            return .failure(WireError(.notAuthenticated, "the request was made for an account this device is no longer signed in to; it was not applied"))
        }
        guard device.containerIdentifier == context.containerIdentifier else {
            return .failure(WireError(.badContainer, "the device's session is for container '\(device.containerIdentifier)', not '\(context.containerIdentifier)'"))
        }
        let status = device.status
        let available = status == .available
        return .success(CloudServer.Caller(account: available ? device.account : nil, userRecordName: available ? device.userRecordName : nil, status: status))
    }

    /// Counts a request and decides whether it goes ahead: injected failures first, then the
    /// rate limit.
    mutating func admit(_ context: WireRequestContext, now: Date) -> Result<ContainerStore, WireError> {
        requestCount += 1
        if let failure = injectedFailures.popFirst() {
            return .failure(failure)
        }
        if let wait = rateLimiter?.admit(now: now) {
            return .failure(WireError(.requestRateLimited, "too many requests; wait \(wait) seconds", retryAfter: wait))
        }
        return .success(container(context.containerIdentifier))
    }
}

extension CloudServer {
    /// Whether the device is offline.
    package func isOffline(_ deviceID: String) -> Bool {
        pushes.withLock { $0.isOffline(deviceID) }
    }
}
