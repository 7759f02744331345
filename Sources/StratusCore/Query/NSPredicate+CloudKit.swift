import Foundation
import StratusWire

// Foundation on Linux marks `NSPredicate(format:)` unavailable. These declarations take its
// place for CloudKit code: an `Any...` overload is chosen over Foundation's `CVarArg...` one.
// An `NSPredicate` cannot carry extra state, so the predicate is a block predicate whose
// closure holds the parsed tree and hands it to a probe object; `CKQuery` reads it that way.

extension NSPredicate {
    /// Creates a predicate from a CloudKit query format string, substituting `args` for `%@`,
    /// `%K`, `%d` and `%f`, as CloudKit code writes it:
    ///
    /// ```swift
    /// NSPredicate(format: "party == %@ AND attendees > %d", partyReference, 10)
    /// ```
    ///
    /// The string is parsed now, but a format CloudKit does not accept (`OR`, `ENDSWITH`,
    /// key paths, a number that is not finite such as `1e999`, nesting deeper than
    /// ``WirePredicate/maximumDepth``, …) is reported only when a query runs, as
    /// `invalidArguments` naming the offending part, never as a crash. `evaluate(with:)` tests
    /// a `CKRecord` locally.
    public convenience init(format predicateFormat: String, _ args: Any...) {
        self.init(format: predicateFormat, argumentArray: args)
    }

    /// Creates a predicate from a format string and an array of arguments.
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        self.init(parsed: PredicateParser.parse(predicateFormat, arguments: (arguments ?? []).map { $0 }))
    }

    /// A block predicate holding an already parsed predicate, or the reason it was refused.
    convenience init(parsed: Result<WirePredicate, PredicateError>) {
        self.init(block: { object, _ in
            if let probe = object as? PredicateProbe {
                probe.parsed = parsed
                return false
            }
            guard let record = object as? CKRecord, case .success(let predicate) = parsed else { return false }
            return predicate.evaluate(record.wireSnapshot, in: WirePredicateContext(now: Date()))
        })
    }
}

/// The object a Stratus block predicate recognises and fills with its parsed tree.
final class PredicateProbe: NSObject, @unchecked Sendable {
    var parsed: Result<WirePredicate, PredicateError>?
}

/// Reads the `predicateFormat` of a value predicate without the deprecation warning Linux's
/// Foundation attaches to it.
private protocol PredicateFormatReading {
    var predicateFormat: String { get }
}

extension NSPredicate: PredicateFormatReading {}

extension NSPredicate {
    /// The CloudKit predicate this `NSPredicate` stands for: a Stratus format predicate,
    /// `NSPredicate(value:)`, or an AND/NOT `NSCompoundPredicate` of these. Anything else, such
    /// as a block predicate of your own or an OR compound, is refused with a message, and so
    /// is one nesting deeper than ``WirePredicate/maximumDepth`` (each compound counts a level).
    package var cloudKitPredicate: Result<WirePredicate, PredicateError> {
        let converted = cloudKitPredicate(depth: 0)
        // Compounds around format predicates add up; the tree as a whole must fit the limit.
        if case .success(let predicate) = converted, !predicate.isWithinMaximumDepth {
            return .failure(PredicateParser.tooDeep)
        }
        return converted
    }

    /// The predicate below `depth` enclosing compounds.
    private func cloudKitPredicate(depth: Int) -> Result<WirePredicate, PredicateError> {
        if let compound = self as? NSCompoundPredicate {
            guard depth < WirePredicate.maximumDepth else { return .failure(PredicateParser.tooDeep) }
            var parts: [WirePredicate] = []
            for subpredicate in compound.subpredicates {
                switch subpredicate.cloudKitPredicate(depth: depth + 1) {
                case .success(let part): parts.append(part)
                case .failure(let error): return .failure(error)
                }
            }
            switch compound.compoundPredicateType {
            case .and:
                return .success(.and(parts.flatMap { if case .and(let inner) = $0 { inner } else { [$0] } }))
            case .not:
                guard parts.count == 1 else { return .failure(PredicateError("a NOT compound needs exactly one subpredicate")) }
                switch parts[0] {
                case .and: return .failure(PredicateError("NOT cannot negate an AND compound in a CloudKit query"))
                case .between: return .failure(PredicateError("NOT cannot negate BETWEEN in a CloudKit query"))
                case .tokens: return .failure(PredicateError("NOT cannot negate a full-text token search in a CloudKit query"))
                case .near: return .failure(PredicateError("NOT cannot negate distanceToLocation:fromLocation: in a CloudKit query; it searches only inside a circle"))
                default: return .success(.not(parts[0]))
                }
            default:
                return .failure(PredicateError("OR compound predicates are not supported by CloudKit queries"))
            }
        }
        switch (self as PredicateFormatReading).predicateFormat {
        case "TRUEPREDICATE": return .success(.constant(true))
        case "FALSEPREDICATE": return .success(.constant(false))
        default: break
        }
        let probe = PredicateProbe()
        _ = evaluate(with: probe)
        return probe.parsed ?? .failure(PredicateError("block predicates are not supported by CloudKit queries; use NSPredicate(format:)"))
    }
}
