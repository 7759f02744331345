// How deeply a predicate nests: the one limit every reader of predicates enforces.

extension WirePredicate {
    /// The deepest a query predicate may nest: 64 levels. Deeper predicates are refused
    /// everywhere one is read, with the same count, so a predicate one layer accepts is never
    /// refused by the next:
    ///
    /// - `NSPredicate(format:)` and `NSCompoundPredicate` conversion refuse it (the query then
    ///   fails with `invalidArguments` naming this limit);
    /// - the binary predicate reader, and with it the `CKQuery` archive decoder (which returns
    ///   nil) and the server's query cursors, refuse it;
    /// - the server answers a query request holding it with `invalidArguments`, whatever the
    ///   client parsed.
    ///
    /// **What counts.** The depth of a predicate is the greatest number of levels on any path
    /// from its root down, where each of these is one level:
    ///
    /// - a `NOT` (``not(_:)``) and an `AND` (``and(_:)``);
    /// - a list of values: the aggregate `{…}` of `IN` (``isIn(_:_:)``,
    ///   ``listContainsAny(_:_:)``), the `{low, high}` bounds of `BETWEEN`
    ///   (``between(_:_:_:)``), and every ``WireFieldValue/list(_:)`` a comparison holds
    ///   (lists inside lists count again).
    ///
    /// A comparison, a token search or `TRUEPREDICATE` alone has depth 0. So `a == 1` is 0,
    /// `NOT a == 1` is 1, `b IN {1, 2}` is 1, `a == 1 AND NOT b IN {1, 2}` is 3, and 64 `NOT`s
    /// around `a == 1` are exactly at the limit.
    ///
    /// While it reads a format string, the parser counts every construct it descends into as
    /// a level: each `NOT`/`!`, each pair of parentheses (the parsed tree drops them), each
    /// aggregate `{…}`, each `tokenize(…)`, and each level of an array given for `%@`
    /// (`[1, 2]` is one, `[[1]]` two, whether Swift arrays, `NSArray`s, sets or dictionaries).
    /// Each `NSCompoundPredicate` counts one level too. A predicate whose text or compound
    /// structure nests deeper than the limit is refused even when the tree it stands for
    /// would not be, and then the tree is checked as well (a top-level `AND` adds its level
    /// there).
    ///
    /// Depth is measured with an explicit stack, never by recursion, and the parser and the
    /// binary reader stop descending one level past the limit, so a predicate thousands of
    /// levels deep is refused without exhausting a thread's stack.
    public static let maximumDepth = 64

    /// The predicate's depth as ``maximumDepth`` counts it, measured without recursion.
    ///
    /// Stops as soon as the depth passes `limit`, returning `limit + 1`, so that measuring a
    /// predicate far too deep costs no more than reaching the limit along one path.
    public func depth(stoppingAbove limit: Int = WirePredicate.maximumDepth) -> Int {
        enum Node {
            case predicate(WirePredicate)
            case value(WireFieldValue)
        }
        // Each node with the number of levels above and including it.
        var pending: [(node: Node, level: Int)] = [(.predicate(self), 0)]
        var deepest = 0
        while let (node, level) = pending.popLast() {
            deepest = max(deepest, level)
            if deepest > limit { return limit + 1 }
            switch node {
            case .predicate(let predicate):
                switch predicate {
                case .and(let parts):
                    deepest = max(deepest, level + 1)
                    pending.append(contentsOf: parts.map { (.predicate($0), level + 1) })
                case .not(let inner):
                    pending.append((.predicate(inner), level + 1))
                case .isIn(_, let values), .listContainsAny(_, let values):
                    deepest = max(deepest, level + 1)
                    pending.append(contentsOf: values.map { (.value($0), level + 1) })
                case .between(_, let low, let high):
                    deepest = max(deepest, level + 1)
                    for case .value(let bound) in [low, high] { pending.append((.value(bound), level + 1)) }
                case .compare(_, _, .value(let value)), .listContains(_, let value):
                    pending.append((.value(value), level))
                case .constant, .compare, .beginsWith, .listMemberBeginsWith, .tokens, .near:
                    break
                }
            case .value(.list(let elements)):
                deepest = max(deepest, level + 1)
                pending.append(contentsOf: elements.map { (.value($0), level + 1) })
            case .value:
                break
            }
        }
        return min(deepest, limit + 1)
    }

    /// Whether the predicate nests no deeper than ``maximumDepth``; measured without recursion.
    public var isWithinMaximumDepth: Bool {
        depth() <= Self.maximumDepth
    }
}
