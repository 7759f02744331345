import Foundation
import StratusCore
import StratusWire
import XCTest

/// `CKUserIdentity` and `CKUserIdentity.LookupInfo` archive as one blob each, and refuse,
/// never crash on, a damaged, truncated, foreign or missing one.
final class PeopleArchiveTests: XCTestCase {
    private var fullName: PersonNameComponents {
        var name = PersonNameComponents()
        name.namePrefix = "Dr."
        name.givenName = "Ann"
        name.middleName = "Q."
        name.familyName = "Lee"
        name.nameSuffix = "Jr."
        name.nickname = "Annie"
        return name
    }

    private var objects: [(String, NSObject & NSSecureCoding)] {
        let full = CKUserIdentity(wire: WireUserIdentity(
            userRecordName: "_0123456789abcdef0123456789abcdef",
            lookupInfo: WireUserLookupInfo(phoneNumber: "+1 555 010 0001"),
            nameComponents: WireNameComponents(fullName),
            contactIdentifiers: ["c1", "c2"]
        ))
        let bare = CKUserIdentity(wire: WireUserIdentity(userRecordName: nil, lookupInfo: nil, nameComponents: nil, hasiCloudAccount: false))
        return [
            ("identity", full),
            ("bare identity", bare),
            ("email", CKUserIdentity.LookupInfo(emailAddress: "ann@example.com")),
            ("phone", CKUserIdentity.LookupInfo(phoneNumber: "555")),
            ("record ID", CKUserIdentity.LookupInfo(userRecordID: CKRecord.ID(recordName: "_u", zoneID: CKRecordZone.ID(zoneName: "Z", ownerName: "o")))),
        ]
    }

    private func decoders(_ data: Data) throws -> [String: Bool] {
        func decoded(_ make: (NSCoder) -> NSObject?) throws -> Bool {
            let decoder = try NSKeyedUnarchiver(forReadingFrom: data)
            decoder.requiresSecureCoding = true
            decoder.decodingFailurePolicy = .setErrorAndReturn
            return make(decoder) != nil
        }
        return [
            "identity": try decoded { CKUserIdentity(coder: $0) },
            "lookup info": try decoded { CKUserIdentity.LookupInfo(coder: $0) },
            "record ID": try decoded { CKRecord.ID(coder: $0) },
        ]
    }

    func testEveryFieldSurvivesTheKeyedArchiver() throws {
        for (label, object) in objects {
            let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
            let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [CKUserIdentity.self, CKUserIdentity.LookupInfo.self], from: data)
            XCTAssertEqual(decoded as? NSObject, object, label)
        }
        let data = try NSKeyedArchiver.archivedData(withRootObject: objects[0].1, requiringSecureCoding: true)
        let identity = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKUserIdentity.self, from: data))
        XCTAssertEqual(identity.nameComponents, fullName)
        XCTAssertEqual(identity.contactIdentifiers, ["c1", "c2"])
        XCTAssertEqual(identity.lookupInfo?.phoneNumber, "+1 555 010 0001")
        XCTAssertEqual(identity.userRecordID?.recordName, "_0123456789abcdef0123456789abcdef")
        XCTAssertTrue(identity.hasiCloudAccount)
    }

    func testEachBlobDecodesAsItsOwnTypeOnly() throws {
        for (label, object) in objects {
            let accepted = try decoders(archive(withBlob: blob(of: object)))
            XCTAssertEqual(accepted.filter(\.value).map(\.key), [object is CKUserIdentity ? "identity" : "lookup info"], label)
        }
        let recordID = try decoders(archive(withBlob: blob(of: CKRecord.ID(recordName: "r"))))
        XCTAssertEqual(recordID.filter(\.value).map(\.key), ["record ID"])
    }

    func testEveryFlippedByteAndEveryTruncationGivesNil() throws {
        for (label, object) in objects {
            let blob = try blob(of: object)
            for index in blob.indices {
                var damaged = blob
                damaged[index] ^= 0x5A
                XCTAssertEqual(try decoders(archive(withBlob: damaged)).filter(\.value).count, 0, "\(label) flipped at \(index)")
            }
            for length in 0..<blob.count {
                XCTAssertEqual(try decoders(archive(withBlob: blob.prefix(length))).filter(\.value).count, 0, "\(label) cut to \(length)")
            }
        }
    }

    func testAMissingBlobGivesNil() throws {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        coder.encode("not a blob" as NSString, forKey: "Other")
        coder.finishEncoding()
        XCTAssertEqual(try decoders(coder.encodedData).filter(\.value).count, 0)
    }
}
