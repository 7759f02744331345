import Foundation

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
/// An operation with several categories waits until it can hold all of them at once, so two
/// operations that share two categories never wait for each other. An operation waits for
/// its categories only once its dependencies have finished and its conditions have passed, but
/// it keeps its place in the order from the moment it was added (an operation that depends on
/// a later one of its category runs after it, since it could not run first). A
/// ``GroupOperation`` that holds a category lets its own children of that category run, one at
/// a time among themselves.
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
