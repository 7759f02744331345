import Foundation

// Which values a predicate may hold: what the binary form (query cursors, CKQuery archives)
// can carry back.

extension WirePredicate {
    /// Why the predicate holds a value no query can use, or nil when it holds none.
    ///
    /// - No list holds another list (a CloudKit list never nests).
    /// - A list compared with a field (`==`, `CONTAINS`, `BETWEEN` bounds) holds values of one
    ///   kind, as a list field does.
    /// - The aggregate `{…}` of `IN` and `ANY … IN` may mix kinds (`likes IN {1, 2.5}` holds an
    ///   integer and a double, which compare as numbers) but holds no list.
    /// - A distance is never negated: CloudKit searches only inside a circle.
    /// - A location is compared only by distance (``near(_:center:kilometres:inclusive:)``),
    ///   never by `==`, `IN` or order.
    /// - Every location is a valid coordinate with finite components, and a distance's
    ///   radius is finite.
    /// - Every double and date is finite (CloudKit stores no infinities; the parser refuses
    ///   `1e999` as it refuses an infinite `%f` or `%@`).
    ///
    /// `NSPredicate(format:)` never makes such values; the server answers a raw request
    /// holding one with `invalidArguments`, since its query cursor could not carry it.
    /// Walks the predicate with an explicit stack, never by recursion.
    public var valueProblem: String? {
        var pending: [WirePredicate] = [self]
        while let predicate = pending.popLast() {
            switch predicate {
            case .and(let parts):
                pending.append(contentsOf: parts)
            case .not(.near(let field, _, _, _)):
                return "the distance from '\(field)' is negated; CloudKit searches only inside a circle, never outside one"
            case .not(let inner):
                pending.append(inner)
            case .isIn(let field, let values), .listContainsAny(let field, let values):
                if values.contains(where: \.isList) { return "the IN aggregate of '\(field)' holds a list" }
                if values.contains(where: \.isLocation) { return "the IN aggregate of '\(field)' holds a location; \(Self.distanceOnly)" }
                if let value = values.first(where: { !$0.isFiniteValue }) { return Self.notFinite(value, field) }
            case .compare(let field, _, .value(let value)), .listContains(let field, let value):
                if let problem = Self.listProblem(value, field) { return problem }
            case .between(let field, let low, let high):
                for case .value(let bound) in [low, high] {
                    if let problem = Self.listProblem(bound, field) { return problem }
                }
            case .near(let field, let center, let kilometres, _):
                if let problem = center.problem { return "the distance from '\(field)' is measured from a location whose \(problem)" }
                if !kilometres.isFinite { return "the radius \(kilometres) of the distance from '\(field)' is not finite" }
            case .constant, .compare, .beginsWith, .listMemberBeginsWith, .tokens:
                break
            }
        }
        return nil
    }

    /// Why a value compared with `field` is not one CloudKit could store or compare, or nil.
    private static func listProblem(_ value: WireFieldValue, _ field: WireQueryField) -> String? {
        guard case .list(let elements) = value else {
            if case .location = value { return "a location is compared with '\(field)'; \(distanceOnly)" }
            return value.isFiniteValue ? nil : notFinite(value, field)
        }
        if elements.contains(where: \.isLocation) { return "a list compared with '\(field)' holds a location; \(distanceOnly)" }
        if elements.contains(where: \.isList) { return "a list compared with '\(field)' holds another list" }
        if let first = elements.first, let other = elements.first(where: { $0.kind != first.kind }) {
            return "a list compared with '\(field)' mixes \(first.kind) and \(other.kind)"
        }
        if let element = elements.first(where: { !$0.isFiniteValue }) { return notFinite(element, field) }
        return nil
    }

    private static let distanceOnly = "locations are compared only by distance, with distanceToLocation:fromLocation:"

    private static func notFinite(_ value: WireFieldValue, _ field: WireQueryField) -> String {
        "the value \(value) compared with '\(field)' is not finite"
    }
}

extension WireFieldValue {
    /// Whether the value is a list.
    fileprivate var isList: Bool {
        if case .list = self { return true }
        return false
    }

    /// Whether the value is a location.
    fileprivate var isLocation: Bool {
        if case .location = self { return true }
        return false
    }

    /// Whether the value, not a list, is a finite double or date, or of another kind.
    fileprivate var isFiniteValue: Bool {
        switch self {
        case .double(let number): number.isFinite
        case .date(let date): date.timeIntervalSinceReferenceDate.isFinite
        case .location(let location): location.problem == nil
        default: true
        }
    }
}
