import StratusCore
import StratusOperations

/// An operation that knows the container it works in, so that a condition attached to it
/// (``AccountAvailable``) can check that container rather than guess one.
///
/// Every CloudKit operation knows it (its database's container, its configuration's, or
/// `CKContainer.default()`, where CloudKit runs an operation that names neither), and so does
/// every recipe (its database's).
protocol ContainerCarrying: AnyObject {
    /// The container the operation's requests go to.
    var carriedContainer: CKContainer { get }
}

extension CKOperation: ContainerCarrying {
    /// The container of the database the operation will run on.
    var carriedContainer: CKContainer { targetDatabase.container }
}

extension ModifyRecipeOperation: ContainerCarrying {
    /// The container of the recipe's database.
    var carriedContainer: CKContainer { database.container }
}

extension QueryAllOperation: ContainerCarrying {
    /// The container of the recipe's database.
    var carriedContainer: CKContainer { database.container }
}

extension RetryOperation: ContainerCarrying {
    /// The container of the recipe's database.
    var carriedContainer: CKContainer { database.container }
}
