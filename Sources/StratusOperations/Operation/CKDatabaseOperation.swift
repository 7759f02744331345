import StratusCore

/// An operation that works on one database.
///
/// CloudKit document: *CKDatabaseOperation*.
public class CKDatabaseOperation: CKOperation, @unchecked Sendable {
    private let storedDatabase = Locked<CKDatabase?>(nil)

    /// The database the operation works on. nil means the private database of the
    /// configuration's container. Setting it also sets `configuration.container` to the
    /// database's container. `CKDatabase.add(_:)` sets it for you.
    public var database: CKDatabase? {
        get { storedDatabase.value }
        set {
            storedDatabase.value = newValue
            if let newValue { configuration.container = newValue.container }
        }
    }

    override package var targetDatabase: CKDatabase {
        database ?? effectiveContainer.privateCloudDatabase
    }
}
