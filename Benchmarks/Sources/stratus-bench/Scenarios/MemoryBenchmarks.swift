import Stratus

/// Scenario 8, memory: records of 200 bytes of field data saved through the public API, 400
/// per operation, in a fresh process; the growth of resident memory per record, over the
/// field data. The baselines hold the same records, each in its own fresh process.
///
/// Target: Stratus holds a record in at most 2× its field data.
enum MemoryBenchmarks {
    /// Bytes of field data per record.
    static let fieldBytes = 200

    /// Runs the scenario at `sizes` and reports its figures.
    static func run(_ sizes: Sizes) async throws -> ScenarioReport {
        let count = sizes.memoryRecords
        let stratus = try ChildProcess.run("memory-stratus", ["\(count)"])
        let sqlite = try ChildProcess.run("memory-sqlite", ["\(count)"])
        let dictionary = try ChildProcess.run("memory-dictionary", ["\(count)"])
        let field = Double(fieldBytes)
        let stratusBytes = stratus["bytes_per_record"] ?? .nan
        let sqliteBytes = sqlite["bytes_per_record"] ?? .nan
        let dictionaryBytes = dictionary["bytes_per_record"] ?? .nan

        var report = ScenarioReport(
            number: 8, name: "memory",
            title: "resident memory growth for \(Format.count(count)) records of \(fieldBytes) bytes of field data, each store in a fresh process"
        )
        report.add("field_bytes", "field data per record", field, .bytes)
        report.add("stratus_bytes_per_record", "Stratus, resident per record", stratusBytes, .bytes)
        report.add("sqlite_bytes_per_record", "SQLite in memory, resident per record", sqliteBytes, .bytes)
        report.add("sqlite_heap_bytes_per_record", "SQLite, its own count (sqlite3_memory_used)", sqlite["heap_bytes_per_record"] ?? .nan, .bytes)
        report.add("dictionary_bytes_per_record", "Swift dictionary, resident per record", dictionaryBytes, .bytes)
        report.ratio("ratio_stratus_vs_field_data", "Stratus ÷ field data", stratusBytes / field, target: .atMost(2))
        report.ratio("ratio_sqlite_vs_field_data", "SQLite ÷ field data", sqliteBytes / field)
        report.ratio("ratio_dictionary_vs_field_data", "dictionary ÷ field data", dictionaryBytes / field)
        report.ratio("ratio_stratus_vs_sqlite", "Stratus ÷ SQLite (memory)", stratusBytes / sqliteBytes)
        return report
    }

    /// The child's part for `store` (`stratus`, `sqlite` or `dictionary`): saves `count`
    /// records in batches of 400 and prints the resident growth per record.
    static func measureChild(_ store: String, count: Int) async throws {
        let batch = StratusFixture.batchSize
        func samples(_ start: Int) -> [SampleRecord] {
            SampleRecord.batch(start..<min(start + batch, count), fieldBytes: fieldBytes)
        }
        switch store {
        case "stratus":
            let fixture = try await StratusFixture.make()
            // One batch first, so the structures a first save makes are not counted.
            try await fixture.saveThroughOperations(SampleRecord.batch(0..<batch, prefix: "warm", fieldBytes: fieldBytes)[...])
            let before = ResidentMemory.bytes()
            for start in stride(from: 0, to: count, by: batch) {
                try await fixture.saveThroughOperations(samples(start)[...])
            }
            emit(before: before, count: count)
            blackHole(fixture)
        case "sqlite":
            let sqlite = try SQLiteRecordStore()
            try sqlite.save(SampleRecord.batch(0..<batch, prefix: "warm", fieldBytes: fieldBytes), zone: "Photos", now: 0)
            let before = ResidentMemory.bytes()
            let heapBefore = SQLiteRecordStore.memoryUsed
            for (index, start) in stride(from: 0, to: count, by: batch).enumerated() {
                try sqlite.save(samples(start), zone: "Photos", now: Double(index + 1))
            }
            emit(before: before, count: count)
            ChildProcess.emit("heap_bytes_per_record", Double(SQLiteRecordStore.memoryUsed - heapBefore) / Double(count))
            blackHole(sqlite)
        default:
            var dictionary = DictionaryRecordStore()
            dictionary.save(SampleRecord.batch(0..<batch, prefix: "warm", fieldBytes: fieldBytes), now: 0)
            let before = ResidentMemory.bytes()
            for (index, start) in stride(from: 0, to: count, by: batch).enumerated() {
                dictionary.save(samples(start), now: Double(index + 1))
            }
            emit(before: before, count: count)
            blackHole(dictionary)
        }
    }

    private static func emit(before: Int, count: Int) {
        ChildProcess.emit("bytes_per_record", Double(ResidentMemory.bytes() - before) / Double(count))
    }
}
