import Foundation
@testable import StratusWire
import XCTest

// What the JSON tests share: the JSON text of a value, the error decoding a text throws, and
// assertions on refusals, per-item
// results and mangled bodies.

extension XCTestCase {
    /// `value`'s JSON as text.
    func json(_ value: some Encodable) throws -> String {
        String(decoding: try WireJSON.encode(value), as: UTF8.self)
    }

    /// The error decoding `text` as `type` throws, nil when it decodes; a request decodes with
    /// its `context` (``WireJSON/decode(_:from:context:)``).
    func decodeError<Value: Decodable>(_ type: Value.Type, _ text: String, context: WireRequestContext? = nil) -> WireError? {
        do {
            if let context {
                _ = try WireJSON.decode(type, from: Data(text.utf8), context: context)
            } else {
                _ = try WireJSON.decode(type, from: Data(text.utf8))
            }
            return nil
        } catch {
            return error
        }
    }

    /// Asserts that decoding failed with `invalidArguments` whose message names `key`.
    func assertInvalid(_ error: WireError?, naming key: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(error?.code, .invalidArguments, error?.message ?? "decoded", file: file, line: line)
        XCTAssertTrue(error?.message.contains(key) == true, "'\(key)' not in: \(error?.message ?? "no error")", file: file, line: line)
    }

    /// Asserts that two lists of per-item results hold the same IDs and results, in order.
    func assertSameResults<ID: Equatable, Value: Equatable>(_ lhs: [WireItemResult<ID, Value>], _ rhs: [WireItemResult<ID, Value>], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(lhs.map(\.id), rhs.map(\.id), file: file, line: line)
        XCTAssertEqual(lhs.map(\.result), rhs.map(\.result), file: file, line: line)
    }

    /// Every decoding of `text` with bytes changed, dropped or cut short either succeeds or is
    /// `invalidArguments`; none crashes.
    func assertMangledCopiesDecodeOrAreInvalid<Value: Decodable>(_ type: Value.Type, _ text: String, context: WireRequestContext? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let original = Array(text.utf8)
        let replacements = Array(#"{}[]",:0-9eE."a\"#.utf8)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<2_000 {
            var bytes = original
            for _ in 0..<(1 + next(3)) {
                let index = next(bytes.count)
                switch next(3) {
                case 0: bytes[index] = replacements[next(replacements.count)]
                case 1: bytes.remove(at: index)
                default: bytes.removeSubrange(index...)
                }
                if bytes.isEmpty { break }
            }
            do {
                if let context {
                    _ = try WireJSON.decode(type, from: Data(bytes), context: context)
                } else {
                    _ = try WireJSON.decode(type, from: Data(bytes))
                }
            } catch {
                XCTAssertEqual(error.code, .invalidArguments, String(decoding: bytes, as: UTF8.self), file: file, line: line)
            }
        }
    }

}
