/// Bytes the server hands out and takes back unchanged (query cursors, change tokens): a body
/// followed by its HMAC-SHA-256 under the server's own key, so that a flipped byte, a forged
/// value or one from another server is refused.
enum Sealing {
    /// `body` followed by its MAC under `key`.
    static func seal(_ body: [UInt8], key: [UInt8]) -> [UInt8] {
        body + HMAC.sha256(key: key, message: body)
    }

    /// The body of bytes sealed with `key`, or nil for bytes this server did not seal. The MAC
    /// is compared in constant time (``ConstantTime/equal(_:_:)``), so how long a refusal takes
    /// does not tell how much of a forged MAC was right.
    static func open(_ bytes: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard bytes.count > 32 else { return nil }
        let body = Array(bytes.dropLast(32))
        guard ConstantTime.equal(bytes.suffix(32), HMAC.sha256(key: key, message: body)) else { return nil }
        return body
    }
}
