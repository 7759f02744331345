import Foundation

// The archive encoding of queries, for archived `CKQuery` objects and query cursors.

extension WireQueryField {
    private var tag: UInt8 {
        switch self {
        case .field: 0
        case .recordID: 1
        case .creationDate: 2
        case .modificationDate: 3
        case .creatorUserRecordID: 4
        case .lastModifiedUserRecordID: 5
        case .parent: 6
        case .share: 7
        }
    }

    package func write(to writer: inout BinaryWriter) {
        writer.write(tag)
        if case .field(let key) = self { writer.write(key) }
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireQueryField {
        switch try reader.readByte() {
        case 0: return .field(try reader.readString())
        case 1: return .recordID
        case 2: return .creationDate
        case 3: return .modificationDate
        case 4: return .creatorUserRecordID
        case 5: return .lastModifiedUserRecordID
        case 6: return .parent
        case 7: return .share
        case let other: throw BinaryFormatError("unknown query field tag \(other)")
        }
    }
}

extension WireQueryOperand {
    package func write(to writer: inout BinaryWriter) {
        switch self {
        case .now:
            writer.write(UInt8(0))
        case .value(let value):
            writer.write(UInt8(1))
            value.write(to: &writer)
        }
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireQueryOperand {
        switch try reader.readByte() {
        case 0: return .now
        case 1: return .value(try WireFieldValue.read(from: &reader))
        case let other: throw BinaryFormatError("unknown operand tag \(other)")
        }
    }
}

extension WirePredicate {
    package func write(to writer: inout BinaryWriter) {
        switch self {
        case .constant(let value):
            writer.write(UInt8(0))
            writer.write(value)
        case .and(let parts):
            writer.write(UInt8(1))
            writer.writeCount(parts.count)
            for part in parts { part.write(to: &writer) }
        case .not(let inner):
            writer.write(UInt8(2))
            inner.write(to: &writer)
        case .compare(let field, let comparison, let operand):
            writer.write(UInt8(3))
            field.write(to: &writer)
            writer.write(comparison.rawValue)
            operand.write(to: &writer)
        case .between(let field, let low, let high):
            writer.write(UInt8(4))
            field.write(to: &writer)
            low.write(to: &writer)
            high.write(to: &writer)
        case .isIn(let field, let values):
            writer.write(UInt8(5))
            field.write(to: &writer)
            WireFieldValue.list(values).write(to: &writer)
        case .listContains(let field, let value):
            writer.write(UInt8(6))
            field.write(to: &writer)
            value.write(to: &writer)
        case .listContainsAny(let field, let values):
            writer.write(UInt8(7))
            field.write(to: &writer)
            WireFieldValue.list(values).write(to: &writer)
        case .beginsWith(let field, let prefix):
            writer.write(UInt8(8))
            field.write(to: &writer)
            writer.write(prefix)
        case .listMemberBeginsWith(let field, let prefix):
            writer.write(UInt8(9))
            field.write(to: &writer)
            writer.write(prefix)
        case .tokens(let match, let tokens):
            writer.write(UInt8(10))
            writer.write(match == .all)
            writer.write(tokens)
        case .near(let field, let center, let kilometres, let inclusive):
            writer.write(UInt8(11))
            field.write(to: &writer)
            center.write(to: &writer)
            writer.write(kilometres)
            writer.write(inclusive)
        }
    }

    /// Reads a predicate; refuses one that nests deeper than ``maximumDepth`` as the parser
    /// and the server count it, so that whatever they accept also reads back (from a `CKQuery`
    /// archive or a query cursor), and nothing deeper does.
    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WirePredicate {
        let predicate = try read(from: &reader, enclosing: 0)
        // The reading below stops deep NOTs and ANDs; this also counts the list levels.
        guard predicate.isWithinMaximumDepth else { throw tooDeep }
        return predicate
    }

    private static var tooDeep: BinaryFormatError {
        BinaryFormatError("predicate nests more than \(maximumDepth) levels deep")
    }

    /// Reads one node below `enclosing` NOTs and ANDs, which already count toward the depth,
    /// so the recursion stops one level past the limit.
    private static func read(from reader: inout BinaryReader, enclosing: Int) throws(BinaryFormatError) -> WirePredicate {
        guard enclosing <= maximumDepth else { throw tooDeep }
        switch try reader.readByte() {
        case 0: return .constant(try reader.readBool())
        case 1:
            let count = try reader.readCount(minimumItemSize: 2)
            var parts: [WirePredicate] = []
            for _ in 0..<count { parts.append(try read(from: &reader, enclosing: enclosing + 1)) }
            return .and(parts)
        case 2: return .not(try read(from: &reader, enclosing: enclosing + 1))
        case 3:
            let field = try WireQueryField.read(from: &reader)
            let raw = try reader.readString()
            guard let comparison = WireComparison(rawValue: raw) else { throw BinaryFormatError("unknown comparison \(raw)") }
            return .compare(field, comparison, try WireQueryOperand.read(from: &reader))
        case 4: return .between(try WireQueryField.read(from: &reader), try WireQueryOperand.read(from: &reader), try WireQueryOperand.read(from: &reader))
        case 5: return .isIn(try WireQueryField.read(from: &reader), try readAggregate(from: &reader))
        case 6: return .listContains(try WireQueryField.read(from: &reader), try WireFieldValue.read(from: &reader))
        case 7: return .listContainsAny(try WireQueryField.read(from: &reader), try readAggregate(from: &reader))
        case 8: return .beginsWith(try WireQueryField.read(from: &reader), try reader.readString())
        case 9: return .listMemberBeginsWith(try WireQueryField.read(from: &reader), try reader.readString())
        case 10: return .tokens(try reader.readBool() ? .all : .any, try reader.readStrings())
        case 11:
            let field = try WireQueryField.read(from: &reader)
            let center = try WireLocation.read(from: &reader)
            let kilometres = try reader.readDouble()
            guard kilometres.isFinite else { throw BinaryFormatError("the radius \(kilometres) is not finite") }
            return .near(field, center: center, kilometres: kilometres, inclusive: try reader.readBool())
        case let other: throw BinaryFormatError("unknown predicate tag \(other)")
        }
    }
}

extension WirePredicate {
    /// The tag byte of a list value, as ``WireFieldValue/write(to:)`` writes it.
    private static let listTag: UInt8 = {
        var writer = BinaryWriter()
        WireFieldValue.list([]).write(to: &writer)
        return writer.bytes.first ?? 0
    }()

    /// The aggregate `{…}` of `IN` and `ANY … IN`, written as a list value. Unlike a list
    /// field value its elements may differ in kind, as the parser makes them
    /// (`likes IN {1, 2.5}` holds an integer and a double), but none is a list
    /// (``WirePredicate/valueProblem``).
    private static func readAggregate(from reader: inout BinaryReader) throws(BinaryFormatError) -> [WireFieldValue] {
        guard try reader.readByte() == listTag else { throw BinaryFormatError("expected the list of an IN aggregate") }
        let count = try reader.readCount(minimumItemSize: 2)
        var values: [WireFieldValue] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            let value = try WireFieldValue.read(from: &reader)
            if case .list = value { throw BinaryFormatError("an IN aggregate cannot hold a list") }
            values.append(value)
        }
        return values
    }
}

extension WireQuery {
    package func write(to writer: inout BinaryWriter) {
        writer.write(recordType)
        predicate.write(to: &writer)
        writer.writeCount(sortDescriptors.count)
        for descriptor in sortDescriptors {
            descriptor.field.write(to: &writer)
            writer.write(descriptor.ascending)
            writer.write(descriptor.relativeLocation != nil)
            descriptor.relativeLocation?.write(to: &writer)
        }
    }

    package static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> WireQuery {
        let recordType = try reader.readString()
        let predicate = try WirePredicate.read(from: &reader)
        let count = try reader.readCount(minimumItemSize: 3)
        var descriptors: [WireSortDescriptor] = []
        for _ in 0..<count {
            let field = try WireQueryField.read(from: &reader)
            let ascending = try reader.readBool()
            let relativeLocation = try reader.readBool() ? try WireLocation.read(from: &reader) : nil
            descriptors.append(WireSortDescriptor(field: field, ascending: ascending, relativeLocation: relativeLocation))
        }
        return WireQuery(recordType: recordType, predicate: predicate, sortDescriptors: descriptors)
    }
}
