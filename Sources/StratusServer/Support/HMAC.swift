/// HMAC-SHA-256 (RFC 2104), which seals the cursors and tokens a server hands out so that a
/// forged, altered or foreign one is refused. Pinned by RFC 4231's test cases
/// (`HMACKnownAnswerTests`); compare a MAC with ``ConstantTime/equal(_:_:)``, never `==`.
package enum HMAC {
    private static let blockSize = 64

    /// The 32-byte authentication code of `message` under `key`.
    package static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var key = key.count > blockSize ? SHA256.digest(key) : key
        key += [UInt8](repeating: 0, count: blockSize - key.count)
        let inner = SHA256.digest(key.map { $0 ^ 0x36 } + message)
        return SHA256.digest(key.map { $0 ^ 0x5C } + inner)
    }
}
