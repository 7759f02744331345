import Foundation
import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/registerForPushes(_:registered:)``
    public func registerForPushes(_ context: WireRequestContext, registered: Bool) {
        // A device the server never registered gets no pushes: registering it would leave its
        // polls waiting for pushes that can never come.
        let known = registry.withLock { $0.devices[context.deviceID] != nil }
        guard known || !registered else { return }
        pushes.withLock { $0.register(context.deviceID, registered: registered) }.resume()
    }

    /// - SeeAlso: ``CloudService/pollPushes(_:)``
    public func pollPushes(_ request: WirePushPollRequest) async -> WirePushPollResponse {
        await withCheckedContinuation { (poller: CheckedContinuation<WirePushPollResponse, Never>) in
            pushes.withLock { $0.poll(request.context.deviceID, acknowledging: request.acknowledging, poller) }.resume()
        }
    }
}
