import Foundation
import StratusWire

/// A search for records of one type: a predicate and an order.
///
/// ```swift
/// let query = CKQuery(recordType: "Photo", predicate: NSPredicate(format: "party == %@", party))
/// query.sortDescriptors = [NSSortDescriptor(key: "creationDate", ascending: false)]
/// ```
///
/// The predicate is converted to CloudKit's subset when the query is made; a form CloudKit
/// does not accept fails the query with `invalidArguments` when it runs. Results without sort
/// descriptors come in record-name order.
///
/// CloudKit document: *CKQuery*.
public final class CKQuery: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// The type of the records to find.
    public let recordType: CKRecord.RecordType

    /// Which records match. Use `NSPredicate(value: true)` to match every record of the type.
    public let predicate: NSPredicate

    /// The predicate in CloudKit's subset, or why it is not in it.
    package let parsedPredicate: Result<WirePredicate, PredicateError>

    private let lock = NSLock()
    private var storedSortDescriptors: [NSSortDescriptor]?

    /// The order of the results, most significant first, each made with
    /// `NSSortDescriptor(key:ascending:)` or ``CKLocationSortDescriptor``. Ties are broken by
    /// record name.
    public var sortDescriptors: [NSSortDescriptor]? {
        get { lock.withLock { storedSortDescriptors } }
        set { lock.withLock { storedSortDescriptors = newValue } }
    }

    /// Creates a query for records of `recordType` that match `predicate`.
    public init(recordType: CKRecord.RecordType, predicate: NSPredicate) {
        self.recordType = recordType
        self.predicate = predicate
        self.parsedPredicate = predicate.cloudKitPredicate
    }

    /// The query as the service takes it, or `invalidArguments` naming what CloudKit refuses.
    package func wireQuery() -> Result<WireQuery, CKError> {
        let predicate: WirePredicate
        switch parsedPredicate {
        case .success(let parsed): predicate = parsed
        case .failure(let error): return .failure(CKError(.invalidArguments, message: "the query's predicate is not supported: \(error.message)"))
        }
        var descriptors: [WireSortDescriptor] = []
        for descriptor in sortDescriptors ?? [] {
            guard let key = descriptor.key, !key.isEmpty else {
                return .failure(CKError(.invalidArguments, message: "sort descriptors must name a record field; make them with NSSortDescriptor(key:ascending:)"))
            }
            if case .field = WireQueryField(key: key), let error = WireValidation.checkFieldKey(key) {
                return .failure(CKError(.invalidArguments, message: "cannot sort by '\(key)': \(error.message)"))
            }
            var relativeLocation: WireLocation?
            if let location = descriptor as? CKLocationSortDescriptor {
                relativeLocation = location.relativeLocation.wireValue
                if let problem = relativeLocation?.problem {
                    return .failure(CKError(.invalidArguments, message: "cannot sort by the distance from '\(key)': the relative location is a location whose \(problem)"))
                }
            }
            descriptors.append(WireSortDescriptor(field: WireQueryField(key: key), ascending: descriptor.ascending, relativeLocation: relativeLocation))
        }
        return .success(WireQuery(recordType: recordType, predicate: predicate, sortDescriptors: descriptors))
    }

    /// A query with the same type, predicate and sort descriptors.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CKQuery(recordType: recordType, predicate: predicate)
        copy.sortDescriptors = sortDescriptors
        return copy
    }

    /// Queries decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's name for the class, `CKQuery`: the class table of an archive whose root or
    /// nested object this is lists it as the class's fallback (`$classhints`). Foundation on
    /// Linux writes the module-qualified Swift name as `$classname` and offers no way to change
    /// it (see ``SecureCodingBlob``).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKQuery"] }

    /// Encodes the query as one versioned blob: type, predicate (or why it was refused), sort
    /// keys, and then the relative locations of the location sort descriptors by position
    /// (a section that archives made before locations existed do not have).
    public func encode(with coder: NSCoder) {
        let descriptors = sortDescriptors ?? []
        let sort = descriptors.map { ($0.key ?? "", $0.ascending) }
        let locations = descriptors.enumerated().compactMap { index, descriptor in
            (descriptor as? CKLocationSortDescriptor).map { (index, $0.relativeLocation.wireValue) }
        }
        let blob = ArchiveEnvelope.seal(.query) { writer in
            writer.write(recordType)
            switch parsedPredicate {
            case .success(let predicate):
                writer.write(true)
                predicate.write(to: &writer)
            case .failure(let error):
                writer.write(false)
                writer.write(error.message)
            }
            writer.writeCount(sort.count)
            for (key, ascending) in sort {
                writer.write(key)
                writer.write(ascending)
            }
            writer.writeCount(locations.count)
            for (index, location) in locations {
                writer.write(UInt32(index))
                location.write(to: &writer)
            }
        }
        SecureCodingBlob.encode(blob, with: coder)
    }

    /// Decodes a query; nil for a missing, damaged or foreign archive, and for a predicate
    /// nested deeper than ``WirePredicate/maximumDepth`` (which `NSPredicate(format:)` never
    /// accepts, so every query Stratus archived decodes).
    public required convenience init?(coder: NSCoder) {
        guard let decoded = SecureCodingBlob.decode(from: coder, as: .query, { reader throws(BinaryFormatError) in
            let recordType = try reader.readString()
            let parsed: Result<WirePredicate, PredicateError> = try reader.readBool()
                ? .success(try WirePredicate.read(from: &reader))
                : .failure(PredicateError(try reader.readString()))
            let count = try reader.readCount(minimumItemSize: 5)
            var sort: [(String, Bool)] = []
            for _ in 0..<count { sort.append((try reader.readString(), try reader.readBool())) }
            var locations: [Int: WireLocation] = [:]
            if reader.remaining > 0 {
                for _ in 0..<(try reader.readCount(minimumItemSize: 68)) {
                    let index = Int(try reader.readUInt32())
                    guard index < sort.count, locations[index] == nil else { throw BinaryFormatError("location sort \(index) does not match a sort key") }
                    locations[index] = try WireLocation.read(from: &reader)
                }
            }
            return (recordType, parsed, sort, locations)
        }) else { return nil }
        self.init(recordType: decoded.0, predicate: NSPredicate(parsed: decoded.1))
        sortDescriptors = decoded.2.enumerated().map { index, sort in
            guard let location = decoded.3[index] else { return NSSortDescriptor(key: sort.0, ascending: sort.1) }
            return CKLocationSortDescriptor(key: sort.0, relativeLocation: CLLocation(wire: location))
        }
    }

    /// A summary such as `<CKQuery: recordType=Photo, sortDescriptors=[creationDate desc]>`.
    public override var description: String {
        let sort = (sortDescriptors ?? []).map { descriptor in
            if let location = descriptor as? CKLocationSortDescriptor {
                return "\(descriptor.key ?? "?") nearest \(location.relativeLocation.wireValue)"
            }
            return "\(descriptor.key ?? "?") \(descriptor.ascending ? "asc" : "desc")"
        }
        return "<CKQuery: recordType=\(recordType), sortDescriptors=[\(sort.joined(separator: ", "))]>"
    }
}
