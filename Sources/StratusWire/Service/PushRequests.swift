/// `pushes/poll` (a Stratus extension, in the manner of CloudKit Web Services' web courier,
/// whose long poll answers once a notification exists): asks for the device's next push, and
/// acknowledges the one handled before.
public struct WirePushPollRequest: Hashable, Sendable {
    /// The device polling, and its container.
    public var context: WireRequestContext
    /// The ``WirePushDelivery/id`` of the push the device finished handling since its last
    /// poll; nil on the first poll.
    public var acknowledging: Int?

    /// Creates a poll.
    public init(context: WireRequestContext, acknowledging: Int? = nil) {
        self.context = context
        self.acknowledging = acknowledging
    }
}

/// One push handed to a device.
public struct WirePushDelivery: Hashable, Sendable {
    /// Identifies the push, for the device to acknowledge in its next poll.
    public var id: Int
    /// What the push carries.
    public var notification: WireNotification

    /// Creates a delivery.
    public init(id: Int, notification: WireNotification) {
        self.id = id
        self.notification = notification
    }
}

/// The answer to a ``WirePushPollRequest``: the device's next push, once there is one.
public struct WirePushPollResponse: Hashable, Sendable {
    /// The push; nil when the device is no longer registered for pushes (it unregistered,
    /// signed in elsewhere, or went away, or another poll took its place): the device stops
    /// polling.
    public var delivery: WirePushDelivery?

    /// Creates a poll response.
    public init(delivery: WirePushDelivery?) {
        self.delivery = delivery
    }
}
