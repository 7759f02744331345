import Stratus
import XCTest

// The deprecated Swift 4.2 spellings in the Swift 5 language mode most older apps build in: the
// 2015 samples' permission check keeps its state in a local variable its handlers change.

final class DeprecatedNamesSwift5SnippetsTests: XCTestCase {
    @available(*, deprecated)
    func testVerifyingAPermissionWithTheFlatNamesInSwift5() {
        let server = CloudServer(clock: ManualClock())
        let container = server.container(identifier: "iCloud.com.example.clowns", account: "john")
        var seen: [CKContainer_Application_PermissionStatus] = []
        let done = expectation(description: "verified")
        let completion: CKContainer.Application.PermissionBlock = { status, error in
            XCTAssertNil(error)
            done.fulfill()
        }
        let permission: CKContainer.Application.Permissions = .userDiscoverability
        container.status(forApplicationPermission: permission) { status, error in
            seen.append(status)
            if status == .initialState {
                container.requestApplicationPermission(permission) { status, error in
                    seen.append(status)
                    completion(status, error)
                }
            } else {
                completion(status, error)
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(seen, [.initialState, .granted])
        let action: CKRecord_Reference_Action = .none
        XCTAssertEqual(CKRecord.Reference(recordID: CKRecord.ID(recordName: "bash"), action: action).action, .none)
    }
}
