@testable import StratusServer
import XCTest

/// The project's own HMAC-SHA-256 against RFC 4231's test cases 1–7 (case 5's MAC truncated to
/// 128 bits, as the RFC gives it; cases 6 and 7 use a key longer than a block, which is hashed
/// first).
final class HMACKnownAnswerTests: XCTestCase {
    private func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var digits = hex.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            result.append(UInt8(String([high, low]), radix: 16) ?? 0)
        }
        return result
    }

    func testRFC4231TestCasesGiveTheirPublishedMACs() {
        let largeKey = [UInt8](repeating: 0xAA, count: 131)
        let cases: [(String, [UInt8], [UInt8], String)] = [
            ("1", [UInt8](repeating: 0x0B, count: 20), Array("Hi There".utf8),
             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            ("2", Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
             "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ("3", [UInt8](repeating: 0xAA, count: 20), [UInt8](repeating: 0xDD, count: 50),
             "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            ("4", Array(1...25), [UInt8](repeating: 0xCD, count: 50),
             "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            ("5", [UInt8](repeating: 0x0C, count: 20), Array("Test With Truncation".utf8),
             "a3b6167473100ee06e0c796c2955552b"),
            ("6", largeKey, Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
            ("7", largeKey, Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                                   + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
             "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        ]
        for (name, key, message, mac) in cases {
            let expected = bytes(mac)
            XCTAssertEqual(Array(HMAC.sha256(key: key, message: message).prefix(expected.count)), expected, "test case \(name)")
        }
    }

    func testAKeyOfExactlyOneBlockIsUsedAsItIs() {
        // 64 bytes: padded to the block with nothing, not hashed (value from Python's hmac module).
        let key = (0..<64).map { UInt8($0) }
        XCTAssertEqual(HMAC.sha256(key: key, message: Array("Sample message for keylen=blocklen".utf8)), bytes("8bb9a1db9806f20df7f77b82138c7914d174d59e13dc4d0169c9057b133e1d62"))
    }
}
