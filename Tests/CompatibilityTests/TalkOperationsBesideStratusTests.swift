import _TalkOperations
import Stratus
import XCTest

/// An app that carries its own copy of the "Advanced NSOperations" types in a module of its own
/// builds beside `import Stratus`: Stratus's toolkit, which has types of the same names, is a
/// module of its own (`StratusToolkit`), so these names are not ambiguous.
final class TalkOperationsBesideStratusTests: XCTestCase {
    func testTheAppsOwnGroupOperationAndConditionsNeedNoModuleName() {
        let save = CKModifyRecordsOperation(recordsToSave: [], recordIDsToDelete: [])
        let group = GroupOperation(operations: [save])
        XCTAssertEqual(group.operations.count, 1)
        XCTAssertEqual(MutuallyExclusive<CKRecord>.name, "MutuallyExclusive<CKRecord>")
        XCTAssertTrue(MutuallyExclusive<CKRecord>.isMutuallyExclusive)
        let condition: any OperationCondition.Type = MutuallyExclusive<CKRecord>.self
        XCTAssertEqual(condition.name, "MutuallyExclusive<CKRecord>")
    }
}
