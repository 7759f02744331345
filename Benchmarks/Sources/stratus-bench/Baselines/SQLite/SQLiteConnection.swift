import CSQLite

/// One connection to an in-memory SQLite database, for the baselines.
///
/// - Warning: Not thread-safe: one thread uses a connection at a time.
final class SQLiteConnection: @unchecked Sendable {
    /// The `sqlite3` handle.
    let handle: OpaquePointer

    /// Opens a new, private in-memory database.
    ///
    /// - Throws: ``SQLiteError`` when SQLite cannot open it.
    init() throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(":memory:", &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw SQLiteError(code: code, message: "cannot open an in-memory database")
        }
        self.handle = handle
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs `sql`, one or more statements with no parameters and no rows.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: message.map { String(cString: $0) } ?? sql)
        }
    }

    /// A prepared statement for `sql`.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(sql, in: self)
    }

    /// The message of the connection's last error.
    var lastMessage: String {
        String(cString: sqlite3_errmsg(handle))
    }
}

/// An SQLite call that failed.
struct SQLiteError: Error, CustomStringConvertible {
    /// SQLite's result code.
    var code: Int32
    /// SQLite's message, or what was being done.
    var message: String

    var description: String { "SQLite error \(code): \(message)" }
}
