import Foundation
@testable import StratusServer
import XCTest

/// The project's own SHA-256 against published answers: FIPS 180-4's examples (NIST's
/// "Example Algorithms" for SHA-256) and digests around the padding boundaries, where a message
/// of 55, 56 or 64 bytes needs one or two blocks of padding (expected values from coreutils'
/// `sha256sum`, a second implementation).
final class SHA256KnownAnswerTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    func testTheFIPS180ExamplesHashToTheirPublishedDigests() {
        let examples: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ]
        for (message, digest) in examples {
            XCTAssertEqual(hex(SHA256.digest(Array(message.utf8))), digest, "\"\(message)\"")
            XCTAssertEqual(SHA256.hex(Array(message.utf8)), digest, "\"\(message)\" as hexadecimal")
        }
    }

    func testOneMillionRepetitionsOfTheLetterAHashToThePublishedDigest() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        XCTAssertEqual(SHA256.hex(message), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testMessagesAroundThePaddingBoundariesHashAsASecondImplementationDoes() {
        // The message of length n is the bytes 0, 1, 2, … n-1, each modulo 251.
        let digests: [Int: String] = [
            55: "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59",
            56: "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562",
            57: "2fe741af801cc238602ac0ec6a7b0c3a8a87c7fc7d7f02a3fe03d1c12eac4d8f",
            63: "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488",
            64: "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108",
            65: "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781",
            119: "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6",
            120: "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c",
            127: "92ca0fa6651ee2f97b884b7246a562fa71250fedefe5ebf270d31c546bfea976",
            128: "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5",
            129: "5099c6a56203f9687f7d33f4bfdf576d31dc91f6b695ecea38b2770c87631135",
        ]
        for (length, digest) in digests.sorted(by: { $0.key < $1.key }) {
            let message = (0..<length).map { UInt8($0 % 251) }
            XCTAssertEqual(SHA256.hex(message), digest, "\(length) bytes")
        }
    }
}
