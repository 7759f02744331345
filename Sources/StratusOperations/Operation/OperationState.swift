/// The stages of a ``CKOperation``'s life, in the only order it may pass through them.
///
/// ```
/// initialized → executing → finishing → finished
/// ```
///
/// `finishing` covers the time between the last request and the moment the final block has
/// returned; only then does the operation become `finished`, so an operation that depends on
/// this one always sees its results.
enum OperationState: Int, Comparable, Sendable {
    case initialized
    case executing
    case finishing
    case finished

    static func < (lhs: OperationState, rhs: OperationState) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Whether the state machine may move from this state to `next`.
    func canTransition(to next: OperationState) -> Bool {
        switch (self, next) {
        case (.initialized, .executing), (.executing, .finishing), (.finishing, .finished): true
        default: false
        }
    }
}
