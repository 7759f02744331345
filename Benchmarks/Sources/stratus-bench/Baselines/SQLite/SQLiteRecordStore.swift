import CSQLite

/// The SQLite baseline: what an app would build on SQLite (as Core Data and GRDB do) to keep
/// the records Stratus keeps, doing the same work per write.
///
/// An in-memory database with one table of records keyed by zone and name, holding the change
/// tag as a `version` column and the five fields as columns; two secondary indexes, the ones the
/// query and paging scenarios need (party then creation date, type then creation date, both
/// ending in the name that breaks ties); and a change log with one row per write. Each write is
/// one prepared upsert whose update happens only when the stored version is the one the writer
/// read (none for a new record), followed by a change-log row; each batch is one transaction.
///
/// - Warning: Not thread-safe: one thread uses a store at a time.
final class SQLiteRecordStore: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let begin: SQLiteStatement
    private let commit: SQLiteStatement
    private let upsert: SQLiteStatement
    private let logChange: SQLiteStatement
    private let newestOfParty: SQLiteStatement
    private let firstPage: SQLiteStatement
    private let nextPage: SQLiteStatement
    private let changesAfter: SQLiteStatement
    private let byName: SQLiteStatement

    /// The columns every read returns, in ``read(_:)``'s order.
    private static let columns = "name, type, version, created, modified, party, title, \"order\", taken, pinned"

    /// Opens an empty store.
    init() throws(SQLiteError) {
        connection = try SQLiteConnection()
        try connection.execute("""
            CREATE TABLE records (
                zone TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, version INTEGER NOT NULL,
                created REAL NOT NULL, modified REAL NOT NULL,
                party TEXT, title TEXT, "order" INTEGER, taken REAL, pinned INTEGER,
                PRIMARY KEY (zone, name)
            ) WITHOUT ROWID;
            CREATE INDEX records_by_party ON records (zone, party, created, name);
            CREATE INDEX records_by_type ON records (zone, type, created, name);
            CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
            """)
        begin = try connection.prepare("BEGIN")
        commit = try connection.prepare("COMMIT")
        upsert = try connection.prepare("""
            INSERT INTO records (zone, name, type, version, created, modified, party, title, "order", taken, pinned)
            VALUES (?1, ?2, ?3, 1, ?4, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT (zone, name) DO UPDATE SET
                version = version + 1, modified = excluded.modified, party = excluded.party, title = excluded.title,
                "order" = excluded."order", taken = excluded.taken, pinned = excluded.pinned
            WHERE records.version IS ?10
            """)
        logChange = try connection.prepare("INSERT INTO changes (name) VALUES (?1)")
        newestOfParty = try connection.prepare("""
            SELECT \(Self.columns) FROM records WHERE zone = ?1 AND party = ?2 ORDER BY created DESC, name DESC LIMIT ?3
            """)
        firstPage = try connection.prepare("""
            SELECT \(Self.columns) FROM records WHERE zone = ?1 AND type = ?2 ORDER BY created, name LIMIT ?3
            """)
        nextPage = try connection.prepare("""
            SELECT \(Self.columns) FROM records WHERE zone = ?1 AND type = ?2 AND (created, name) > (?4, ?5)
            ORDER BY created, name LIMIT ?3
            """)
        changesAfter = try connection.prepare("""
            SELECT changes.seq, records.name, records.type, records.version, records.created, records.modified,
                records.party, records.title, records."order", records.taken, records.pinned
            FROM changes JOIN records ON records.zone = ?1 AND records.name = changes.name
            WHERE changes.seq > ?2 ORDER BY changes.seq LIMIT ?3
            """)
        byName = try connection.prepare("SELECT \(Self.columns) FROM records WHERE zone = ?1 AND name = ?2")
    }

    // MARK: - Writes

    /// Saves `batch` as new records (the writer read no version) in one transaction, at `now`.
    ///
    /// - Returns: How many were saved; a record that already exists is a version conflict and
    ///   is not saved.
    @discardableResult
    func save(_ batch: some Sequence<SampleRecord>, zone: String, now: Double) throws(SQLiteError) -> Int {
        try begin.step()
        begin.reset()
        var saved = 0
        for record in batch {
            upsert.bind(1, zone)
            upsert.bind(2, record.name)
            upsert.bind(3, SampleRecord.recordType)
            upsert.bind(4, now)
            upsert.bind(5, record.party)
            upsert.bind(6, record.title)
            upsert.bind(7, record.order)
            upsert.bind(8, record.taken)
            upsert.bind(9, record.pinned ? 1 : 0 as Int64)
            upsert.bind(10, orNull: nil)
            try upsert.step()
            upsert.reset()
            guard upsert.changes == 1 else { continue }
            logChange.bind(1, record.name)
            try logChange.step()
            logChange.reset()
            saved += 1
        }
        try commit.step()
        commit.reset()
        return saved
    }

    /// Saves `samples` as new records in batches of 400, one transaction each, the batch's
    /// number standing for the time.
    ///
    /// - Throws: ``Miscount`` when a record was not saved, or SQLite's error.
    func saveInBatches(_ samples: [SampleRecord], zone: String) throws {
        var saved = 0
        for (batch, start) in stride(from: 0, to: samples.count, by: 400).enumerated() {
            saved += try save(samples[start..<min(start + 400, samples.count)], zone: zone, now: Double(batch))
        }
        guard saved == samples.count else { throw Miscount(what: "SQLite's saves", counted: saved, expected: samples.count) }
    }

    // MARK: - Reads

    /// The `limit` newest records of `party`, newest first: the photo query of scenario 3.
    func newest(_ limit: Int, ofParty party: String, zone: String) throws(SQLiteError) -> [BaselineRecord] {
        newestOfParty.bind(1, zone)
        newestOfParty.bind(2, party)
        newestOfParty.bind(3, Int64(limit))
        defer { newestOfParty.reset() }
        return try readAll(newestOfParty, limit: limit)
    }

    /// Up to `limit` records of `type` in creation order, after `position` (from the start
    /// when nil): one page of a keyset scan, as a query cursor reads it.
    func page(ofType type: String, zone: String, after position: BaselinePosition?, limit: Int) throws(SQLiteError) -> [BaselineRecord] {
        let statement = position == nil ? firstPage : nextPage
        statement.bind(1, zone)
        statement.bind(2, type)
        statement.bind(3, Int64(limit))
        if let position {
            statement.bind(4, position.created)
            statement.bind(5, position.name)
        }
        defer { statement.reset() }
        return try readAll(statement, limit: limit)
    }

    /// Up to `limit` changed records after change `sequence`, in change order, with the last
    /// change's sequence: one page of a delta sync read from the change log.
    func changes(zone: String, after sequence: Int64, limit: Int) throws(SQLiteError) -> (records: [BaselineRecord], last: Int64) {
        changesAfter.bind(1, zone)
        changesAfter.bind(2, sequence)
        changesAfter.bind(3, Int64(limit))
        defer { changesAfter.reset() }
        var records: [BaselineRecord] = []
        records.reserveCapacity(limit)
        var last = sequence
        while try changesAfter.step() {
            last = changesAfter.int64(0)
            records.append(read(changesAfter, from: 1))
        }
        return (records, last)
    }

    /// The record named `name`, if there is one.
    func record(named name: String, zone: String) throws(SQLiteError) -> BaselineRecord? {
        byName.bind(1, zone)
        byName.bind(2, name)
        defer { byName.reset() }
        return try byName.step() ? read(byName, from: 0) : nil
    }

    private func readAll(_ statement: SQLiteStatement, limit: Int) throws(SQLiteError) -> [BaselineRecord] {
        var records: [BaselineRecord] = []
        records.reserveCapacity(limit)
        while try statement.step() {
            records.append(read(statement, from: 0))
        }
        return records
    }

    /// The record in the current row, whose ``columns`` start at column `first`.
    private func read(_ statement: SQLiteStatement, from first: Int32) -> BaselineRecord {
        BaselineRecord(
            name: statement.text(first),
            type: statement.text(first + 1),
            version: statement.int64(first + 2),
            created: statement.double(first + 3),
            modified: statement.double(first + 4),
            party: statement.text(first + 5),
            title: statement.text(first + 6),
            order: statement.int64(first + 7),
            taken: statement.double(first + 8),
            pinned: statement.int64(first + 9) != 0
        )
    }

    /// Bytes SQLite holds for all its connections in this process.
    static var memoryUsed: Int {
        Int(sqlite3_memory_used())
    }
}
