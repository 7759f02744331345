import Foundation
import Stratus

/// Building and copying records: `CKRecord` against a plain `[String: Any]` holding the same values.
enum RecordBenchmarks {
    static let count = 100_000

    static func run() {
        let date = Date(timeIntervalSince1970: 1_767_225_600)
        let tags = ["balloons", "juggling"]

        let stratus = fastest {
            var copies: [CKRecord] = []
            copies.reserveCapacity(count)
            for index in 0..<count {
                let record = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party-\(index)"))
                record["title"] = "Clowns at the park"
                record["attendees"] = index
                record["price"] = 12.5
                record["date"] = date
                record["tags"] = tags
                if let copy = record.copy() as? CKRecord { copies.append(copy) }
            }
            blackHole(copies)
        }

        let baseline = fastest {
            var copies: [[String: Any]] = []
            copies.reserveCapacity(count)
            for index in 0..<count {
                var record: [String: Any] = ["recordName": "party-\(index)", "recordType": "Party"]
                record["title"] = "Clowns at the park"
                record["attendees"] = index
                record["price"] = 12.5
                record["date"] = date
                record["tags"] = tags
                var copy = record
                copy["copied"] = true
                copies.append(copy)
            }
            blackHole(copies)
        }

        report("build and copy \(count) records (5 fields each)", stratus: stratus, baseline: baseline)
    }
}
