import Foundation
import StratusCore
import StratusWire
import XCTest

extension XCTestCase {
    /// The tree `predicate` parses to, failing the test when the parser refuses it.
    func parsed(_ predicate: NSPredicate, file: StaticString = #filePath, line: UInt = #line) -> WirePredicate? {
        switch predicate.cloudKitPredicate {
        case .success(let tree): return tree
        case .failure(let error):
            XCTFail("refused: \(error.message)", file: file, line: line)
            return nil
        }
    }
}
