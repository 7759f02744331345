import Foundation

// An app's own copy of the types from WWDC 2015's "Advanced NSOperations" sample, as many apps
// carry in a module of their own: what `import Stratus` must not collide with.

/// A condition an operation must meet before it runs, as the talk's sample declares it.
public protocol OperationCondition {
    /// The condition's name, for error messages.
    static var name: String { get }
    /// Whether two operations with this condition may not run at once.
    static var isMutuallyExclusive: Bool { get }
}

/// The talk's mutual exclusivity condition.
public struct MutuallyExclusive<T>: OperationCondition {
    public static var name: String { "MutuallyExclusive<\(T.self)>" }
    public static var isMutuallyExclusive: Bool { true }

    public init() {}
}

/// The talk's group: an operation that runs others.
open class GroupOperation: Operation, @unchecked Sendable {
    /// The operations the group runs.
    public let operations: [Operation]

    public init(operations: [Operation]) {
        self.operations = operations
        super.init()
    }
}
