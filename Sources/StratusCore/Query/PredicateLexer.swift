import Foundation

/// The words of a predicate format string.
enum PredicateToken: Equatable {
    case word(String)
    case string(String)
    case number(WireNumber)
    case argument(String)
    case symbol(String)

    /// A numeric literal, kept as an integer when it has no fraction or exponent.
    enum WireNumber: Equatable {
        case integer(Int64)
        case double(Double)
    }

    /// The token as it appeared, for error messages.
    var text: String {
        switch self {
        case .word(let word): word
        case .string(let string): "'\(string)'"
        case .number(.integer(let value)): "\(value)"
        case .number(.double(let value)): "\(value)"
        case .argument(let specifier): specifier
        case .symbol(let symbol): symbol
        }
    }

    /// Whether this is the keyword `keyword`, compared without regard to case.
    func isKeyword(_ keyword: String) -> Bool {
        if case .word(let word) = self { return word.uppercased() == keyword }
        return false
    }
}

/// Splits a predicate format string into tokens; says which character it could not read.
enum PredicateLexer {
    static func tokens(of format: String) -> Result<[PredicateToken], PredicateError> {
        var tokens: [PredicateToken] = []
        let scalars = Array(format.unicodeScalars)
        var index = 0
        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            index + offset < scalars.count ? scalars[index + offset] : nil
        }
        while let scalar = peek() {
            if CharacterSet.whitespacesAndNewlines.contains(scalar) {
                index += 1
                continue
            }
            if scalar == "'" || scalar == "\"" {
                var text = String.UnicodeScalarView()
                index += 1
                var closed = false
                while let next = peek() {
                    index += 1
                    if next == scalar { closed = true; break }
                    if next == "\\", let escaped = peek() {
                        index += 1
                        text.append(escaped)
                    } else {
                        text.append(next)
                    }
                }
                guard closed else { return .failure(PredicateError("unterminated string starting \(scalar)\(String(text).prefix(20))")) }
                tokens.append(.string(String(text)))
                continue
            }
            if scalar == "%" {
                var specifier = "%"
                index += 1
                while let next = peek(), "lhqL".unicodeScalars.contains(next) {
                    specifier.unicodeScalars.append(next)
                    index += 1
                }
                guard let conversion = peek() else { return .failure(PredicateError("format ends after '%'")) }
                specifier.unicodeScalars.append(conversion)
                index += 1
                tokens.append(.argument(specifier))
                continue
            }
            if CharacterSet.decimalDigits.contains(scalar) || (scalar == "-" && peek(1).map { CharacterSet.decimalDigits.contains($0) } == true && !(tokens.last.map(endsOperand) ?? false)) {
                var text = String(scalar)
                index += 1
                while let next = peek(), CharacterSet.decimalDigits.contains(next) || next == "." || next == "e" || next == "E"
                    || ((next == "-" || next == "+") && (text.last == "e" || text.last == "E")) {
                    text.unicodeScalars.append(next)
                    index += 1
                }
                if let integer = Int64(text) {
                    tokens.append(.number(.integer(integer)))
                } else if let double = Double(text) {
                    // `1e999` reads as infinity; refused like an infinite %f or %@ argument.
                    guard double.isFinite else {
                        return .failure(PredicateError("'\(text)' is not a finite number; CloudKit queries compare only finite numbers"))
                    }
                    tokens.append(.number(.double(double)))
                } else {
                    return .failure(PredicateError("'\(text)' is not a number"))
                }
                continue
            }
            if CharacterSet.letters.contains(scalar) || scalar == "_" || scalar == "$" || scalar == "#" {
                var word = String(scalar)
                index += 1
                while let next = peek(), CharacterSet.alphanumerics.contains(next) || next == "_" {
                    word.unicodeScalars.append(next)
                    index += 1
                }
                tokens.append(.word(word))
                continue
            }
            let pair = peek(1).map { String(scalar) + String($0) }
            if let pair, ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"].contains(pair) {
                tokens.append(.symbol(pair))
                index += 2
                continue
            }
            if "=<>!(){},[]:.".unicodeScalars.contains(scalar) {
                tokens.append(.symbol(String(scalar)))
                index += 1
                continue
            }
            return .failure(PredicateError("unexpected character '\(scalar)'"))
        }
        return .success(tokens)
    }

    /// Whether a token ends an operand, so a following '-' is not a sign.
    private static func endsOperand(_ token: PredicateToken) -> Bool {
        switch token {
        case .word, .string, .number, .argument: true
        case .symbol(let symbol): symbol == ")" || symbol == "}"
        }
    }
}

/// Why a predicate is not one CloudKit accepts; it names the offending part.
package struct PredicateError: Error, Hashable, Sendable {
    package let message: String

    init(_ message: String) {
        self.message = message
    }
}
