import Foundation
import StratusCore
import StratusOperations

/// An operation an ``OperationCondition`` brings with it, with the conditions and observers
/// it is added with.
///
/// Stratus-only, after the WWDC 2015 session "Advanced NSOperations". The operation goes on
/// the queue of the operation the condition is attached to, through
/// ``Foundation/OperationQueue/addOperation(_:conditions:observers:)``, so its own conditions
/// may bring dependencies in turn:
///
/// ```swift
/// func dependency(for operation: Operation) -> GeneratedDependency? {
///     GeneratedDependency(CheckDeveloperOperation(), conditions: [LoggedIn(session: session)])
/// }
/// ```
public struct GeneratedDependency: Sendable {
    /// The operation that runs first.
    public var operation: Operation
    /// The conditions it is added with.
    public var conditions: [any OperationCondition]
    /// The observers it is added with.
    public var observers: [any OperationObserver]

    /// Creates a dependency.
    ///
    /// - Parameters:
    ///   - operation: The operation that runs first. Give a new operation each time: an
    ///     operation cannot be added to a queue twice.
    ///   - conditions: The conditions it is added with.
    ///   - observers: The observers it is added with.
    public init(_ operation: Operation, conditions: [any OperationCondition] = [], observers: [any OperationObserver] = []) {
        self.operation = operation
        self.conditions = conditions
        self.observers = observers
    }
}
