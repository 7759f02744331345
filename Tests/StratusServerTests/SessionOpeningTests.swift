import Foundation
import Stratus
import XCTest

/// Signing devices in through the `CloudService` boundary (`session/open`), and the client's
/// own clock: what a client of a service in another process relies on.
final class SessionOpeningTests: ServerTestCase {
    func testADeviceSignedInThroughTheServiceWorksInItsAccountsPrivateDatabase() async throws {
        let phone = try await CKContainer.signIn(identifier: identifier, service: server, account: "john", clock: clock)
        let laptop = device("john")

        _ = try await phone.privateCloudDatabase.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n")))

        let seen = try await laptop.privateCloudDatabase.record(for: CKRecord.ID(recordName: "n"))
        XCTAssertEqual(seen.recordType, "Note", "the same account's private database")
        let status = try await phone.accountStatus()
        XCTAssertEqual(status, .available)
    }

    func testADeviceSignedInWithNoAccountIsAnonymous() async throws {
        let guest = try await CKContainer.signIn(identifier: identifier, service: server, account: nil, clock: clock)
        let status = try await guest.accountStatus()
        XCTAssertEqual(status, .noAccount)
    }

    func testASessionForAnEmptyAccountOrAnUnknownDeviceIsRefused() async {
        do {
            _ = try await CKContainer.signIn(identifier: identifier, service: server, account: "", clock: clock)
            XCTFail("an empty account name was accepted")
        } catch {
            XCTAssertEqual((error as? CKError)?.code, .invalidArguments)
        }
        do {
            _ = try await server.openSession(WireSessionRequest(containerIdentifier: identifier, deviceID: "no-such-device", account: "john"))
            XCTFail("a session was opened for a device the server never registered")
        } catch {
            XCTAssertEqual(error.code, .invalidArguments)
            XCTAssertTrue(error.message.contains("no-such-device"), error.message)
        }
    }

    func testSigningInAgainEndsTheOldSession() async throws {
        let phone = device("john")
        let old = rawContext(phone.privateCloudDatabase)
        let session = try await server.openSession(WireSessionRequest(containerIdentifier: identifier, deviceID: phone.deviceID, account: "alice"))

        XCTAssertNotEqual(session.sessionToken, old.sessionToken)
        do {
            _ = try await server.listZones(old)
            XCTFail("a request under the ended session was answered")
        } catch {
            XCTAssertEqual(error.code, .notAuthenticated)
        }
    }

    func testClosingASessionForgetsTheDevice() async throws {
        let session = try await server.openSession(WireSessionRequest(containerIdentifier: identifier, account: "john"))
        await server.closeSession(deviceID: session.deviceID)

        do {
            _ = try await server.openSession(WireSessionRequest(containerIdentifier: identifier, deviceID: session.deviceID, account: "john"))
            XCTFail("a forgotten device was signed in again")
        } catch {
            XCTAssertEqual(error.code, .invalidArguments)
        }
    }

    func testTheClientTimesItsRequestsOutOnItsOwnClock() async throws {
        let deviceClock = ManualClock()
        let phone = try await CKContainer.signIn(identifier: identifier, service: server, account: "john", clock: deviceClock)
        server.delayNextRequests(1, by: 120)
        let failed = expectation(description: "timed out")
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "x")])
        operation.configuration.timeoutIntervalForRequest = 10
        operation.fetchRecordsResultBlock = { result in
            if case .failure(let error as CKError) = result, error.code == .networkFailure { failed.fulfill() }
        }
        phone.privateCloudDatabase.add(operation)
        while server.requestLog.isEmpty { await Task.yield() }

        deviceClock.advance(by: 11)

        await fulfillment(of: [failed], timeout: 10)
        clock.advance(by: 120)
    }

    func testTheDefaultContainerIsADeviceOfTheSharedServer() {
        let service = CKContainer.default().service
        XCTAssertTrue(((service as? JSONWireService)?.wrapped ?? service) as? CloudServer === CloudServer.shared)
    }
}
