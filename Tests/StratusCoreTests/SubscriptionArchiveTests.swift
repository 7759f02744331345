import Foundation
import StratusCore
import StratusWire
import XCTest

/// Subscriptions and their notification info archive as one blob each, round trip every
/// property, and refuse, never crash on, a damaged, truncated, foreign or missing one.
final class SubscriptionArchiveTests: XCTestCase {
    private var fullInfo: CKNotificationInfo {
        CKNotificationInfo(
            alertBody: "body", alertLocalizationKey: "ALERT", alertLocalizationArgs: ["a1", "a2"],
            title: "title", titleLocalizationKey: "TITLE", titleLocalizationArgs: ["t1"],
            subtitle: "subtitle", subtitleLocalizationKey: "SUBTITLE", subtitleLocalizationArgs: ["s1"],
            alertActionLocalizationKey: "ACTION", alertLaunchImage: "launch.png", soundName: "ding.aiff",
            desiredKeys: ["title", "attendees"], shouldBadge: true, shouldSendContentAvailable: true,
            shouldSendMutableContent: true, category: "PARTY", collapseIDKey: "party"
        )
    }

    @available(*, deprecated)
    private var legacy: CKSubscription {
        CKSubscription(recordType: "Party", predicate: NSPredicate(value: true), subscriptionID: "legacy", options: [.firesOnRecordDeletion])
    }

    private var subscriptions: [(String, CKSubscription)] {
        let query = CKQuerySubscription(recordType: "Party", predicate: NSPredicate(format: "attendees > %@ AND town == %@", 10, "Springfield"), subscriptionID: "parties", options: [.firesOnRecordCreation, .firesOnce])
        query.zoneID = CKRecordZone.ID(zoneName: "Parties", ownerName: "_owner")
        query.notificationInfo = fullInfo
        let refused = CKQuerySubscription(recordType: "Party", predicate: NSPredicate(format: "name ENDSWITH %@", "x"), subscriptionID: "refused")
        let zone = CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: "Notes"), subscriptionID: "notes")
        zone.recordType = "Note"
        zone.notificationInfo = CKNotificationInfo(shouldSendContentAvailable: true)
        let database = CKDatabaseSubscription(subscriptionID: "everything")
        return [("query", query), ("refused predicate", refused), ("zone", zone), ("database", database)]
    }

    private func decoders(_ data: Data) throws -> [String: NSObject] {
        func decoded(_ make: (NSCoder) -> NSObject?) throws -> NSObject? {
            let decoder = try NSKeyedUnarchiver(forReadingFrom: data)
            decoder.requiresSecureCoding = true
            decoder.decodingFailurePolicy = .setErrorAndReturn
            return make(decoder)
        }
        return [
            "subscription": try decoded { CKSubscription(coder: $0) },
            "query": try decoded { CKQuerySubscription(coder: $0) },
            "zone": try decoded { CKRecordZoneSubscription(coder: $0) },
            "database": try decoded { CKDatabaseSubscription(coder: $0) },
            "info": try decoded { CKNotificationInfo(coder: $0) },
        ].compactMapValues { $0 }
    }

    private func assertSame(_ decoded: CKSubscription?, _ original: CKSubscription, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let decoded else { return XCTFail("\(label) did not decode", file: file, line: line) }
        XCTAssertTrue(type(of: decoded) == type(of: original), label, file: file, line: line)
        XCTAssertEqual(decoded.subscriptionID, original.subscriptionID, label, file: file, line: line)
        XCTAssertEqual(decoded.subscriptionType, original.subscriptionType, label, file: file, line: line)
        XCTAssertEqual(decoded.notificationInfo, original.notificationInfo, label, file: file, line: line)
        switch (decoded.wireValue(), original.wireValue()) {
        case (.success(let lhs), .success(let rhs)):
            XCTAssertEqual(lhs, rhs, label, file: file, line: line)
        case (.failure(let lhs), .failure(let rhs)):
            XCTAssertEqual(lhs.localizedDescription, rhs.localizedDescription, label, file: file, line: line)
        default:
            XCTFail("\(label): one predicate was refused and the other not", file: file, line: line)
        }
    }

    func testEverySubclassRoundTripsEveryPropertyThroughTheKeyedArchiver() throws {
        let classes: [AnyClass] = [CKSubscription.self, CKQuerySubscription.self, CKRecordZoneSubscription.self, CKDatabaseSubscription.self, CKNotificationInfo.self]
        for (label, subscription) in subscriptions {
            let data = try NSKeyedArchiver.archivedData(withRootObject: subscription, requiringSecureCoding: true)
            let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: data) as? CKSubscription
            assertSame(decoded, subscription, label)
        }
        let query = try XCTUnwrap(subscriptions[0].1 as? CKQuerySubscription)
        let data = try NSKeyedArchiver.archivedData(withRootObject: query, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuerySubscription.self, from: data))
        XCTAssertEqual(decoded.zoneID, CKRecordZone.ID(zoneName: "Parties", ownerName: "_owner"))
        XCTAssertEqual(decoded.querySubscriptionOptions, [.firesOnRecordCreation, .firesOnce])
        XCTAssertEqual(decoded.recordType, "Party")
    }

    @available(*, deprecated)
    func testTheLegacySubscriptionRoundTripsAsAPlainSubscription() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: legacy, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKSubscription.self, from: data))
        assertSame(decoded, legacy, "legacy")
        XCTAssertEqual(decoded.subscriptionOptions, [.firesOnRecordDeletion])
    }

    func testNotificationInfoRoundTripsEveryPropertyAndCopiesAreIndependent() throws {
        let info = fullInfo
        let data = try NSKeyedArchiver.archivedData(withRootObject: info, requiringSecureCoding: true)
        let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKNotificationInfo.self, from: data))
        XCTAssertEqual(decoded, info)
        XCTAssertEqual(decoded.alertLocalizationArgs, ["a1", "a2"])
        XCTAssertEqual(decoded.collapseIDKey, "party")
        XCTAssertTrue(decoded.shouldSendMutableContent)
        let copy = try XCTUnwrap(info.copy() as? CKNotificationInfo)
        copy.alertBody = "changed"
        XCTAssertEqual(info.alertBody, "body")
        let subscription = CKDatabaseSubscription(subscriptionID: "d")
        subscription.notificationInfo = info
        info.alertBody = "after"
        XCTAssertEqual(subscription.notificationInfo?.alertBody, "body", "setting notificationInfo stores a copy")
        let copied = try XCTUnwrap(subscription.copy() as? CKDatabaseSubscription)
        copied.recordType = "Other"
        XCTAssertNil(subscription.recordType)
    }

    func testEachBlobDecodesAsItsOwnClassAndThePlainClassOnly() throws {
        for (label, subscription) in subscriptions {
            let accepted = try decoders(archive(withBlob: blob(of: subscription))).keys.sorted()
            XCTAssertEqual(accepted, [label == "refused predicate" ? "query" : label, "subscription"].sorted(), label)
        }
        XCTAssertEqual(try decoders(archive(withBlob: blob(of: fullInfo))).keys.sorted(), ["info"])
    }

    func testEveryFlippedByteAndEveryTruncationGivesNil() throws {
        let objects: [(String, NSObject & NSSecureCoding)] = subscriptions.map { ($0.0, $0.1) } + [("info", fullInfo), ("empty info", CKNotificationInfo())]
        for (label, object) in objects {
            let blob = try blob(of: object)
            for index in blob.indices {
                var damaged = blob
                damaged[index] ^= 0x5A
                XCTAssertEqual(try decoders(archive(withBlob: damaged)).count, 0, "\(label) flipped at \(index)")
            }
            for length in 0..<blob.count {
                XCTAssertEqual(try decoders(archive(withBlob: blob.prefix(length))).count, 0, "\(label) cut to \(length)")
            }
        }
    }

    func testAMissingBlobGivesNil() throws {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        coder.encode("not a blob" as NSString, forKey: "Other")
        coder.finishEncoding()
        XCTAssertEqual(try decoders(coder.encodedData).count, 0)
    }
}
