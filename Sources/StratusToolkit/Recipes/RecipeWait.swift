import Foundation
import StratusCore
import StratusOperations
import StratusWire
import Synchronization

/// The two waits of the recipes: time on the device's clock, and `.CKAccountChanged` for one
/// container. Both end early, returning false, when the waiting task is cancelled.
enum RecipeWait {
    /// Waits before a retry after `errors`, which `policy` retries: until the account changes
    /// when one of them asks for that, or else for the largest retry-after among them, or the
    /// policy's backoff before retry number `retry`; tells `policy.onRetry` once the wait has
    /// begun.
    ///
    /// - Returns: false when the task was cancelled first.
    static func beforeRetry(
        after errors: [CKError],
        attempt: Int,
        retry: Int,
        recordIDs: [CKRecord.ID] = [],
        policy: RetryPolicy,
        generator: inout RetryJitterGenerator,
        in container: CKContainer
    ) async -> Bool {
        guard let loudest = errors.max(by: { ($0.retryAfterSeconds ?? -1) < ($1.retryAfterSeconds ?? -1) }) else { return !Task.isCancelled }
        if let accountError = errors.first(where: policy.waitsForAccountChange) {
            let event = RetryEvent(attempt: attempt, error: accountError, wait: .accountChange, recordIDs: recordIDs)
            return await accountChange(of: container) { policy.onRetry?(event) }
        }
        let seconds = CloudRecipeLimits.wait(loudest.retryAfterSeconds ?? policy.backoff(beforeRetry: retry, using: &generator))
        let event = RetryEvent(attempt: attempt, error: loudest, wait: .seconds(seconds), recordIDs: recordIDs)
        return await self.seconds(seconds, on: container.device.clock) { policy.onRetry?(event) }
    }

    /// Waits `seconds` on `clock`, calling `announce` once the timer is set.
    ///
    /// - Returns: false when the task was cancelled before the time had passed.
    static func seconds(_ seconds: TimeInterval, on clock: any CloudClock, announce: () -> Void) async -> Bool {
        let wait = OneShotWait()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                wait.begin(continuation)
                let timer = clock.schedule(after: CloudRecipeLimits.wait(seconds)) { wait.end(true) }
                wait.onEnd { timer.cancel() }
                announce()
            }
        } onCancel: {
            wait.end(false)
        }
    }

    /// Waits until `.CKAccountChanged` is posted for `container`'s device, or returns at once
    /// when its account is already available; calls `announce` once the wait has begun.
    ///
    /// The observer is in place before the status is read, so a change posted in between is
    /// not missed.
    ///
    /// - Returns: false when the task was cancelled first.
    static func accountChange(of container: CKContainer, announce: () -> Void) async -> Bool {
        let wait = OneShotWait()
        let device = container.device
        let observer = NotificationCenter.default.addObserver(forName: .CKAccountChanged, object: nil, queue: nil) { notification in
            if let changed = notification.object as? CKContainer, changed.device === device { wait.end(true) }
        }
        let token = UncheckedBox(value: observer)
        wait.onEnd { NotificationCenter.default.removeObserver(token.value) }
        let isAvailable = (try? await container.accountStatus()) == .available
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                wait.begin(continuation)
                announce()
                if isAvailable { wait.end(true) }
            }
        } onCancel: {
            wait.end(false)
        }
    }
}

/// A wait that ends once, with the first outcome given: a timer's, a notification's or a
/// cancellation's. An outcome that comes before the continuation is there is kept for it.
final class OneShotWait: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Bool, Never>?
        var outcome: Bool?
        var cleanups: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// Hands over the continuation; resumes it at once when the wait already ended.
    func begin(_ continuation: CheckedContinuation<Bool, Never>) {
        let ended = state.withLock { state -> Bool? in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let ended { continuation.resume(returning: ended) }
    }

    /// Runs `cleanup` when the wait ends, or now if it has ended.
    func onEnd(_ cleanup: @escaping @Sendable () -> Void) {
        let ended = state.withLock { state -> Bool in
            guard state.outcome == nil else { return true }
            state.cleanups.append(cleanup)
            return false
        }
        if ended { cleanup() }
    }

    /// Ends the wait with `outcome`; later calls do nothing.
    func end(_ outcome: Bool) {
        let (continuation, cleanups) = state.withLock { state -> (CheckedContinuation<Bool, Never>?, [@Sendable () -> Void]) in
            guard state.outcome == nil else { return (nil, []) }
            state.outcome = outcome
            defer {
                state.continuation = nil
                state.cleanups = []
            }
            return (state.continuation, state.cleanups)
        }
        cleanups.forEach { $0() }
        continuation?.resume(returning: outcome)
    }
}
