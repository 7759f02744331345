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
            case .not(let inner):
                pending.append(inner)
            case .isIn(let field, let values), .listContainsAny(let field, let values):
                if values.contains(where: \.isList) { return "the IN aggregate of '\(field)' holds a list" }
            case .compare(let field, _, .value(let value)), .listContains(let field, let value):
                if let problem = Self.listProblem(value, field) { return problem }
            case .between(let field, let low, let high):
                for case .value(let bound) in [low, high] {
                    if let problem = Self.listProblem(bound, field) { return problem }
                }
            case .constant, .compare, .beginsWith, .listMemberBeginsWith, .tokens:
                break
            }
        }
        return nil
    }

    /// Why a value compared with `field` is not a list CloudKit could store, or nil.
    private static func listProblem(_ value: WireFieldValue, _ field: WireQueryField) -> String? {
        guard case .list(let elements) = value else { return nil }
        if elements.contains(where: \.isList) { return "a list compared with '\(field)' holds another list" }
        if let first = elements.first, let other = elements.first(where: { $0.kind != first.kind }) {
            return "a list compared with '\(field)' mixes \(first.kind) and \(other.kind)"
        }
        return nil
    }
}

extension WireFieldValue {
    /// Whether the value is a list.
    fileprivate var isList: Bool {
        if case .list = self { return true }
        return false
    }
}
