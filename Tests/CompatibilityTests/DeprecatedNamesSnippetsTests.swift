import Stratus
import XCTest

// The deprecated spellings CloudKit still declares, written as older apps and Apple's 2015
// samples write them. Each sits in a deprecated test, as it would sit in deprecated app code: it
// builds without warnings and runs. Before these names existed, this file did not compile.

final class DeprecatedNamesSnippetsTests: XCTestCase {
    private var server: CloudServer!
    private var container: CKContainer!

    override func setUp() {
        super.setUp()
        server = CloudServer(clock: ManualClock())
        container = server.container(identifier: "iCloud.com.example.clowns", account: "john")
    }

    override func tearDown() {
        container = nil
        server = nil
        super.tearDown()
    }

    /// The 2015 samples' container extension: check a permission, ask for it when it is missing,
    /// and hand the outcome to a block typed with the flat Swift 4.2 names.
    @available(*, deprecated)
    func testVerifyingAPermissionWithTheFlatNames() async throws {
        let done = expectation(description: "verified")
        verify(.userDiscoverability, in: container, requestingIfNecessary: true) { status, error in
            XCTAssertNil(error)
            XCTAssertEqual(status, .granted)
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 10)
    }

    @available(*, deprecated)
    private func verify(
        _ permission: CKContainer_Application_Permissions,
        in container: CKContainer,
        requestingIfNecessary shouldRequest: Bool,
        completion: @escaping CKContainer_Application_PermissionBlock
    ) {
        container.status(forApplicationPermission: permission) { status, error in
            if status == .initialState && shouldRequest {
                container.requestApplicationPermission(permission, completionHandler: completion)
            } else {
                completion(status, error)
            }
        }
    }

    /// The names nested in `CKContainer.Application` are the same types as the current ones.
    @available(*, deprecated)
    func testTheApplicationNamespaceNamesTheCurrentTypes() async throws {
        let permissions: CKContainer.Application.Permissions = .userDiscoverability
        let current: CKContainer.ApplicationPermissions = permissions
        XCTAssertEqual(current.rawValue, 1)

        let status: CKContainer.Application.PermissionStatus = .denied
        let flatStatus: CKContainer_Application_PermissionStatus = status
        XCTAssertEqual(flatStatus.rawValue, 2)

        let received = expectation(description: "status")
        let block: CKContainer.Application.PermissionBlock = { status, error in
            XCTAssertNil(error)
            XCTAssertEqual(status, .initialState)
            received.fulfill()
        }
        let sameBlock: CKContainer.ApplicationPermissionBlock = block
        container.status(forApplicationPermission: permissions, completionHandler: sameBlock)
        await fulfillment(of: [received], timeout: 10)
    }

    /// `CKRecord_Reference_Action` and the flat share-participant names still type values that
    /// the current API takes.
    @available(*, deprecated)
    func testFlatReferenceActionAndParticipantNames() {
        let action: CKRecord_Reference_Action = .deleteSelf
        let reference = CKRecord.Reference(recordID: CKRecord.ID(recordName: "bash"), action: action)
        XCTAssertEqual(reference.action, .deleteSelf)

        let permission: CKShare_Participant_Permission = .readWrite
        let role: CKShare_Participant_Role = .privateUser
        let acceptance: CKShare_Participant_AcceptanceStatus = .pending
        XCTAssertEqual(permission, CKShare.ParticipantPermission.readWrite)
        XCTAssertEqual(role, CKShare.ParticipantRole.privateUser)
        XCTAssertEqual(acceptance, CKShare.ParticipantAcceptanceStatus.pending)
    }
}
