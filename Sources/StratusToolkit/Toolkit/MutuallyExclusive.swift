import Foundation
import StratusCore
import StratusOperations

/// A condition that lets at most one operation of a category run at a time, across every
/// queue, in the order the operations were added.
///
/// Stratus-only, after `MutuallyExclusive<T>` in the WWDC 2015 session "Advanced
/// NSOperations". Name the category with any type, or with a string:
///
/// ```swift
/// enum AlertPresentation {}
/// queue.addOperation(showAlert, conditions: [MutuallyExclusive<AlertPresentation>()])
/// queue.addOperation(editProfile, conditions: [MutuallyExclusive("profile"), MutuallyExclusive("network")])
/// ```
///
/// How the categories are granted:
/// - An operation with several categories waits until it can hold all of them at once, so two
///   operations that share two categories never wait for each other.
/// - An operation asks for its categories once its dependencies have finished and its
///   conditions have passed, and holds them until it has finished and its observers heard it.
///   It keeps its place in the order from the moment it was added, except that an operation
///   that depends on a later one of its category lets that one go first (it could not run
///   first anyway).
/// - A ``GroupOperation`` with categories runs as one operation: it holds them, and those its
///   children need, for its whole run, while its children of those categories take turns
///   among themselves. Two groups whose children need each other's categories therefore take
///   turns.
/// - A wait that would never end (children added to running groups later, needing each
///   other's categories) is refused: the operation does not run, and fails with an
///   ``OperationConditionError`` that names the circle of waits.
///
/// - Important: An operation is granted its categories before its queue starts it. On a queue
///   that runs few operations at a time, a group that is running there and whose children
///   need a category held by an operation waiting behind it in the same queue waits forever,
///   as a lock taken twice does. Give such groups a queue without a width limit.
///
/// The condition itself always passes.
public struct MutuallyExclusive<Category>: OperationCondition {
    /// The category's name.
    public let category: String

    /// Creates a condition whose category is the type `Category`.
    public init() {
        category = String(reflecting: Category.self)
    }

    /// The condition's name, with the category.
    public var name: String { "MutuallyExclusive(\(category))" }

    /// ``category``. - SeeAlso: ``OperationCondition/mutualExclusivityCategory``
    public var mutualExclusivityCategory: String? { category }

    /// Always ``OperationConditionResult/satisfied``.
    public func evaluate(for operation: Operation) async -> OperationConditionResult {
        .satisfied
    }
}

extension MutuallyExclusive where Category == String {
    /// Creates a condition whose category is a string.
    ///
    /// - Parameter category: The category's name; categories named by types use the type's
    ///   full name (`String(reflecting:)`), so a string cannot clash with one by accident
    ///   unless it is such a name.
    public init(_ category: String) {
        self.category = category
    }
}
