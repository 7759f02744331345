import Foundation

/// The process's resident memory, read from `/proc/self/statm` (Linux).
enum ResidentMemory {
    /// Bytes of this process resident in memory now; 0 where `/proc` is missing.
    static func bytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
