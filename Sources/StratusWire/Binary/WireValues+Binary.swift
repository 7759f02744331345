import Foundation

// The archive encoding of the wire values. Each `read` checks what it reads and throws
// `BinaryFormatError` for anything another build of Stratus could not have written.

extension WireZoneID {
    package func write(to writer: inout BinaryWriter) {
        writer.write(zoneName)
        writer.write(ownerName)
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireZoneID {
        WireZoneID(zoneName: try reader.readString(), ownerName: try reader.readString())
    }
}

extension WireRecordID {
    package func write(to writer: inout BinaryWriter) {
        writer.write(recordName)
        zoneID.write(to: &writer)
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireRecordID {
        WireRecordID(recordName: try reader.readString(), zoneID: try WireZoneID.read(from: &reader))
    }
}

extension WireReference {
    package func write(to writer: inout BinaryWriter) {
        recordID.write(to: &writer)
        action.write(to: &writer)
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireReference {
        WireReference(recordID: try WireRecordID.read(from: &reader), action: try Action.read(from: &reader))
    }

    package static func write(_ reference: WireReference?, to writer: inout BinaryWriter) {
        writer.write(reference != nil)
        reference?.write(to: &writer)
    }

    package static func readOptional(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireReference? {
        try reader.readBool() ? try read(from: &reader) : nil
    }
}

/// An asset in a client's archive: its local file's URL, the one thing `CKAsset` keeps
/// (archives never cross a service; a fetched asset's checksum is not kept).
extension WireAsset {
    package func write(to writer: inout BinaryWriter) {
        writer.write(localFileURL?.absoluteString)
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireAsset {
        guard let string = try reader.readOptionalString() else { return WireAsset(localFileURL: nil) }
        guard let url = URL(string: string) else { throw BinaryFormatError("asset URL is not a URL") }
        return WireAsset(localFileURL: url)
    }
}

extension WireLocation {
    package func write(to writer: inout BinaryWriter) {
        for component in [latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, course, speed] { writer.write(component) }
        writer.write(timestamp)
    }

    /// Reads a location; one whose coordinate is not valid or whose components are not finite
    /// (``problem``) is refused.
    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireLocation {
        let location = WireLocation(
            latitude: try reader.readDouble(), longitude: try reader.readDouble(), altitude: try reader.readDouble(),
            horizontalAccuracy: try reader.readDouble(), verticalAccuracy: try reader.readDouble(),
            course: try reader.readDouble(), speed: try reader.readDouble(), timestamp: try reader.readDate()
        )
        if let problem = location.problem { throw BinaryFormatError("a location whose \(problem)") }
        return location
    }
}

extension WireZone {
    package func write(to writer: inout BinaryWriter) {
        zoneID.write(to: &writer)
        writer.write(UInt64(capabilities.rawValue))
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireZone {
        let zoneID = try WireZoneID.read(from: &reader)
        let raw = try reader.readUInt64()
        guard raw <= 0b1111 else { throw BinaryFormatError("unknown zone capabilities \(raw)") }
        return WireZone(zoneID: zoneID, capabilities: Capabilities(rawValue: UInt(raw)))
    }
}

extension WireFieldValue {
    private enum Tag: UInt8 {
        case string = 1, int64, double, date, bytes, reference, asset, list, location
    }

    package func write(to writer: inout BinaryWriter) {
        switch self {
        case .string(let value):
            writer.write(Tag.string.rawValue)
            writer.write(value)
        case .int64(let value):
            writer.write(Tag.int64.rawValue)
            writer.write(value)
        case .double(let value):
            writer.write(Tag.double.rawValue)
            writer.write(value)
        case .date(let value):
            writer.write(Tag.date.rawValue)
            writer.write(value)
        case .bytes(let value):
            writer.write(Tag.bytes.rawValue)
            writer.write(value)
        case .reference(let value):
            writer.write(Tag.reference.rawValue)
            value.write(to: &writer)
        case .asset(let value):
            writer.write(Tag.asset.rawValue)
            value.write(to: &writer)
        case .location(let value):
            writer.write(Tag.location.rawValue)
            value.write(to: &writer)
        case .list(let elements):
            writer.write(Tag.list.rawValue)
            writer.writeCount(elements.count)
            for element in elements { element.write(to: &writer) }
        }
    }

    /// Reads one value; a list may not hold another list, its elements must share one kind,
    /// and doubles and dates must be finite.
    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireFieldValue {
        try read(from: &reader, insideList: false)
    }

    private static func read(from reader: inout BinaryReader, insideList: Bool) throws(BinaryFormatError) -> WireFieldValue {
        let raw = try reader.readByte()
        guard let tag = Tag(rawValue: raw) else { throw BinaryFormatError("unknown field value tag \(raw)") }
        switch tag {
        case .string: return .string(try reader.readString())
        case .int64: return .int64(try reader.readInt64())
        case .double:
            let number = try reader.readDouble()
            guard number.isFinite else { throw BinaryFormatError("double \(number) is not finite") }
            return .double(number)
        case .date: return .date(try reader.readDate())
        case .bytes: return .bytes(try reader.readData())
        case .reference: return .reference(try WireReference.read(from: &reader))
        case .asset: return .asset(try WireAsset.read(from: &reader))
        case .location: return .location(try WireLocation.read(from: &reader))
        case .list:
            guard !insideList else { throw BinaryFormatError("a list cannot hold a list") }
            let count = try reader.readCount(minimumItemSize: 2)
            var elements: [WireFieldValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                let element = try read(from: &reader, insideList: true)
                if let first = elements.first, first.kind != element.kind {
                    throw BinaryFormatError("a list mixes \(first.kind) and \(element.kind)")
                }
                elements.append(element)
            }
            return .list(elements)
        }
    }

    /// Writes a dictionary of values with its keys in sorted order, so equal records give equal bytes.
    package static func write(_ fields: [String: WireFieldValue], to writer: inout BinaryWriter) {
        writer.writeCount(fields.count)
        for key in fields.keys.sorted() {
            writer.write(key)
            fields[key]?.write(to: &writer)
        }
    }

    /// Reads a dictionary written by ``write(_:to:)``; a repeated key is refused, and so is
    /// any value a record could not hold (``WireValidation/problem(with:encrypted:)``).
    ///
    /// - Parameter encrypted: Whether the fields are a record's encrypted ones, which hold
    ///   neither references nor assets.
    package static func readFields(from reader: inout BinaryReader, encrypted: Bool = false) throws(BinaryFormatError) -> [String: WireFieldValue] {
        let count = try reader.readCount(minimumItemSize: 6)
        var fields: [String: WireFieldValue] = [:]
        fields.reserveCapacity(count)
        for _ in 0..<count {
            let key = try reader.readString()
            guard fields[key] == nil else { throw BinaryFormatError("field '\(key)' appears twice") }
            let value = try read(from: &reader)
            if let problem = WireValidation.problem(with: value, encrypted: encrypted) {
                throw BinaryFormatError("\(encrypted ? "encrypted field" : "field") '\(key)' \(problem)")
            }
            fields[key] = value
        }
        return fields
    }
}

extension WireRecord {
    package func write(to writer: inout BinaryWriter) {
        recordID.write(to: &writer)
        writer.write(recordType)
        writer.write(changeTag)
        writer.write(creationDate)
        writer.write(modificationDate)
        writer.write(creatorUserRecordName)
        writer.write(lastModifiedUserRecordName)
        WireReference.write(parent, to: &writer)
        WireReference.write(share, to: &writer)
        WireFieldValue.write(fields, to: &writer)
        WireFieldValue.write(encryptedFields, to: &writer)
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireRecord {
        WireRecord(
            recordID: try WireRecordID.read(from: &reader),
            recordType: try reader.readString(),
            changeTag: try reader.readOptionalString(),
            creationDate: try reader.readOptionalDate(),
            modificationDate: try reader.readOptionalDate(),
            creatorUserRecordName: try reader.readOptionalString(),
            lastModifiedUserRecordName: try reader.readOptionalString(),
            parent: try WireReference.readOptional(from: &reader),
            share: try WireReference.readOptional(from: &reader),
            fields: try WireFieldValue.readFields(from: &reader),
            encryptedFields: try WireFieldValue.readFields(from: &reader, encrypted: true)
        )
    }
}

extension WireReference.Action: BinaryEnumeration {
    package static let binaryName = "reference action"
}
