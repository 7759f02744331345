import _StratusTestSupport
import Foundation
import StratusCore
import StratusWire
import XCTest

/// How deeply a predicate may nest: the parser, the `CKQuery` archive and the binary predicate
/// reader all refuse what is deeper than the one limit, with a message, never with a crash.
final class PredicateDepthTests: XCTestCase {
    private let limit = WirePredicate.maximumDepth

    private func refusal(_ predicate: NSPredicate) -> String? {
        if case .failure(let error) = predicate.cloudKitPredicate { return error.message }
        return nil
    }


    /// `NOT NOT … a == 1` with `count` NOTs.
    private func nots(_ count: Int, _ leaf: String = "a == 1") -> String {
        String(repeating: "NOT ", count: count) + leaf
    }

    /// `tricks IN {{…{1}…}}` with `count` pairs of braces.
    private func braces(_ count: Int) -> String {
        "tricks IN " + String(repeating: "{", count: count) + "1" + String(repeating: "}", count: count)
    }

    /// An array nested `count` deep around `1`.
    private func nestedArray(_ count: Int) -> Any {
        var value: Any = 1
        for _ in 0..<count { value = [value] }
        return value
    }

    // MARK: - Aggregate braces and tokenize count toward the limit

    func testThousandsOfAggregateBracesAreRefusedNotACrash() {
        let message = refusal(NSPredicate(format: braces(9_000)))
        XCTAssertNotNil(message)
        XCTAssertTrue(message?.contains("\(limit)") == true, message ?? "accepted")
    }

    func testAggregateBracesOnASmallThreadStackAreRefusedNotACrash() {
        let format = braces(500)
        let message = onSmallStack { () -> String? in
            if case .failure(let error) = NSPredicate(format: format).cloudKitPredicate { return error.message }
            return nil
        }
        XCTAssertTrue(message?.contains("\(limit)") == true, message ?? "accepted")
    }

    func testBracesInsideTokenizeCountTowardTheLimit() {
        let format = "ALL tokenize(" + String(repeating: "{", count: 9_000) + "'x'" + String(repeating: "}", count: 9_000) + ", 'Cdl') IN allTokens"
        XCTAssertTrue(refusal(NSPredicate(format: format))?.contains("\(limit)") == true)
        let tokenizeInTokenize = "ALL " + String(repeating: "tokenize(", count: 9_000) + "'x'" + String(repeating: ", 'Cdl')", count: 9_000) + " IN allTokens"
        XCTAssertTrue(refusal(NSPredicate(format: tokenizeInTokenize))?.contains("\(limit)") == true)
    }

    // MARK: - A %@ argument is measured before it is cast

    func testArrayArgumentNestedThousandsDeepIsRefusedBeforeItIsWalked() {
        let message = refusal(NSPredicate(format: "tricks IN %@", nestedArray(4_000)))
        XCTAssertTrue(message?.contains("\(limit)") == true, message ?? "accepted")
    }

    func testNestedArgumentsOfEveryContainerKindAreRefusedOnASmallStack() {
        // Built on this thread (whose stack is large); parsed on a small one.
        var nsArray: AnyObject = NSNumber(value: 1)
        for _ in 0..<4_000 { nsArray = NSArray(object: nsArray) }
        var dictionary: Any = 1
        for _ in 0..<4_000 { dictionary = ["k": dictionary] as [String: Any] }
        var optionals: Any = 1
        for _ in 0..<4_000 { optionals = Optional<Any>.some([optionals]) as Any }
        let containsItself = NSMutableArray()
        containsItself.add(containsItself)
        let arguments = UncheckedSendable([nestedArray(4_000), nsArray, dictionary, optionals, containsItself])
        let messages = onSmallStack { () -> [String?] in
            arguments.value.map { argument in
                if case .failure(let error) = NSPredicate(format: "tricks IN %@", argument).cloudKitPredicate { return error.message }
                return nil
            }
        }
        for (index, message) in messages.enumerated() {
            XCTAssertTrue(message?.contains("\(limit)") == true, "argument \(index): \(message ?? "accepted")")
        }
        containsItself.removeAllObjects()
    }

    func testFlatArrayArgumentsStillWork() {
        XCTAssertEqual(parsed(NSPredicate(format: "name IN %@", ["Bozo", "Krusty"])), .isIn(.field("name"), [.string("Bozo"), .string("Krusty")]))
        XCTAssertEqual(parsed(NSPredicate(format: "name IN %@", NSArray(array: ["Bozo"]))), .isIn(.field("name"), [.string("Bozo")]))
        XCTAssertEqual(parsed(NSPredicate(format: "age BETWEEN %@", [1, 2])), .between(.field("age"), .value(.int64(1)), .value(.int64(2))))
        XCTAssertTrue(refusal(NSPredicate(format: "name IN %@", [["Bozo"]]))?.contains("list") == true)
    }

    // MARK: - Non-finite numbers

    func testNonFiniteLiteralsAreRefusedLikeNonFiniteArguments() {
        for format in ["likes == 1e999", "likes < -1e999", "likes BETWEEN {0, 1e999}", "likes IN {1, 2e400}"] {
            let message = refusal(NSPredicate(format: format))
            XCTAssertTrue(message?.contains("finite") == true, "\(format): \(message ?? "accepted")")
        }
        XCTAssertTrue(refusal(NSPredicate(format: "likes == %f", Double.infinity))?.contains("finite") == true)
        XCTAssertTrue(refusal(NSPredicate(format: "likes == %@", Double.infinity))?.contains("finite") == true)
        XCTAssertEqual(parsed(NSPredicate(format: "likes == 1e300")), .compare(.field("likes"), .equal, .value(.double(1e300))))
        XCTAssertEqual(parsed(NSPredicate(format: "likes == 99999999999999999999")), .compare(.field("likes"), .equal, .value(.double(1e20))))
    }

    // MARK: - One limit, the same in the parser, the archive and the binary reader

    func testPredicateExactlyAtTheLimitParsesAndOneLevelDeeperIsRefused() {
        XCTAssertNotNil(parsed(NSPredicate(format: nots(limit))))
        XCTAssertTrue(refusal(NSPredicate(format: nots(limit + 1)))?.contains("\(limit)") == true)
        // AND, NOT and the aggregate each count one level.
        XCTAssertNotNil(parsed(NSPredicate(format: "a == 1 AND " + nots(limit - 2, "b IN {1, 2}"))))
        XCTAssertTrue(refusal(NSPredicate(format: "a == 1 AND " + nots(limit - 1, "b IN {1, 2}")))?.contains("\(limit)") == true)
        XCTAssertNotNil(parsed(NSPredicate(format: nots(limit - 1, "b IN %@"), [1, 2])))
        XCTAssertTrue(refusal(NSPredicate(format: nots(limit, "b IN %@"), [1, 2]))?.contains("\(limit)") == true)
        // Compound predicates count one level each, around the format predicates they hold.
        let inner = NSPredicate(format: nots(limit - 2))
        let atLimit = NSCompoundPredicate(notPredicateWithSubpredicate: NSCompoundPredicate(notPredicateWithSubpredicate: inner))
        XCTAssertNotNil(parsed(atLimit))
        XCTAssertTrue(refusal(NSCompoundPredicate(notPredicateWithSubpredicate: atLimit))?.contains("\(limit)") == true)
    }

    func testRefusedDepthFailsTheQueryWithInvalidArgumentsNamingTheLimit() {
        let query = CKQuery(recordType: "Clown", predicate: NSPredicate(format: nots(limit + 1)))
        guard case .failure(let error) = query.wireQuery() else { return XCTFail("accepted") }
        XCTAssertEqual(error.code, .invalidArguments)
        XCTAssertTrue(error.localizedDescription.contains("\(limit)"), error.localizedDescription)
    }

    func testQueryAtTheLimitArchivesAndUnarchives() throws {
        for format in [nots(limit), "a == 1 AND " + nots(limit - 2, "b IN {1, 2}")] {
            let query = CKQuery(recordType: "Clown", predicate: NSPredicate(format: format))
            let data = try NSKeyedArchiver.archivedData(withRootObject: query, requiringSecureCoding: true)
            let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuery.self, from: data), format)
            XCTAssertEqual(try decoded.parsedPredicate.get(), try query.parsedPredicate.get())
        }
    }

    /// A `CKQuery` archive whose blob holds `predicate`, written as the encoder writes it.
    private func queryArchive(holding predicate: WirePredicate) -> Data {
        let blob = ArchiveEnvelope.seal(.query) { writer in
            writer.write("Clown")
            writer.write(true)
            predicate.write(to: &writer)
            writer.writeCount(0)
        }
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        coder.encode(NSData(bytes: blob, length: blob.count), forKey: SecureCodingBlob.key)
        coder.finishEncoding()
        return coder.encodedData
    }

    /// `NOT … leaf` with `count` NOTs.
    private func wireNots(_ count: Int, _ leaf: WirePredicate = .compare(.field("a"), .equal, .value(.int64(1)))) -> WirePredicate {
        var predicate = leaf
        for _ in 0..<count { predicate = .not(predicate) }
        return predicate
    }

    /// The query `CKQuery(coder:)` decodes from an archive holding `predicate`.
    private func decodedQuery(holding predicate: WirePredicate) throws -> CKQuery? {
        let decoder = try NSKeyedUnarchiver(forReadingFrom: queryArchive(holding: predicate))
        defer { decoder.finishDecoding() }
        return CKQuery(coder: decoder)
    }

    func testArchiveDecoderRefusesAPredicateOneLevelTooDeep() throws {
        XCTAssertEqual(try decodedQuery(holding: wireNots(limit))?.parsedPredicate.get(), wireNots(limit))
        XCTAssertNil(try decodedQuery(holding: wireNots(limit + 1)))
        XCTAssertNotNil(try decodedQuery(holding: wireNots(limit - 1, .isIn(.field("b"), [.int64(1)]))))
        XCTAssertNil(try decodedQuery(holding: wireNots(limit, .isIn(.field("b"), [.int64(1)]))))
    }

    func testBinaryReaderAcceptsTheLimitAndRefusesOneLevelDeeper() {
        func roundTrip(_ predicate: WirePredicate) -> WirePredicate? {
            var writer = BinaryWriter()
            predicate.write(to: &writer)
            var reader = BinaryReader(writer.bytes)
            return try? WirePredicate.read(from: &reader)
        }
        XCTAssertEqual(roundTrip(wireNots(limit)), wireNots(limit))
        XCTAssertNil(roundTrip(wireNots(limit + 1)))
        var ands: WirePredicate = .constant(true)
        for _ in 0..<limit { ands = .and([ands, .constant(false)]) }
        XCTAssertEqual(roundTrip(ands), ands)
        XCTAssertNil(roundTrip(.and([ands])))
        XCTAssertNotNil(roundTrip(wireNots(limit - 1, .between(.field("b"), .value(.int64(1)), .value(.int64(2))))))
        XCTAssertNil(roundTrip(wireNots(limit, .between(.field("b"), .value(.int64(1)), .value(.int64(2))))))
    }

    func testAggregatesMixingKindsArchiveAndReadBack() throws {
        for format in ["likes IN {1, 2.5}", "ANY tricks IN {'juggling', 3}", "NOT b IN %@"] {
            let query = CKQuery(recordType: "Clown", predicate: NSPredicate(format: format, argumentArray: format.contains("%@") ? [[1, 2.5] as [Any]] : []))
            let tree = try query.parsedPredicate.get()
            XCTAssertNil(tree.valueProblem)
            let data = try NSKeyedArchiver.archivedData(withRootObject: query, requiringSecureCoding: true)
            let decoded = try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuery.self, from: data), format)
            XCTAssertEqual(try decoded.parsedPredicate.get(), tree)
        }
        XCTAssertNil(try decodedQuery(holding: .isIn(.field("b"), [.int64(1), .list([.int64(2)])])), "an aggregate holding a list")
    }

    func testPredicatesAtTheLimitParseOnASmallThreadStack() {
        let parentheses = String(repeating: "(", count: limit - 1) + "b IN {1, 2}" + String(repeating: ")", count: limit - 1)
        let formats = [nots(limit), "a == 1 AND " + nots(limit - 2, "b IN {1, 2}"), parentheses]
        let results = onSmallStack { formats.map { NSPredicate(format: $0).cloudKitPredicate } }
        for (format, result) in zip(formats, results) {
            if case .failure(let error) = result { XCTFail("\(format.prefix(40))…: \(error.message)") }
        }
    }
}
