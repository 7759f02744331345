import StratusWire

/// Where a query's next page starts: the query, where it runs and for whom, and the sort key
/// of the last record returned. A keyset position, so records inserted or deleted between
/// pages never make a record that stays put appear twice or go missing.
///
/// On the wire: a format version, the fields below, and an HMAC-SHA-256 under the server's
/// own key, so that a flipped byte, a forged cursor or one from another server is refused.
///
/// The server answers, and so issues cursors for, only queries whose predicate is within
/// ``WirePredicate/maximumDepth`` and holds no value the binary form cannot carry
/// (``WirePredicate/valueProblem``); the reader refuses exactly what is deeper, so the cursor
/// of every query the server answers opens again.
struct QueryCursor: Hashable {
    static let version: UInt8 = 1

    var containerIdentifier: String
    var database: WireDatabaseScope
    var userRecordName: String?
    var zoneID: WireZoneID?
    var query: WireQuery
    /// The sort-key values of the last record returned, one per sort descriptor.
    var lastValues: [WireFieldValue?]
    /// The last record returned, which breaks ties between equal sort keys.
    var lastRecordID: WireRecordID

    func sealed(with key: [UInt8]) -> [UInt8] {
        var writer = SealedOwner(containerIdentifier: containerIdentifier, database: database, userRecordName: userRecordName).writer(version: Self.version)
        writer.write(zoneID != nil)
        zoneID?.write(to: &writer)
        query.write(to: &writer)
        writer.writeCount(lastValues.count)
        for value in lastValues {
            writer.write(value != nil)
            value?.write(to: &writer)
        }
        lastRecordID.write(to: &writer)
        return Sealing.seal(writer.bytes, key: key)
    }

    /// Opens a cursor sealed with `key`; throws `invalidArguments` for anything else.
    static func open(_ bytes: [UInt8], key: [UInt8]) throws(WireError) -> QueryCursor {
        let refused = WireError(.invalidArguments, "the query cursor is not one this server issued, or it was altered")
        return try SealedOwner.open(bytes, key: key, version: version, refused: refused) { (owner, reader) throws(BinaryFormatError) in
            let zoneID = try reader.readBool() ? try WireZoneID.read(from: &reader) : nil
            let query = try WireQuery.read(from: &reader)
            let count = try reader.readCount()
            var values: [WireFieldValue?] = []
            for _ in 0..<count { values.append(try reader.readBool() ? try WireFieldValue.read(from: &reader) : nil) }
            let last = try WireRecordID.read(from: &reader)
            return QueryCursor(
                containerIdentifier: owner.containerIdentifier, database: owner.database, userRecordName: owner.userRecordName,
                zoneID: zoneID, query: query, lastValues: values, lastRecordID: last
            )
        }
    }
}
