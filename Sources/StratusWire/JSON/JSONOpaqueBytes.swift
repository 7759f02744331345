import Foundation

/// Opaque bytes (query cursors, change tokens) as CKWS's `continuationMarker` and `syncToken`
/// carry them: a standard base64 string.
enum JSONOpaqueBytes {
    /// Writes `bytes` as base64 under `key`, when there are any.
    static func encode<Key: CodingKey>(_ bytes: [UInt8]?, forKey key: Key, in container: inout KeyedEncodingContainer<Key>) throws {
        try container.encodeIfPresent(bytes.map { Data($0).base64EncodedString() }, forKey: key)
    }

    /// The bytes under `key`; nil when absent; `invalidArguments` when not base64.
    static func decode<Key: CodingKey>(forKey key: Key, in container: KeyedDecodingContainer<Key>) throws -> [UInt8]? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.invalid(key, in: container, "'\(text.prefix(40))' is not a base64 string")
        }
        return [UInt8](data)
    }
}

/// Integers read so that a number out of range or with a fraction is `invalidArguments` naming
/// its key (Foundation's decoder on Linux reports those as "not valid JSON", with no key).
enum JSONInteger {
    /// The integer under `key`; nil when absent or null.
    static func decodeIfPresent<Key: CodingKey>(forKey key: Key, in container: KeyedDecodingContainer<Key>) throws -> Int? {
        guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
        return try decode(forKey: key, in: container)
    }

    /// The integer under `key`, which must be there.
    static func decode<Key: CodingKey>(forKey key: Key, in container: KeyedDecodingContainer<Key>) throws -> Int {
        do {
            return try container.decode(Int.self, forKey: key)
        } catch {
            guard let number = try? container.decode(Double.self, forKey: key) else { throw error }
            throw DecodingError.invalid(key, in: container, "\(number) is not an integer from \(Int.min) to \(Int.max)")
        }
    }
}
