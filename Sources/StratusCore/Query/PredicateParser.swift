import Foundation
import StratusWire

/// Reads an `NSPredicate` format string with its arguments into a ``WirePredicate``, accepting
/// exactly the subset CloudKit accepts (cloudkit-api.md §15) and naming the part it refuses.
struct PredicateParser {
    private let tokens: [PredicateToken]
    private var position = 0
    private var arguments: [Any?]
    private var nextArgument = 0
    /// The levels the parser is inside: parentheses, NOTs, aggregates `{…}` and `tokenize(…)`.
    private var depth = 0

    /// The refusal of a predicate deeper than ``WirePredicate/maximumDepth``.
    static var tooDeep: PredicateError {
        PredicateError("the predicate nests more than \(WirePredicate.maximumDepth) levels deep (each NOT, AND, parenthesis, aggregate {…} and level of an array argument counts one)")
    }

    /// Runs `body` one level deeper. Every construct the parser recurses into goes through
    /// here, so input can never recurse past ``WirePredicate/maximumDepth`` levels: deeper
    /// predicates are refused, not parsed with unbounded recursion.
    private mutating func nested<T>(_ body: (inout PredicateParser) throws -> T) throws -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= WirePredicate.maximumDepth else { throw Self.tooDeep }
        return try body(&self)
    }

    /// Parses `format` with `arguments` substituted for `%@`, `%K`, `%d` and `%f`.
    ///
    /// Refuses a predicate that nests deeper than ``WirePredicate/maximumDepth``, counting its
    /// text as it is read (parentheses included) and then the tree it stands for (which adds
    /// the level of a top-level AND).
    static func parse(_ format: String, arguments: [Any?]) -> Result<WirePredicate, PredicateError> {
        switch PredicateLexer.tokens(of: format) {
        case .failure(let error):
            return .failure(error)
        case .success(let tokens):
            var parser = PredicateParser(tokens: tokens, arguments: arguments)
            do {
                let predicate = try parser.parsePredicate()
                guard parser.position == tokens.count else {
                    throw PredicateError("unexpected '\(tokens[parser.position].text)' after a complete predicate")
                }
                guard parser.nextArgument == arguments.count else {
                    throw PredicateError("\(arguments.count) arguments given, \(parser.nextArgument) used")
                }
                guard predicate.isWithinMaximumDepth else { throw tooDeep }
                return .success(predicate)
            } catch let error as PredicateError {
                return .failure(error)
            } catch {
                return .failure(PredicateError("\(error)"))
            }
        }
    }

    private init(tokens: [PredicateToken], arguments: [Any?]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    // MARK: - Tokens

    private var current: PredicateToken? { position < tokens.count ? tokens[position] : nil }

    private mutating func advance() -> PredicateToken? {
        defer { position += 1 }
        return current
    }

    private mutating func accept(symbol: String) -> Bool {
        guard current == .symbol(symbol) else { return false }
        position += 1
        return true
    }

    private mutating func accept(keyword: String) -> Bool {
        guard current?.isKeyword(keyword) == true else { return false }
        position += 1
        return true
    }

    private mutating func expect(symbol: String, _ context: String) throws {
        guard accept(symbol: symbol) else {
            throw PredicateError("expected '\(symbol)' \(context), found \(current.map { "'\($0.text)'" } ?? "the end")")
        }
    }

    // MARK: - Predicates

    private mutating func parsePredicate() throws -> WirePredicate {
        var parts = [try parseUnary()]
        while true {
            if accept(keyword: "AND") || accept(symbol: "&&") {
                parts.append(try parseUnary())
            } else if current?.isKeyword("OR") == true || current == .symbol("||") {
                throw PredicateError("'\(current?.text ?? "OR")' is not supported by CloudKit queries; only AND combines predicates")
            } else {
                break
            }
        }
        return parts.count == 1 ? parts[0] : .and(parts.flatMap { if case .and(let inner) = $0 { inner } else { [$0] } })
    }

    private mutating func parseUnary() throws -> WirePredicate {
        if accept(keyword: "NOT") || accept(symbol: "!") {
            let negated = try nested { try $0.parseUnary() }
            switch negated {
            case .and: throw PredicateError("NOT cannot negate an AND compound in a CloudKit query")
            case .between: throw PredicateError("NOT cannot negate BETWEEN in a CloudKit query")
            case .tokens: throw PredicateError("NOT cannot negate a full-text token search in a CloudKit query")
            case .near: throw PredicateError("NOT cannot negate distanceToLocation:fromLocation: in a CloudKit query; it searches only inside a circle")
            default: return .not(negated)
            }
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws -> WirePredicate {
        if accept(symbol: "(") {
            let inner = try nested { try $0.parsePredicate() }
            try expect(symbol: ")", "to close '('")
            return inner
        }
        if accept(keyword: "TRUEPREDICATE") { return .constant(true) }
        if accept(keyword: "FALSEPREDICATE") { return .constant(false) }
        return try parseComparison()
    }

    private enum Quantifier { case any, all }

    private mutating func parseComparison() throws -> WirePredicate {
        var quantifier: Quantifier?
        if accept(keyword: "ANY") || accept(keyword: "SOME") {
            quantifier = .any
        } else if accept(keyword: "ALL") {
            quantifier = .all
        } else if current?.isKeyword("NONE") == true {
            throw PredicateError("NONE is not supported by CloudKit queries")
        }
        let lhs = try parseExpression()
        guard let operatorToken = advance() else { throw PredicateError("expected an operator after '\(lhs)'") }
        let op = operatorName(operatorToken)
        if accept(symbol: "[") {
            let options = advance()?.text ?? ""
            throw PredicateError("the [\(options)] modifier of \(op) is not supported by CloudKit queries")
        }
        let rhs = try parseExpression()
        return try comparison(quantifier, lhs, op, rhs)
    }

    private func operatorName(_ token: PredicateToken) -> String {
        switch token {
        case .symbol(let symbol): symbol
        case .word(let word): word.uppercased()
        default: token.text
        }
    }

    // MARK: - Expressions

    private indirect enum Expression: CustomStringConvertible {
        case key(String)
        case value(WireFieldValue)
        case list([WireFieldValue])
        case now
        case selfObject
        case tokenize(String)
        case allTokens
        case distance(String, WireLocation)

        var description: String {
            switch self {
            case .key(let key): key
            case .value(let value): value.description
            case .list(let values): "{\(values.map(\.description).joined(separator: ", "))}"
            case .now: "now()"
            case .selfObject: "self"
            case .tokenize: "tokenize(…)"
            case .allTokens: "allTokens"
            case .distance(let key, let center): "distanceToLocation:fromLocation:(\(key), \(center))"
            }
        }
    }

    private mutating func parseExpression() throws -> Expression {
        guard let token = advance() else { throw PredicateError("the predicate ends where a value or key was expected") }
        switch token {
        case .string(let string):
            return .value(.string(string))
        case .number(.integer(let value)):
            return .value(.int64(value))
        case .number(.double(let value)):
            return .value(.double(value))
        case .argument(let specifier):
            return try argumentExpression(specifier)
        case .symbol("{"):
            return try nested { try $0.parseAggregate() }
        case .word(let word):
            return try wordExpression(word)
        case .symbol(let symbol):
            throw PredicateError("unexpected '\(symbol)' where a value or key was expected")
        }
    }

    /// The values of an aggregate `{a, b}` after its `{`, to its `}`.
    private mutating func parseAggregate() throws -> Expression {
        var values: [WireFieldValue] = []
        if !accept(symbol: "}") {
            repeat {
                switch try parseExpression() {
                case .value(let value): values.append(value)
                case let other: throw PredicateError("'\(other)' cannot stand in an aggregate {…}")
                }
            } while accept(symbol: ",")
            try expect(symbol: "}", "to close the aggregate")
        }
        return .list(values)
    }

    /// `tokenize('text', 'Cdl')` after the word `tokenize`.
    private mutating func parseTokenize() throws -> Expression {
        try expect(symbol: "(", "after tokenize")
        guard case .value(.string(let text)) = try parseExpression() else {
            throw PredicateError("tokenize needs a string to tokenize")
        }
        try expect(symbol: ",", "in tokenize(…, 'Cdl')")
        guard case .value(.string(let options)) = try parseExpression(), options == "Cdl" else {
            throw PredicateError("tokenize supports only the options 'Cdl'")
        }
        try expect(symbol: ")", "to close tokenize(")
        return .tokenize(text)
    }

    /// `:fromLocation:(field, location)` after the word `distanceToLocation`.
    private mutating func parseDistance() throws -> Expression {
        let function = "distanceToLocation:fromLocation:"
        try expect(symbol: ":", "in \(function)")
        guard case .word(let word)? = advance(), word == "fromLocation" else {
            throw PredicateError("the function is spelled \(function)(field, location)")
        }
        try expect(symbol: ":", "in \(function)")
        try expect(symbol: "(", "after \(function)")
        guard case .key(let key) = try parseExpression() else {
            throw PredicateError("\(function) needs a location field of the record first")
        }
        try expect(symbol: ",", "between the field and the location of \(function)")
        guard case .value(.location(let center)) = try parseExpression() else {
            throw PredicateError("\(function) needs a location to measure from: a CLLocation, given as %@")
        }
        try expect(symbol: ")", "to close \(function)(")
        return .distance(key, center)
    }

    private mutating func wordExpression(_ word: String) throws -> Expression {
        switch word.uppercased() {
        case "SELF": return .selfObject
        case "TRUE", "YES": return .value(.int64(1))
        case "FALSE", "NO": return .value(.int64(0))
        case "NULL", "NIL": throw PredicateError("comparing with nil is not supported by CloudKit queries")
        case "NOW":
            try expect(symbol: "(", "after now")
            try expect(symbol: ")", "after now(")
            return .now
        case "TOKENIZE":
            // Its arguments are expressions, which may call tokenize again: a level.
            return try nested { try $0.parseTokenize() }
        case "ALLTOKENS":
            return .allTokens
        case "DISTANCETOLOCATION":
            return try nested { try $0.parseDistance() }
        default:
            if current == .symbol(".") {
                throw PredicateError("key paths such as '\(word).…' are not supported by CloudKit queries; name a field of the record")
            }
            if current == .symbol("(") || current == .symbol(":") {
                throw PredicateError("the function '\(word)' is not supported by CloudKit queries")
            }
            return .key(try checkedKey(word))
        }
    }

    private func checkedKey(_ key: String) throws -> String {
        if WireQueryField(key: key) != .field(key) { return key }
        if let error = WireValidation.checkFieldKey(key), !key.isEmpty {
            if ["recordName", "recordType"].contains(key) { throw PredicateError("'\(key)' cannot be queried; use recordID") }
            throw PredicateError("'\(key)' is not a field key: \(error.message)")
        }
        return key
    }

    private mutating func argumentExpression(_ specifier: String) throws -> Expression {
        guard nextArgument < arguments.count else {
            throw PredicateError("\(specifier) has no argument: \(arguments.count) given")
        }
        let argument = arguments[nextArgument]
        nextArgument += 1
        // Before any cast: casting a nested array to a class (NSNull, NSNumber, CKRecord…)
        // bridges it recursively, all the way down.
        let remaining = WirePredicate.maximumDepth - depth
        if let argument, FieldValueConversion.nesting(of: argument, stoppingAbove: remaining) > remaining {
            throw Self.tooDeep
        }
        switch specifier.last {
        case "K":
            guard let key = argument as? String else { throw PredicateError("%K needs a key name, not \(describe(argument))") }
            if key.contains(".") { throw PredicateError("key paths such as '\(key)' are not supported by CloudKit queries") }
            return .key(try checkedKey(key))
        case "@":
            return try valueExpression(argument)
        case "d", "i", "u":
            guard let number = argument.flatMap(Self.number) else { throw PredicateError("\(specifier) needs an integer, not \(describe(argument))") }
            return .value(.int64(number.int64Value))
        case "f", "g", "e":
            guard let number = argument.flatMap(Self.number) else { throw PredicateError("\(specifier) needs a number, not \(describe(argument))") }
            guard number.doubleValue.isFinite else { throw PredicateError("\(specifier) needs a finite number, not \(number.doubleValue)") }
            return .value(.double(number.doubleValue))
        default:
            throw PredicateError("the format specifier \(specifier) is not supported; use %@, %K, %d or %f")
        }
    }

    /// A `%d` or `%f` argument as a number: an `NSNumber` or anything that bridges to one, and
    /// a `CGFloat` (CoreGraphics code and CloudKit's location samples pass a radius as one;
    /// Foundation on Linux does not bridge it).
    private static func number(_ argument: Any) -> NSNumber? {
        if let float = argument as? CGFloat { return NSNumber(value: Double(float)) }
        return argument as? NSNumber
    }

    private func valueExpression(_ argument: Any?) throws -> Expression {
        guard let argument, !(argument is NSNull) else {
            throw PredicateError("comparing with nil is not supported by CloudKit queries")
        }
        if let record = argument as? CKRecord { return .value(.reference(WireReference(recordID: record.recordID.wireValue, action: .none))) }
        if let recordID = argument as? CKRecord.ID { return .value(.reference(WireReference(recordID: recordID.wireValue, action: .none))) }
        if let reference = argument as? CKRecord.Reference { return .value(.reference(WireReference(recordID: reference.recordID.wireValue, action: .none))) }
        if argument is CKAsset { throw PredicateError("assets cannot be compared in a CloudKit query") }
        if !(argument is String), !(argument is NSString), let elements = argument as? [Any] {
            return .list(try elements.map { element in
                switch try valueExpression(element) {
                case .value(let value): return value
                default: throw PredicateError("a list argument cannot hold \(describe(element))")
                }
            })
        }
        switch FieldValueConversion.fieldValue(from: argument, encrypted: false) {
        case .success(let value): return .value(value)
        case .failure(let rejection): throw PredicateError("argument \(describe(argument)): \(rejection.reason)")
        }
    }

    private func describe(_ argument: Any?) -> String {
        argument.map { "\(type(of: $0))" } ?? "nil"
    }

    // MARK: - Meaning

    private func comparison(_ quantifier: Quantifier?, _ lhs: Expression, _ op: String, _ rhs: Expression) throws -> WirePredicate {
        if case .distance(let key, let center) = lhs { return try near(quantifier, key, center, op, radius: rhs, radiusFirst: false) }
        if case .distance(let key, let center) = rhs { return try near(quantifier, key, center, op, radius: lhs, radiusFirst: true) }
        for case .value(.location) in [lhs, rhs] {
            throw PredicateError("a CLLocation can be compared only by distance, with distanceToLocation:fromLocation:(field, location) < radius")
        }
        switch op {
        case "=", "==", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>":
            let comparison = try Self.comparison(op)
            if quantifier == .any {
                guard comparison == .equal else { throw PredicateError("ANY supports only =, IN, CONTAINS and BEGINSWITH in CloudKit queries") }
                switch (lhs, rhs) {
                case (.key(let key), .value(let value)): return .listContains(WireQueryField(key: key), value)
                case (.list(let values), .key(let key)): return .isIn(WireQueryField(key: key), values)
                default: throw PredicateError("ANY \(lhs) \(op) \(rhs) is not a form CloudKit queries accept")
                }
            }
            try refuseAll(quantifier, op)
            switch (lhs, rhs) {
            case (.key(let key), .value(let value)): return .compare(WireQueryField(key: key), comparison, .value(value))
            case (.key(let key), .now): return .compare(WireQueryField(key: key), comparison, .now)
            case (.value(let value), .key(let key)): return .compare(WireQueryField(key: key), comparison.flipped, .value(value))
            case (.now, .key(let key)): return .compare(WireQueryField(key: key), comparison.flipped, .now)
            case (.key, .key): throw PredicateError("'\(lhs) \(op) \(rhs)' compares two fields, which CloudKit queries do not support")
            default: throw PredicateError("'\(lhs) \(op) \(rhs)' must compare a field with a value")
            }
        case "IN":
            if quantifier == .all {
                guard case .tokenize(let text) = lhs, case .allTokens = rhs else {
                    throw PredicateError("ALL is supported only as ALL tokenize(%@, 'Cdl') IN allTokens")
                }
                return .tokens(.all, TextSearch.tokens(of: text))
            }
            switch (lhs, rhs) {
            case (.key(let key), .list(let values)):
                return quantifier == .any ? .listContainsAny(WireQueryField(key: key), values) : .isIn(WireQueryField(key: key), values)
            case (.value(let value), .key(let key)) where quantifier == nil:
                return .listContains(WireQueryField(key: key), value)
            default:
                throw PredicateError("'\(lhs) IN \(rhs)' is not a form CloudKit queries accept")
            }
        case "CONTAINS":
            try refuseAll(quantifier, op)
            switch (lhs, rhs) {
            case (.selfObject, .value(.string(let text))) where quantifier == nil:
                return .tokens(.any, TextSearch.tokens(of: text))
            case (.key(let key), .value(let value)):
                return .listContains(WireQueryField(key: key), value)
            default:
                throw PredicateError("'\(lhs) CONTAINS \(rhs)' is not a form CloudKit queries accept; CONTAINS means list membership, or full-text search with self")
            }
        case "BEGINSWITH":
            try refuseAll(quantifier, op)
            guard case .key(let key) = lhs, case .value(.string(let prefix)) = rhs else {
                throw PredicateError("BEGINSWITH needs a field and a string: '\(lhs) BEGINSWITH \(rhs)'")
            }
            return quantifier == .any ? .listMemberBeginsWith(WireQueryField(key: key), prefix) : .beginsWith(WireQueryField(key: key), prefix)
        case "BETWEEN":
            guard quantifier == nil else { throw PredicateError("ANY and ALL cannot be used with BETWEEN") }
            guard case .key(let key) = lhs, case .list(let bounds) = rhs, bounds.count == 2 else {
                throw PredicateError("BETWEEN needs a field and two bounds: '\(lhs) BETWEEN {low, high}'")
            }
            return .between(WireQueryField(key: key), .value(bounds[0]), .value(bounds[1]))
        case "ENDSWITH", "LIKE", "MATCHES":
            throw PredicateError("\(op) is not supported by CloudKit queries")
        default:
            throw PredicateError("'\(op)' is not an operator CloudKit queries accept")
        }
    }

    /// `distanceToLocation:fromLocation:(key, center) < radius`, `<=`, or the same written
    /// the other way round (`radius > …`, `>=`): CloudKit searches only inside a circle, whose
    /// radius is a number of kilometres.
    private func near(_ quantifier: Quantifier?, _ key: String, _ center: WireLocation, _ op: String, radius: Expression, radiusFirst: Bool) throws -> WirePredicate {
        guard quantifier == nil else { throw PredicateError("ANY and ALL cannot be used with distanceToLocation:fromLocation:") }
        let kilometres: Double
        switch radius {
        case .value(.int64(let number)): kilometres = Double(number)
        case .value(.double(let number)): kilometres = number
        default: throw PredicateError("distanceToLocation:fromLocation: is compared with a radius in kilometres, not '\(radius)'")
        }
        switch (op, radiusFirst) {
        case ("<", false), (">", true):
            return .near(WireQueryField(key: key), center: center, kilometres: kilometres, inclusive: false)
        case ("<=", false), ("=<", false), (">=", true), ("=>", true):
            return .near(WireQueryField(key: key), center: center, kilometres: kilometres, inclusive: true)
        default:
            throw PredicateError("searching for locations outside a circle ('\(op)') is not supported by CloudKit queries; use distanceToLocation:fromLocation:(field, location) < radius")
        }
    }

    private func refuseAll(_ quantifier: Quantifier?, _ op: String) throws {
        if quantifier == .all { throw PredicateError("ALL is not supported with \(op) in CloudKit queries") }
    }

    private static func comparison(_ op: String) throws -> WireComparison {
        switch op {
        case "=", "==": .equal
        case "!=", "<>": .notEqual
        case "<": .less
        case "<=", "=<": .lessOrEqual
        case ">": .greater
        default: .greaterOrEqual
        }
    }
}

extension WireComparison {
    /// The comparison with its sides swapped: `5 < x` is `x > 5`.
    var flipped: WireComparison {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }
}
