import Foundation
import StratusWire
import Synchronization

/// The one way a request leaves the client: every operation and every container call sends
/// through it, so each request gets the same treatment.
///
/// It owns what a request means on the client side of the boundary:
/// - the request's context, made when the request is sent: the container, the database, the
///   device, the session of the account the device is signed in to at that moment, the
///   operation and its quality of service;
/// - the rate-limit hold: while the device is held back after a `requestRateLimited` answer,
///   nothing is sent and the request fails at once with the time that remains;
/// - the timeout, on the device's clock: a request that takes longer than its timeout, or
///   outlives its deadline, fails with `networkFailure`, and the message says that the server
///   may still apply it;
/// - the mapping of a service's `WireError` to `CKError`.
package struct RequestPath: Sendable {
    /// The database requests go to, and through it the container and device.
    package let database: CKDatabase
    /// The `CKOperation.operationID` requests carry, if any.
    package var operationID: String?
    /// The quality of service requests are sent with.
    package var qualityOfService: WireQualityOfService
    /// Seconds one request may take: `CKOperation.Configuration`'s default, 60, unless set.
    package var timeout: TimeInterval = 60
    /// When the work as a whole must be done (an operation's resource timeout), if ever.
    package var deadline: Date?

    /// A path to `database` for requests sent with `qualityOfService`.
    package init(database: CKDatabase, operationID: String? = nil, qualityOfService: WireQualityOfService) {
        self.database = database
        self.operationID = operationID
        self.qualityOfService = qualityOfService
    }

    /// The context of a request made now: where it goes, from which device, under the session
    /// the device has at this moment, for which operation.
    package func context() -> WireRequestContext {
        let container = database.container
        return WireRequestContext(
            containerIdentifier: container.containerIdentifier ?? "",
            database: database.databaseScope.wireValue,
            deviceID: container.device.id,
            sessionToken: container.device.sessionToken,
            operationID: operationID,
            qualityOfService: qualityOfService
        )
    }

    /// Sends one request: `call` gets the service and the request's context, made now.
    ///
    /// - Returns: The service's answer, or the `CKError` the request failed with: the rate-limit
    ///   hold, a timeout, or the service's error.
    package func send<Response: Sendable>(
        _ call: @escaping @Sendable (any CloudService, WireRequestContext) async throws(WireError) -> Response
    ) async -> Result<Response, CKError> {
        let container = database.container
        let service = container.service
        let clock = container.device.clock
        let now = clock.now
        if let deadline, now >= deadline { return .failure(Self.timeoutError(resource: true)) }
        if let remaining = container.device.remainingHold(now: now) {
            return .failure(CKError(.requestRateLimited, message: "this device is rate limited for \(remaining) more seconds; nothing was sent", retryAfter: remaining))
        }
        let context = self.context()
        let requestDeadline = timeout.isFinite ? now.addingTimeInterval(timeout) : Date.distantFuture
        let due = min(requestDeadline, deadline ?? .distantFuture)
        let result: Result<Response, CKError> = await withCheckedContinuation { continuation in
            let once = Mutex(false)
            let resume: @Sendable (Result<Response, CKError>) -> Void = { result in
                if !once.withLock({ resumed in defer { resumed = true }; return resumed }) {
                    continuation.resume(returning: result)
                }
            }
            let timer = due < .distantFuture
                ? clock.schedule(at: due) { resume(.failure(Self.timeoutError(resource: due < requestDeadline))) }
                : nil
            // Started on this thread: a service that answers without waiting (the embedded
            // server, mostly) answers before this closure returns, and the caller goes on
            // without a hop to another thread; one that waits goes on concurrently, raced by
            // the timer.
            Task.immediate {
                let result: Result<Response, CKError>
                do throws(WireError) {
                    result = .success(try await call(service, context))
                } catch {
                    result = .failure(CKError(error))
                }
                timer?.cancel()
                resume(result)
            }
        }
        if case .failure(let error) = result, error.code == .requestRateLimited, let wait = error.retryAfterSeconds {
            container.device.holdRequests(until: clock.now.addingTimeInterval(wait))
        }
        return result
    }

    /// The error of a request that timed out. The request may still reach the server and be
    /// applied there, so the message says so: fetch before saving the same change again.
    private static func timeoutError(resource: Bool) -> CKError {
        let limit = resource
            ? "the operation took longer than its configuration's timeoutIntervalForResource"
            : "the request took longer than its configuration's timeoutIntervalForRequest"
        return CKError(
            .networkFailure,
            message: "\(limit); the server may still have applied it, so fetch the records (or use the server record of a serverRecordChanged error) before retrying a save",
            extra: [NSUnderlyingErrorKey: URLError(.timedOut)]
        )
    }
}

extension CKDatabase {
    /// The path requests from this database take.
    package func requestPath(operationID: String? = nil, qualityOfService: WireQualityOfService) -> RequestPath {
        RequestPath(database: self, operationID: operationID, qualityOfService: qualityOfService)
    }
}
