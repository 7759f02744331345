import Foundation

/// What a predicate needs beyond the record to decide: the time `now()` stands for, and who
/// is asking (so `creatorUserRecordID == %@` matches both the user's real ID and
/// `__defaultOwner__`).
public struct WirePredicateContext: Sendable {
    /// The time of `now()`.
    public var now: Date
    /// The user record name of the reader, when known.
    public var currentUserRecordName: String?

    /// Creates a context.
    public init(now: Date, currentUserRecordName: String? = nil) {
        self.now = now
        self.currentUserRecordName = currentUserRecordName
    }
}

extension WireRecord {
    /// The value a predicate or sort descriptor reads for `field`; nil when the record has none.
    /// Encrypted fields are never queryable.
    public func value(for field: WireQueryField) -> WireFieldValue? {
        switch field {
        case .field(let key): fields[key]
        case .recordID: .reference(WireReference(recordID: recordID, action: .none))
        case .creationDate: creationDate.map { .date($0) }
        case .modificationDate: modificationDate.map { .date($0) }
        case .creatorUserRecordID: creatorUserRecordName.map(Self.userReference)
        case .lastModifiedUserRecordID: lastModifiedUserRecordName.map(Self.userReference)
        case .parent: parent.map { .reference($0) }
        case .share: share.map { .reference($0) }
        }
    }

    private static func userReference(_ name: String) -> WireFieldValue {
        .reference(WireReference(recordID: WireRecordID(recordName: name), action: .none))
    }

    /// The full-text tokens of every string field and string list of the record.
    public var allTokens: Set<String> {
        var tokens: Set<String> = []
        for value in fields.values {
            switch value {
            case .string(let text): tokens.formUnion(TextSearch.tokens(of: text))
            case .list(let elements):
                for case .string(let text) in elements { tokens.formUnion(TextSearch.tokens(of: text)) }
            default: break
            }
        }
        return tokens
    }
}

extension WirePredicate {
    /// Whether `record` satisfies the predicate.
    public func evaluate(_ record: WireRecord, in context: WirePredicateContext) -> Bool {
        switch self {
        case .constant(let value):
            return value
        case .and(let predicates):
            return predicates.allSatisfy { $0.evaluate(record, in: context) }
        case .not(let predicate):
            return !predicate.evaluate(record, in: context)
        case .compare(let field, let comparison, let operand):
            guard let value = record.value(for: field) else { return false }
            let other = operand.resolved(in: context)
            return WireFieldValue.compare(context.canonical(value, for: field), comparison, context.canonical(other, for: field))
        case .between(let field, let low, let high):
            guard let value = record.value(for: field) else { return false }
            return WireFieldValue.compare(value, .greaterOrEqual, low.resolved(in: context))
                && WireFieldValue.compare(value, .lessOrEqual, high.resolved(in: context))
        case .isIn(let field, let values):
            guard let found = record.value(for: field) else { return false }
            let value = context.canonical(found, for: field)
            return values.contains { WireFieldValue.compare(value, .equal, context.canonical($0, for: field)) }
        case .listContains(let field, let element):
            guard case .list(let elements)? = record.value(for: field) else { return false }
            return elements.contains { WireFieldValue.compare($0, .equal, element) }
        case .listContainsAny(let field, let candidates):
            guard case .list(let elements)? = record.value(for: field) else { return false }
            return elements.contains { element in candidates.contains { WireFieldValue.compare(element, .equal, $0) } }
        case .beginsWith(let field, let prefix):
            guard case .string(let text)? = record.value(for: field) else { return false }
            return text.unicodeScalars.starts(with: prefix.unicodeScalars)
        case .listMemberBeginsWith(let field, let prefix):
            guard case .list(let elements)? = record.value(for: field) else { return false }
            return elements.contains { element in
                if case .string(let text) = element { return text.unicodeScalars.starts(with: prefix.unicodeScalars) }
                return false
            }
        case .tokens(let match, let tokens):
            let recordTokens = record.allTokens
            switch match {
            case .any: return tokens.contains { recordTokens.contains($0) }
            case .all: return !tokens.isEmpty && tokens.allSatisfy { recordTokens.contains($0) }
            }
        case .near(let field, let center, let kilometres, let inclusive):
            guard case .location(let location)? = record.value(for: field) else { return false }
            return Self.isWithin(EarthDistance.geodesic(location, center), kilometres: kilometres, inclusive: inclusive)
        }
    }

    /// Whether a distance in metres lies within a radius in kilometres. The distance is
    /// divided, not the radius multiplied, so a radius written as a distance over 1,000 puts
    /// the point exactly on the circle.
    public static func isWithin(_ metres: Double, kilometres: Double, inclusive: Bool) -> Bool {
        inclusive ? metres / 1000 <= kilometres : metres / 1000 < kilometres
    }
}

extension WireQueryOperand {
    /// The operand's value at the time of `context`.
    public func resolved(in context: WirePredicateContext) -> WireFieldValue {
        switch self {
        case .value(let value): value
        case .now: .date(context.now)
        }
    }
}

extension WirePredicateContext {
    /// For the user fields, the reader's own user record name and `__defaultOwner__` are the
    /// same user; other values are left as they are.
    func canonical(_ value: WireFieldValue, for field: WireQueryField) -> WireFieldValue {
        guard field == .creatorUserRecordID || field == .lastModifiedUserRecordID,
              case .reference(let reference) = value,
              let user = currentUserRecordName,
              reference.recordID.recordName.hasSameUTF8Bytes(as: user)
        else { return value }
        return .reference(WireReference(recordID: WireRecordID(recordName: WireZoneID.currentUserOwnerName), action: .none))
    }
}

extension WireFieldValue {
    /// The order of two values of comparable kinds: numbers (integers and doubles together),
    /// strings (by Unicode scalar values), dates, and references (by record name, then zone).
    /// nil when the kinds cannot be ordered.
    public static func order(_ lhs: WireFieldValue, _ rhs: WireFieldValue) -> ComparisonResult? {
        func result<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
            a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        }
        switch (lhs, rhs) {
        case (.int64(let a), .int64(let b)): return result(a, b)
        case (.double(let a), .double(let b)):
            guard !a.isNaN, !b.isNaN else { return nil }
            return result(a, b)
        case (.int64(let a), .double(let b)): return exactOrder(a, b)
        case (.double(let a), .int64(let b)): return exactOrder(b, a).map(\.reversed)
        case (.string(let a), .string(let b)):
            if a.unicodeScalars.elementsEqual(b.unicodeScalars) { return .orderedSame }
            return TextSearch.scalarOrder(a, b) ? .orderedAscending : .orderedDescending
        case (.date(let a), .date(let b)): return result(a, b)
        case (.reference(let a), .reference(let b)):
            if a.recordID == b.recordID { return .orderedSame }
            let left = (a.recordID.recordName, a.recordID.zoneID.zoneName, a.recordID.zoneID.ownerName)
            let right = (b.recordID.recordName, b.recordID.zoneID.zoneName, b.recordID.zoneID.ownerName)
            return left < right ? .orderedAscending : .orderedDescending
        case (.bytes(let a), .bytes(let b)):
            return a == b ? .orderedSame : nil
        default:
            return nil
        }
    }

    /// The exact order of an integer and a double, without rounding the integer.
    private static func exactOrder(_ integer: Int64, _ double: Double) -> ComparisonResult? {
        guard !double.isNaN else { return nil }
        if double >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        if double < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let floor = double.rounded(.down)
        let whole = Int64(floor)
        if integer < whole { return .orderedAscending }
        if integer > whole { return .orderedDescending }
        return double > floor ? .orderedAscending : .orderedSame
    }

    /// Whether the value, or every element of a list, is a finite number or not a number.
    public var isFinite: Bool {
        switch self {
        case .double(let value): value.isFinite
        case .list(let values): values.allSatisfy(\.isFinite)
        default: true
        }
    }

    /// Whether `lhs comparison rhs` holds; references compare by record ID only. Values of
    /// kinds that cannot be compared never match (not even with `!=`).
    public static func compare(_ lhs: WireFieldValue, _ comparison: WireComparison, _ rhs: WireFieldValue) -> Bool {
        guard let order = order(lhs, rhs) else { return false }
        switch comparison {
        case .equal: return order == .orderedSame
        case .notEqual: return order != .orderedSame
        case .less: return order == .orderedAscending
        case .lessOrEqual: return order != .orderedDescending
        case .greater: return order == .orderedDescending
        case .greaterOrEqual: return order != .orderedAscending
        }
    }
}

extension ComparisonResult {
    /// The order with its sides swapped.
    package var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
