import Foundation
import StratusCore
import XCTest

extension XCTestCase {
    /// `record` archived with secure coding and decoded again.
    func archiveRoundTrip(_ record: CKRecord) throws -> CKRecord {
        let data = try NSKeyedArchiver.archivedData(withRootObject: record, requiringSecureCoding: true)
        return try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: data))
    }

    /// Runs `check` on the record itself, on a copy, and on an archived and decoded record.
    func assertEverywhere(_ record: CKRecord, _ check: (CKRecord) throws -> Void) throws {
        try check(record)
        try check(try XCTUnwrap(record.copy() as? CKRecord))
        try check(try archiveRoundTrip(record))
    }
}
