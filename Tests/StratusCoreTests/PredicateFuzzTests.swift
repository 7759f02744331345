import _StratusTestSupport
import Foundation
import StratusCore
import StratusWire
import XCTest

/// Random predicates around the depth limit, and far past it: deep braces, deep `%@` arrays,
/// deep NOT/AND chains and mixes of them. Each is accepted exactly when it fits
/// ``WirePredicate/maximumDepth``, refused with the depth message otherwise, and never crashes,
/// even on a 512 KiB thread stack. Small by default; `STRATUS_STRESS_SCALE` runs longer.
final class PredicateFuzzTests: XCTestCase {
    private let limit = WirePredicate.maximumDepth
    private static let depthMessage = "levels deep"

    /// A level count near the limit, or now and then one far past it.
    private func levelsAroundTheLimit(_ random: inout SeededGenerator) -> Int {
        Int.random(in: 0..<10, using: &random) == 0
            ? Int.random(in: 1_000...6_000, using: &random)
            : limit + Int.random(in: -4...3, using: &random)
    }

    /// The message of a refused predicate, or nil when it was accepted.
    private static func refusal(_ result: Result<WirePredicate, StratusCore.PredicateError>) -> String? {
        if case .failure(let error) = result { return error.message }
        return nil
    }

    // MARK: - Deep braces

    func testDeepAggregateBracesAreRefusedExactlyPastTheLimit() {
        let limit = self.limit
        var random = SeededGenerator(seed: 0xB2AC_E5)
        let cases = (0..<(100 * stressScale)).map { _ in
            (nots: Int.random(in: 0...3, using: &random), braces: max(1, levelsAroundTheLimit(&random)))
        }
        let failures = onSmallStack { () -> [String] in
            var failures: [String] = []
            for (nots, braces) in cases {
                let format = String(repeating: "NOT ", count: nots) + "tricks IN "
                    + String(repeating: "{", count: braces) + "'x'" + String(repeating: "}", count: braces)
                let message = Self.refusal(NSPredicate(format: format).cloudKitPredicate)
                let tooDeep = nots + braces > limit
                if tooDeep != (message?.contains(Self.depthMessage) == true) {
                    failures.append("\(nots) NOTs, \(braces) braces: \(message ?? "accepted")")
                }
                if braces == 1, message != nil { failures.append("\(nots) NOTs around one aggregate refused: \(message ?? "")") }
                if braces > 1, message == nil { failures.append("\(braces) braces accepted") }
            }
            return failures
        }
        XCTAssertEqual(failures, [])
    }

    // MARK: - Deep %@ arrays

    /// `1` inside `levels` containers of random kinds (Swift arrays, `NSArray`s, dictionaries),
    /// with optionals here and there, which are no level of their own.
    private func nestedArgument(_ levels: Int, _ random: inout SeededGenerator) -> (value: Any, isPlainList: Bool) {
        var value: Any = 1
        var kinds: Set<Int> = []
        for _ in 0..<levels {
            let kind = Int.random(in: 0..<4, using: &random)
            kinds.insert(kind)
            switch kind {
            case 0: value = [value]
            case 1: value = NSArray(object: value)
            case 2: value = ["k": value] as [String: Any]
            default: value = Optional<Any>.some([value]) as Any
            }
        }
        return (value, levels == 1 && !kinds.contains(2))
    }

    func testDeepArrayArgumentsAreRefusedExactlyPastTheLimit() {
        let limit = self.limit
        var random = SeededGenerator(seed: 0xA_11A7)
        var cases: [(nots: Int, levels: Int, plain: Bool)] = []
        var arguments: [Any] = []
        for _ in 0..<(100 * stressScale) {
            let nots = Int.random(in: 0...3, using: &random)
            let levels = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0...2, using: &random) : levelsAroundTheLimit(&random)
            let argument = nestedArgument(levels, &random)
            cases.append((nots, levels, argument.isPlainList))
            arguments.append(argument.value)
        }
        let handed = UncheckedSendable(arguments)
        let expectations = cases
        let failures = onSmallStack { () -> [String] in
            var failures: [String] = []
            for ((nots, levels, plain), argument) in zip(expectations, handed.value) {
                let format = String(repeating: "NOT ", count: nots) + "b IN %@"
                let message = Self.refusal(NSPredicate(format: format, argument).cloudKitPredicate)
                if (nots + levels > limit) != (message?.contains(Self.depthMessage) == true) {
                    failures.append("\(nots) NOTs, argument \(levels) deep: \(message ?? "accepted")")
                }
                if plain, message != nil { failures.append("\(nots) NOTs, a flat list refused: \(message ?? "")") }
                if levels > 1, message == nil { failures.append("an argument \(levels) deep accepted") }
            }
            return failures
        }
        XCTAssertEqual(failures, [])
    }

    // MARK: - Deep NOT and AND chains, and mixes

    /// A format string with its arguments, and how deep its text and its tree nest.
    private struct Shape {
        var format = ""
        var arguments: [Any] = []
        var textDepth = 0
        var treeDepth = 0
    }

    /// A random predicate: ANDs and parentheses outside, NOTs and parentheses inside, and a leaf
    /// that may hold an aggregate or an array argument, `levels` levels of text in all.
    private func randomShape(_ levels: Int, _ random: inout SeededGenerator) -> Shape {
        var shape = Shape()
        var closing = ""
        var hasAnd = false
        if Bool.random(using: &random) {
            // An unparenthesised top-level AND: a level of the tree, not of the text.
            shape.format += "x == 1 AND "
            hasAnd = true
        }
        let outer = min(levels, Int.random(in: 0...3, using: &random))
        for _ in 0..<outer {
            if Bool.random(using: &random) {
                shape.format += "y == 2 AND ("
                hasAnd = true
            } else {
                shape.format += "("
            }
            closing += ")"
            shape.textDepth += 1
        }
        let leafLevel = levels - outer > 0 && Int.random(in: 0..<3, using: &random) > 0 ? 1 : 0
        var nots = 0
        for _ in 0..<max(0, levels - outer - leafLevel) {
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                shape.format += "("
                closing += ")"
            case 1:
                shape.format += "!"
                nots += 1
            default:
                shape.format += "NOT "
                nots += 1
            }
            shape.textDepth += 1
        }
        if leafLevel == 1 {
            switch Int.random(in: 0..<(nots == 0 ? 4 : 3), using: &random) {
            case 0: shape.format += "b IN {1, 2}"
            case 1:
                shape.format += "b IN %@"
                shape.arguments.append(Bool.random(using: &random) ? [1, 2] as [Any] : NSArray(array: [1, 2]))
            case 2: shape.format += "ANY tricks IN {'juggling', 'unicycle'}"
            default: shape.format += "b BETWEEN {1, 3}"
            }
        } else {
            shape.format += nots == 0 && Bool.random(using: &random) ? "self CONTAINS 'juggling'" : "a == 1"
        }
        shape.format += String(closing.reversed())
        shape.textDepth += leafLevel
        shape.treeDepth = (hasAnd ? 1 : 0) + nots + leafLevel
        return shape
    }

    func testRandomMixesAreAcceptedExactlyWhenTheyFitTheLimit() throws {
        let limit = self.limit
        var random = SeededGenerator(seed: 0x5EED_0F_DEE9)
        let shapes = (0..<(200 * stressScale)).map { _ in randomShape(max(0, levelsAroundTheLimit(&random)), &random) }
        let handed = UncheckedSendable(shapes)
        let outcome = onSmallStack { () -> UncheckedSendable<(failures: [String], accepted: [(Shape, WirePredicate)])> in
            var failures: [String] = []
            var accepted: [(Shape, WirePredicate)] = []
            for shape in handed.value {
                let fits = shape.textDepth <= limit && shape.treeDepth <= limit
                let label = "\(shape.format.prefix(60))… (text \(shape.textDepth), tree \(shape.treeDepth))"
                switch NSPredicate(format: shape.format, argumentArray: shape.arguments).cloudKitPredicate {
                case .success(let tree):
                    if !fits { failures.append("accepted: \(label)") }
                    if tree.depth() != shape.treeDepth { failures.append("depth \(tree.depth()): \(label)") }
                    accepted.append((shape, tree))
                case .failure(let error):
                    if fits || !error.message.contains(Self.depthMessage) { failures.append("\(error.message): \(label)") }
                }
            }
            return UncheckedSendable((failures, accepted))
        }
        XCTAssertEqual(outcome.value.failures, [])
        XCTAssertGreaterThan(outcome.value.accepted.count, 0)
        // What the parser accepts reads back from the binary form and from a CKQuery archive.
        for (index, (shape, tree)) in outcome.value.accepted.enumerated() {
            var writer = BinaryWriter()
            tree.write(to: &writer)
            var reader = BinaryReader(writer.bytes)
            XCTAssertEqual(try? WirePredicate.read(from: &reader), tree, shape.format)
            guard index.isMultiple(of: 5) else { continue }
            let query = CKQuery(recordType: "Clown", predicate: NSPredicate(format: shape.format, argumentArray: shape.arguments))
            let data = try NSKeyedArchiver.archivedData(withRootObject: query, requiringSecureCoding: true)
            let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKQuery.self, from: data)
            XCTAssertEqual(try decoded?.parsedPredicate.get(), tree, shape.format)
        }
    }

    // MARK: - Wire trees

    func testRandomWireTreesReadBackExactlyWhenTheyFitTheLimit() {
        var random = SeededGenerator(seed: 0x7_2EE5)
        for _ in 0..<(200 * stressScale) {
            let depth = max(0, levelsAroundTheLimit(&random))
            let (tree, nestsLists) = RandomWirePredicate.make(depth: depth, using: &random)
            XCTAssertEqual(tree.depth(), min(depth, limit + 1), "depth() of a tree \(depth) deep")
            XCTAssertEqual(tree.isWithinMaximumDepth, depth <= limit)
            guard depth < 200 else { continue } // Writing recurses; the reader is what is under test.
            var writer = BinaryWriter()
            tree.write(to: &writer)
            var reader = BinaryReader(writer.bytes)
            let read = try? WirePredicate.read(from: &reader)
            XCTAssertEqual(read, depth <= limit && !nestsLists ? tree : nil, "a tree \(depth) deep")
        }
    }
}

/// Random wire predicates of an exact depth, built from the leaf up without recursion.
enum RandomWirePredicate {
    /// A predicate exactly `depth` deep, as ``WirePredicate/maximumDepth`` counts: a leaf of
    /// depth 0, 1 or more (lists, lists in lists), wrapped in NOTs and ANDs whose other parts
    /// are shallower than the path to the leaf. `nestsLists` when a list holds a list, which
    /// the binary format refuses whatever the depth.
    static func make(depth: Int, using random: inout SeededGenerator) -> (predicate: WirePredicate, nestsLists: Bool) {
        let scalar = WireFieldValue.int64(Int64.random(in: 0...3, using: &random))
        let leafDepth = min(depth, Int.random(in: 0...3, using: &random))
        var predicate: WirePredicate
        switch leafDepth {
        case 0:
            predicate = Bool.random(using: &random) ? .compare(.field("b"), .equal, .value(scalar)) : .constant(true)
        case 1:
            switch Int.random(in: 0..<4, using: &random) {
            case 0: predicate = .isIn(.field("b"), [scalar, .int64(9)])
            case 1: predicate = .listContainsAny(.field("tricks"), [.string("juggling")])
            case 2: predicate = .between(.field("b"), .value(.int64(0)), .now)
            default: predicate = .compare(.field("b"), .equal, .value(.list([scalar])))
            }
        default:
            var list = scalar
            for _ in 0..<(leafDepth - 1) { list = .list([list, scalar]) }
            predicate = Bool.random(using: &random) ? .isIn(.field("b"), [scalar, list]) : .compare(.field("b"), .notEqual, .value(.list([list])))
        }
        for _ in 0..<(depth - leafDepth) {
            if Int.random(in: 0..<3, using: &random) == 0 {
                var parts = [predicate]
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    parts.insert(.compare(.field("a"), .equal, .value(scalar)), at: Int.random(in: 0...parts.count, using: &random))
                }
                predicate = .and(parts)
            } else {
                predicate = .not(predicate)
            }
        }
        return (predicate, leafDepth > 1)
    }
}
