import Foundation
import StratusCore
import StratusOperations

/// A requirement an operation must meet before it runs, attached with
/// ``Foundation/OperationQueue/addOperation(_:conditions:observers:)``.
///
/// Stratus-only: CloudKit has no conditions. The design follows the WWDC 2015 session
/// "Advanced NSOperations": a condition may bring a dependency of its own (the talk's
/// "save favourite" needs "is a developer", which needs "logged in"), may make the operation
/// mutually exclusive with others of a category, and decides, once every dependency of the
/// operation has finished, whether the operation may run.
///
/// ```swift
/// struct LoggedIn: OperationCondition {
///     let session: Session
///     func dependency(for operation: Operation) -> GeneratedDependency? {
///         session.isLoggedIn ? nil : GeneratedDependency(LoginOperation(session))
///     }
///     func evaluate(for operation: Operation) async -> OperationConditionResult {
///         session.isLoggedIn ? .satisfied : .failed(LoginError.notLoggedIn)
///     }
/// }
/// queue.addOperation(saveFavourite, conditions: [LoggedIn(session: session)])
/// ```
///
/// Conditions are evaluated by a hidden operation that the operation depends on (a real
/// dependency: Stratus never overrides `isReady` to evaluate them), after every dependency the
/// operation had when it was added, and every generated dependency, has finished.
public protocol OperationCondition: Sendable {
    /// A short name for error messages; the condition's type name unless you give one.
    var name: String { get }

    /// The category in which the operation is mutually exclusive, or nil (the default).
    ///
    /// At most one operation of a category runs at a time, across every queue, in the order
    /// the operations were added; see ``MutuallyExclusive``.
    var mutualExclusivityCategory: String? { get }

    /// An operation that must finish before the condition is evaluated, or nil (the default).
    ///
    /// Called once, when the operation is added. The dependency goes on the same queue, with
    /// its own conditions and observers, so chains of conditions can be any depth.
    ///
    /// - Parameter operation: The operation the condition is attached to.
    /// - Returns: The operation to run first, with its own conditions and observers.
    func dependency(for operation: Operation) -> GeneratedDependency?

    /// Decides whether the operation may run. Called once, after every dependency of the
    /// operation has finished.
    ///
    /// - Parameter operation: The operation the condition is attached to.
    /// - Returns: ``OperationConditionResult/satisfied``, or
    ///   ``OperationConditionResult/failed(_:)`` with an error that says why not.
    func evaluate(for operation: Operation) async -> OperationConditionResult
}

extension OperationCondition {
    /// The condition's type name.
    public var name: String { String(describing: Self.self) }

    /// nil: the condition does not make the operation mutually exclusive.
    public var mutualExclusivityCategory: String? { nil }

    /// nil: the condition brings no dependency.
    public func dependency(for operation: Operation) -> GeneratedDependency? { nil }
}
