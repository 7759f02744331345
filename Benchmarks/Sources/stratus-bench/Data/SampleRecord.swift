/// One record's field values, the same for Stratus and both baselines: five fields, a
/// reference to a party, a title, an order, a date and a flag.
///
/// Record names are zero-padded, so their order is the order they were made in, which is
/// also the order Stratus breaks creation-date ties in.
struct SampleRecord: Sendable {
    /// The record type every scenario saves.
    static let recordType = "Photo"
    /// How many parties the photos are spread over.
    static let parties = 50

    /// The record's name.
    var name: String
    /// The name of the party record the photo's `party` reference points to.
    var party: String
    /// A string field.
    var title: String
    /// An integer field.
    var order: Int64
    /// A date field, in seconds since 1970.
    var taken: Double
    /// A flag, stored as an integer as CloudKit stores booleans.
    var pinned: Bool

    /// The bytes of field data: the strings' UTF-8 and 8 bytes for each number, date and flag.
    var fieldBytes: Int {
        party.utf8.count + title.utf8.count + 24
    }

    /// Record `index` of a set whose names start with `prefix`; with `fieldBytes`, the title
    /// is padded so that the record holds exactly that much field data.
    init(_ index: Int, prefix: String = "photo", fieldBytes: Int? = nil) {
        name = "\(prefix)-\(Self.padded(index))"
        party = "party-\(index % Self.parties)"
        var title = "Clowns at the park, take \(index)"
        if let fieldBytes {
            let length = fieldBytes - 24 - party.utf8.count
            let filler = " with balloons, a tiny car and a trombone"
            while title.utf8.count < length { title += filler }
            title = String(title.utf8.prefix(length))!
        }
        self.title = title
        order = Int64(index)
        taken = 1_767_225_600 + Double(index)
        pinned = index % 7 == 0
    }

    /// Records `range` of a set, made as ``init(_:prefix:fieldBytes:)`` makes them.
    static func batch(_ range: Range<Int>, prefix: String = "photo", fieldBytes: Int? = nil) -> [SampleRecord] {
        range.map { SampleRecord($0, prefix: prefix, fieldBytes: fieldBytes) }
    }

    /// `index` with leading zeros to eight digits.
    private static func padded(_ index: Int) -> String {
        let digits = String(index)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}
