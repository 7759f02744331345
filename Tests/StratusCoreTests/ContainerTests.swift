import Foundation
import StratusCore
import StratusWire
import XCTest

final class ContainerTests: XCTestCase {
    func testDatabaseWithScopeReturnsTheSameObjectAsTheProperty() {
        let container = CKContainer(identifier: "iCloud.com.example.clowns", service: UnavailableService())
        XCTAssertTrue(container.database(with: .public) === container.publicCloudDatabase)
        XCTAssertTrue(container.database(with: .private) === container.privateCloudDatabase)
        XCTAssertTrue(container.database(with: .shared) === container.sharedCloudDatabase)
        XCTAssertTrue(container.privateCloudDatabase === container.privateCloudDatabase)
        XCTAssertEqual(container.publicCloudDatabase.databaseScope, .public)
        XCTAssertEqual(container.privateCloudDatabase.databaseScope, .private)
        XCTAssertEqual(container.sharedCloudDatabase.databaseScope, .shared)
        XCTAssertEqual(container.containerIdentifier, "iCloud.com.example.clowns")
    }

    func testEachContainerObjectIsItsOwnDevice() async {
        let phone = CKContainer(identifier: "iCloud.com.example.clowns", service: UnavailableService())
        let laptop = CKContainer(identifier: "iCloud.com.example.clowns", service: UnavailableService())
        XCTAssertNotEqual(phone.deviceID, laptop.deviceID)
        phone.device.sessionToken = "session-1"
        let sent = await phone.privateCloudDatabase.requestPath(operationID: "op-1", qualityOfService: .utility).send { _, context in context }
        let context = try? sent.get()
        XCTAssertEqual(context?.containerIdentifier, "iCloud.com.example.clowns")
        XCTAssertEqual(context?.database, .private)
        XCTAssertEqual(context?.deviceID, phone.deviceID)
        XCTAssertEqual(context?.sessionToken, "session-1", "a request carries the session the device has when the request is made")
        XCTAssertEqual(context?.operationID, "op-1")
        XCTAssertEqual(context?.qualityOfService, .utility)
    }
}
