import CSQLite

/// A prepared SQLite statement: bind, step, read columns, reset.
///
/// - Warning: Not thread-safe, as its connection.
final class SQLiteStatement: @unchecked Sendable {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection

    /// Prepares `sql` on `connection`.
    init(_ sql: String, in connection: SQLiteConnection) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(code: code, message: "\(connection.lastMessage) in \(sql)")
        }
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// SQLite's "copy the bytes now" destructor, which Swift does not import.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds `value` to parameter `index` (from 1).
    func bind(_ index: Int32, _ value: String) {
        sqlite3_bind_text(handle, index, value, -1, Self.transient)
    }

    /// Binds `value` to parameter `index` (from 1).
    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    /// Binds `value` to parameter `index` (from 1).
    func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(handle, index, value)
    }

    /// Binds `value`, or NULL when it is nil, to parameter `index` (from 1).
    func bind(_ index: Int32, orNull value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Runs the statement to its next row: true when there is one, false when it is done.
    ///
    /// - Throws: ``SQLiteError`` when the step fails.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteError(code: code, message: connection.lastMessage)
        }
    }

    /// Makes the statement ready to run again; its bindings stay.
    func reset() {
        sqlite3_reset(handle)
    }

    /// The text of column `index` (from 0) of the current row.
    func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The integer of column `index` (from 0) of the current row.
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The floating-point number of column `index` (from 0) of the current row.
    func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// How many rows the last statement of the connection changed.
    var changes: Int32 {
        sqlite3_changes(connection.handle)
    }
}
