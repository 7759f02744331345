import Foundation
import StratusCore
import StratusWire
import XCTest

/// CloudKit's predicate subset (cloudkit-api.md §15): what the parser accepts, what it
/// refuses and names, and what records match.
final class PredicateTests: XCTestCase {

    private func refusal(_ predicate: NSPredicate) -> String? {
        if case .failure(let error) = predicate.cloudKitPredicate { return error.message }
        return nil
    }

    private let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "bash"))

    // MARK: - Accepted forms

    func testEqualityAndOrderingInEverySpelling() {
        XCTAssertEqual(parsed(NSPredicate(format: "name = 'Bozo'")), .compare(.field("name"), .equal, .value(.string("Bozo"))))
        XCTAssertEqual(parsed(NSPredicate(format: "name == %@", "Bozo")), .compare(.field("name"), .equal, .value(.string("Bozo"))))
        XCTAssertEqual(parsed(NSPredicate(format: "age != 3")), .compare(.field("age"), .notEqual, .value(.int64(3))))
        XCTAssertEqual(parsed(NSPredicate(format: "age <> 3")), .compare(.field("age"), .notEqual, .value(.int64(3))))
        XCTAssertEqual(parsed(NSPredicate(format: "age < 3")), .compare(.field("age"), .less, .value(.int64(3))))
        XCTAssertEqual(parsed(NSPredicate(format: "age <= 3")), .compare(.field("age"), .lessOrEqual, .value(.int64(3))))
        XCTAssertEqual(parsed(NSPredicate(format: "age =< 3")), .compare(.field("age"), .lessOrEqual, .value(.int64(3))))
        XCTAssertEqual(parsed(NSPredicate(format: "age > 3.5")), .compare(.field("age"), .greater, .value(.double(3.5))))
        XCTAssertEqual(parsed(NSPredicate(format: "age >= -2")), .compare(.field("age"), .greaterOrEqual, .value(.int64(-2))))
        XCTAssertEqual(parsed(NSPredicate(format: "age => 3")), .compare(.field("age"), .greaterOrEqual, .value(.int64(3))))
        XCTAssertEqual(parsed(NSPredicate(format: "3 < age")), .compare(.field("age"), .greater, .value(.int64(3))))
    }

    func testEveryArgumentSpecifierAndType() {
        let date = Date(timeIntervalSince1970: 100)
        let id = CKRecord.ID(recordName: "bash")
        let reference = WireFieldValue.reference(WireReference(recordID: id.wireValue, action: .none))
        XCTAssertEqual(parsed(NSPredicate(format: "%K == %@", "title", "x")), .compare(.field("title"), .equal, .value(.string("x"))))
        XCTAssertEqual(parsed(NSPredicate(format: "n == %d", 7)), .compare(.field("n"), .equal, .value(.int64(7))))
        XCTAssertEqual(parsed(NSPredicate(format: "n == %f", 2.5)), .compare(.field("n"), .equal, .value(.double(2.5))))
        XCTAssertEqual(parsed(NSPredicate(format: "d > %@", date as NSDate)), .compare(.field("d"), .greater, .value(.date(date))))
        XCTAssertEqual(parsed(NSPredicate(format: "d > %@", date)), .compare(.field("d"), .greater, .value(.date(date))))
        XCTAssertEqual(parsed(NSPredicate(format: "b == %@", Data([1, 2]))), .compare(.field("b"), .equal, .value(.bytes(Data([1, 2])))))
        XCTAssertEqual(parsed(NSPredicate(format: "n == %@", NSNumber(value: 4))), .compare(.field("n"), .equal, .value(.int64(4))))
        XCTAssertEqual(parsed(NSPredicate(format: "flag == %@", true)), .compare(.field("flag"), .equal, .value(.int64(1))))
        XCTAssertEqual(parsed(NSPredicate(format: "party == %@", CKRecord.Reference(recordID: id, action: .deleteSelf))), .compare(.field("party"), .equal, .value(reference)))
        XCTAssertEqual(parsed(NSPredicate(format: "party == %@", party)), .compare(.field("party"), .equal, .value(reference)))
        XCTAssertEqual(parsed(NSPredicate(format: "recordID == %@", id)), .compare(.recordID, .equal, .value(reference)))
        XCTAssertEqual(parsed(NSPredicate(format: "name IN %@", ["a", "b"])), .isIn(.field("name"), [.string("a"), .string("b")]))
        XCTAssertEqual(parsed(NSPredicate(format: "name IN %@", NSArray(array: ["a"]))), .isIn(.field("name"), [.string("a")]))
    }

    func testRangesMembershipPrefixesAndAggregates() {
        XCTAssertEqual(parsed(NSPredicate(format: "age BETWEEN {1, 5}")), .between(.field("age"), .value(.int64(1)), .value(.int64(5))))
        XCTAssertEqual(parsed(NSPredicate(format: "age BETWEEN %@", [1, 5])), .between(.field("age"), .value(.int64(1)), .value(.int64(5))))
        XCTAssertEqual(parsed(NSPredicate(format: "name IN {'a', 'b'}")), .isIn(.field("name"), [.string("a"), .string("b")]))
        XCTAssertEqual(parsed(NSPredicate(format: "'juggling' IN tricks")), .listContains(.field("tricks"), .string("juggling")))
        XCTAssertEqual(parsed(NSPredicate(format: "tricks CONTAINS 'juggling'")), .listContains(.field("tricks"), .string("juggling")))
        XCTAssertEqual(parsed(NSPredicate(format: "ANY tricks = 'juggling'")), .listContains(.field("tricks"), .string("juggling")))
        XCTAssertEqual(parsed(NSPredicate(format: "SOME tricks == 'juggling'")), .listContains(.field("tricks"), .string("juggling")))
        XCTAssertEqual(parsed(NSPredicate(format: "ANY tricks IN {'a', 'b'}")), .listContainsAny(.field("tricks"), [.string("a"), .string("b")]))
        XCTAssertEqual(parsed(NSPredicate(format: "ANY {'a', 'b'} = name")), .isIn(.field("name"), [.string("a"), .string("b")]))
        XCTAssertEqual(parsed(NSPredicate(format: "name BEGINSWITH 'Bo'")), .beginsWith(.field("name"), "Bo"))
        XCTAssertEqual(parsed(NSPredicate(format: "ANY tricks BEGINSWITH 'ju'")), .listMemberBeginsWith(.field("tricks"), "ju"))
    }

    func testConstantsConjunctionsNegationsAndNow() {
        XCTAssertEqual(parsed(NSPredicate(format: "TRUEPREDICATE")), .constant(true))
        XCTAssertEqual(parsed(NSPredicate(format: "FALSEPREDICATE")), .constant(false))
        XCTAssertEqual(parsed(NSPredicate(value: true)), .constant(true))
        XCTAssertEqual(parsed(NSPredicate(value: false)), .constant(false))
        XCTAssertEqual(parsed(NSPredicate(format: "a == 1 AND b == 2 && (c == 3)")), .and([
            .compare(.field("a"), .equal, .value(.int64(1))),
            .compare(.field("b"), .equal, .value(.int64(2))),
            .compare(.field("c"), .equal, .value(.int64(3))),
        ]))
        XCTAssertEqual(parsed(NSPredicate(format: "NOT name == 'x'")), .not(.compare(.field("name"), .equal, .value(.string("x")))))
        XCTAssertEqual(parsed(NSPredicate(format: "!(name BEGINSWITH 'x')")), .not(.beginsWith(.field("name"), "x")))
        XCTAssertEqual(parsed(NSPredicate(format: "creationDate < now()")), .compare(.creationDate, .less, .now))
        XCTAssertEqual(parsed(NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "a == 1"), NSPredicate(value: true)])), .and([.compare(.field("a"), .equal, .value(.int64(1))), .constant(true)]))
        XCTAssertEqual(parsed(NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "a == 1"))), .not(.compare(.field("a"), .equal, .value(.int64(1)))))
    }

    func testFullTextSearchNormalisesTokensAndDropsStopWords() {
        XCTAssertEqual(parsed(NSPredicate(format: "self CONTAINS 'The Clowns'")), .tokens(.any, ["clowns"]))
        XCTAssertEqual(parsed(NSPredicate(format: "SELF CONTAINS %@", "Crème brûlée")), .tokens(.any, ["creme", "brulee"]))
        XCTAssertEqual(parsed(NSPredicate(format: "ALL tokenize(%@, 'Cdl') IN allTokens", "a Jolly clown")), .tokens(.all, ["jolly", "clown"]))
    }

    func testSystemFieldKeysAreRecognised() {
        XCTAssertEqual(parsed(NSPredicate(format: "modificationDate > %@", Date(timeIntervalSince1970: 0))), .compare(.modificationDate, .greater, .value(.date(Date(timeIntervalSince1970: 0)))))
        XCTAssertEqual(parsed(NSPredicate(format: "%K == %@", CKRecord.SystemFieldKey.parent, party)), .compare(.parent, .equal, .value(.reference(WireReference(recordID: party.recordID.wireValue, action: .none)))))
        XCTAssertEqual(parsed(NSPredicate(format: "creatorUserRecordID == %@", CKRecord.ID(recordName: CKCurrentUserDefaultName))), .compare(.creatorUserRecordID, .equal, .value(.reference(WireReference(recordID: WireRecordID(recordName: "__defaultOwner__"), action: .none)))))
    }

    // MARK: - Refused forms

    func testRefusedFormsNameTheOffendingPart() {
        let cases: [(NSPredicate, String)] = [
            (NSPredicate(format: "a == 1 OR b == 2"), "OR"),
            (NSPredicate(format: "a == 1 || b == 2"), "||"),
            (NSPredicate(format: "name ENDSWITH 'o'"), "ENDSWITH"),
            (NSPredicate(format: "name LIKE 'B*'"), "LIKE"),
            (NSPredicate(format: "name MATCHES 'B.*'"), "MATCHES"),
            (NSPredicate(format: "name ==[c] 'bozo'"), "[c]"),
            (NSPredicate(format: "name BEGINSWITH[cd] 'bo'"), "[cd]"),
            (NSPredicate(format: "party.name == 'x'"), "key paths"),
            (NSPredicate(format: "%K == 1", "party.name"), "key paths"),
            (NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < 10", "here"), "location"),
            (NSPredicate(format: "NOT (a == 1 AND b == 2)"), "AND"),
            (NSPredicate(format: "NOT age BETWEEN {1, 2}"), "BETWEEN"),
            (NSPredicate(format: "NOT self CONTAINS 'x'"), "token"),
            (NSPredicate(format: "ALL tricks == 'x'"), "ALL"),
            (NSPredicate(format: "name CONTAINS[c] 'x'"), "[c]"),
            (NSPredicate(format: "name == nil"), "nil"),
            (NSPredicate(format: "a == b"), "two fields"),
            (NSPredicate(format: "name == 'unterminated"), "unterminated"),
            (NSPredicate(format: "(a == 1"), "')'"),
            (NSPredicate(format: "a == 1 )"), "unexpected"),
            (NSPredicate(format: "a == %@"), "argument"),
            (NSPredicate(format: "a == 1", "extra"), "arguments"),
            (NSPredicate(format: "a == %@", CKAsset(fileURL: URL(fileURLWithPath: "/tmp/x"))), "assets"),
            (NSPredicate(format: "a == %@", URL(fileURLWithPath: "/tmp")), "not a CloudKit field type"),
            (NSPredicate(format: "a ~ 1"), "unexpected character"),
            (NSPredicate(format: "_secret == 1"), "not a field key"),
            (NSPredicate(format: ""), "ends"),
            (NSPredicate(block: { _, _ in true }), "block predicates"),
            (NSCompoundPredicate(orPredicateWithSubpredicates: [NSPredicate(value: true)]), "OR"),
            (NSCompoundPredicate(notPredicateWithSubpredicate: NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(value: true)])), "AND"),
        ]
        for (predicate, part) in cases {
            guard let message = refusal(predicate) else {
                XCTFail("accepted, expected a refusal naming \(part)")
                continue
            }
            XCTAssertTrue(message.contains(part), "'\(message)' does not name \(part)")
        }
    }

    func testMalformedStringsNeverCrash() {
        let junk = ["(((", "a ==", "== 1", "AND", "NOT", "a BETWEEN {1}", "a IN", "{1, 2", "'", "%", "%z", "a == 1 AND", "tokenize(1, 'x')", "now(", "ANY", "a BEGINSWITH 1", "1 == 1", "SELF == 1"]
        for format in junk {
            XCTAssertNotNil(refusal(NSPredicate(format: format)), format)
        }
    }

    // MARK: - Evaluation

    func testEvaluateWithARecordMatchesLocally() {
        let clown = CKRecord(recordType: "Clown")
        clown["name"] = "Bozo"
        clown["age"] = 42
        clown["tricks"] = ["juggling", "unicycle"]
        clown["party"] = CKRecord.Reference(record: party, action: .deleteSelf)
        clown["bio"] = "The jolliest clown in town"
        XCTAssertTrue(NSPredicate(format: "name == 'Bozo'").evaluate(with: clown))
        XCTAssertFalse(NSPredicate(format: "name == 'bozo'").evaluate(with: clown), "equality is case-sensitive")
        XCTAssertTrue(NSPredicate(format: "age BETWEEN {40, 42}").evaluate(with: clown))
        XCTAssertTrue(NSPredicate(format: "age > 41.5").evaluate(with: clown))
        XCTAssertTrue(NSPredicate(format: "'juggling' IN tricks").evaluate(with: clown))
        XCTAssertFalse(NSPredicate(format: "tricks CONTAINS 'fire'").evaluate(with: clown))
        XCTAssertTrue(NSPredicate(format: "ANY tricks BEGINSWITH 'uni'").evaluate(with: clown))
        XCTAssertTrue(NSPredicate(format: "name BEGINSWITH 'Bo'").evaluate(with: clown))
        XCTAssertFalse(NSPredicate(format: "name BEGINSWITH 'bo'").evaluate(with: clown), "BEGINSWITH is case-sensitive")
        XCTAssertTrue(NSPredicate(format: "party == %@", party).evaluate(with: clown))
        XCTAssertTrue(NSPredicate(format: "party == %@", CKRecord.Reference(record: party, action: .none)).evaluate(with: clown), "references match by record ID only")
        XCTAssertTrue(NSPredicate(format: "self CONTAINS 'JOLLIEST circus'").evaluate(with: clown), "token search is case-insensitive, any token")
        XCTAssertFalse(NSPredicate(format: "ALL tokenize(%@, 'Cdl') IN allTokens", "jolliest circus").evaluate(with: clown))
        XCTAssertTrue(NSPredicate(format: "ALL tokenize(%@, 'Cdl') IN allTokens", "the jolliest TOWN").evaluate(with: clown))
        XCTAssertTrue(NSPredicate(format: "NOT name == 'Krusty' AND age != 3").evaluate(with: clown))
        XCTAssertFalse(NSPredicate(format: "missing == 1").evaluate(with: clown))
        XCTAssertFalse(NSPredicate(format: "missing != 1").evaluate(with: clown), "a missing field matches no comparison")
        XCTAssertFalse(NSPredicate(format: "name OR").evaluate(with: clown), "a refused predicate matches nothing")
        XCTAssertTrue(NSPredicate(format: "recordID == %@", clown.recordID).evaluate(with: clown))
    }

    func testDiacriticsMatterForEqualityButNotForTokens() {
        let dessert = CKRecord(recordType: "Dessert")
        dessert["name"] = "Crème brûlée"
        XCTAssertFalse(NSPredicate(format: "name == 'Creme brulee'").evaluate(with: dessert))
        XCTAssertTrue(NSPredicate(format: "self CONTAINS 'creme'").evaluate(with: dessert))
    }

    func testStringsOrderByUnicodeScalarValues() {
        XCTAssertTrue(TextSearch.scalarOrder("B", "a"), "uppercase sorts before lowercase")
        XCTAssertTrue(TextSearch.scalarOrder("z", "é"))
        XCTAssertEqual(WireFieldValue.order(.int64(2), .double(2.5)), .orderedAscending)
        XCTAssertNil(WireFieldValue.order(.string("1"), .int64(1)))
    }

    func testSortDescriptorsCarryTheirKey() {
        let descriptor = NSSortDescriptor(key: "creationDate", ascending: false)
        XCTAssertEqual(descriptor.key, "creationDate")
        XCTAssertFalse(descriptor.ascending)
        XCTAssertNil(NSSortDescriptor(keyPath: \String.count, ascending: true).key)
    }
}

extension PredicateTests {
    func testDeepNestingIsRefusedNotRecursedWithoutEnd() {
        let deep = String(repeating: "(", count: 10_000) + "a == 1" + String(repeating: ")", count: 10_000)
        XCTAssertTrue(refusal(NSPredicate(format: deep))?.contains("\(WirePredicate.maximumDepth)") == true)
        let nots = String(repeating: "NOT ", count: 10_000) + "a == 1"
        XCTAssertNotNil(refusal(NSPredicate(format: nots)))
        var compound = NSPredicate(format: "a == 1")
        for _ in 0..<100 { compound = NSCompoundPredicate(notPredicateWithSubpredicate: compound) }
        XCTAssertNotNil(refusal(compound))
        let fine = String(repeating: "(", count: 30) + "a == 1" + String(repeating: ")", count: 30)
        XCTAssertNil(refusal(NSPredicate(format: fine)))
    }
}
