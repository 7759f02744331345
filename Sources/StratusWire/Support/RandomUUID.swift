/// Random (version 4) UUID strings, as `UUID().uuidString` spells them, made from the system's
/// random generator.
///
/// On Linux, Foundation's `UUID()` opens and reads `/dev/urandom` for every UUID, which made a
/// new identifier cost about 4 µs: a noticeable share of each `CKOperation` (its
/// `operationID`) and of each record ID made without a name. The system generator asks the
/// kernel for bytes without opening a file.
@usableFromInline package enum RandomUUID {
    /// A new random UUID in upper-case hexadecimal, such as
    /// `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    @usableFromInline package static func string() -> String {
        var generator = SystemRandomNumberGenerator()
        // Version 4 in the high word's third group; the RFC 4122 variant atop the low word.
        let high = (generator.next() as UInt64) & ~0xF000 | 0x4000
        let low = (generator.next() as UInt64) & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            var digits = 0
            for word in [high, low] {
                for shift in stride(from: 60, through: 0, by: -4) {
                    if digits == 8 || digits == 12 || digits == 16 || digits == 20 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let digit = UInt8(truncatingIfNeeded: word >> UInt64(shift)) & 0xF
                    buffer[position] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "A") + digit - 10
                    position += 1
                    digits += 1
                }
            }
            return position
        }
    }
}
