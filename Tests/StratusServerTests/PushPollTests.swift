import Foundation
import Stratus
import XCTest

/// The push channel at the `CloudService` boundary: a device registers (`pushes/register`) and
/// polls (`pushes/poll`) for its pushes, acknowledging each in its next poll, as a client in
/// another process does.
final class PushPollTests: ServerTestCase {
    private var phone: CKContainer!
    private var laptop: CKContainer!

    override func setUp() {
        super.setUp()
        phone = device("john")
        laptop = device("john")
    }

    override func tearDown() {
        phone = nil
        laptop = nil
        super.tearDown()
    }

    /// The laptop's context, from which it registers and polls.
    private var laptopContext: WireRequestContext { rawContext(laptop.privateCloudDatabase) }

    /// A database subscription of john's, so that each change the phone makes pushes to the laptop.
    private func subscribe() async throws {
        let subscription = WireSubscription(subscriptionID: "all", kind: .database, notificationInfo: WireNotificationInfo(shouldSendContentAvailable: true))
        _ = try await server.modifySubscriptions(WireSubscriptionsModifyRequest(context: rawContext(phone.privateCloudDatabase), saves: [subscription]))
    }

    /// The phone makes a zone: one push to the laptop.
    private func change(_ zoneName: String) async throws {
        _ = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(phone.privateCloudDatabase), saves: [WireZone(zoneID: WireZoneID(zoneName: zoneName))]))
    }

    func testARegisteredDeviceGetsItsPushesInOrderPollByPoll() async throws {
        try await subscribe()
        server.registerForPushes(laptopContext, registered: true)
        try await change("a")
        try await change("b")

        let first = await server.pollPushes(WirePushPollRequest(context: laptopContext))
        let second = await server.pollPushes(WirePushPollRequest(context: laptopContext, acknowledging: first.delivery?.id))

        let firstID = try XCTUnwrap(first.delivery?.id)
        let secondID = try XCTUnwrap(second.delivery?.id)
        XCTAssertLessThan(firstID, secondID)
        XCTAssertEqual(first.delivery?.notification.subscriptionID, "all")
        XCTAssertEqual(server.pushLog(for: laptop).map(\.fate), [.delivered, .delivered])
    }

    func testAcknowledgingTheLastPushSettlesThemAndUnregisteringEndsTheWaitingPoll() async throws {
        try await subscribe()
        server.registerForPushes(laptopContext, registered: true)
        try await change("a")
        let first = await server.pollPushes(WirePushPollRequest(context: laptopContext))

        let server: CloudServer = server
        let poll = WirePushPollRequest(context: laptopContext, acknowledging: first.delivery?.id)
        let next = Task { await server.pollPushes(poll) }
        await server.deliverPendingPushes()
        server.registerForPushes(laptopContext, registered: false)

        let ended = await next.value
        XCTAssertNil(ended.delivery, "unregistering answers the waiting poll with no push")
    }

    func testAPollOfADeviceThatIsNotRegisteredGetsNoPush() async {
        let response = await server.pollPushes(WirePushPollRequest(context: laptopContext))
        XCTAssertNil(response.delivery)
    }

    func testADeviceTheServerNeverRegisteredCannotRegisterForPushes() async {
        var context = laptopContext
        context.deviceID = "never-registered"
        server.registerForPushes(context, registered: true)
        let response = await server.pollPushes(WirePushPollRequest(context: context))
        XCTAssertNil(response.delivery, "its polls answer at once instead of waiting forever")
    }
}
