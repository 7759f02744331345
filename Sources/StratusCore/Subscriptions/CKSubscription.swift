import Foundation
import StratusWire

/// A persistent query on the server: when a change it watches happens, the server sends a
/// push to the owner's other devices.
///
/// Make one of the subclasses: ``CKQuerySubscription`` (records that match a predicate),
/// ``CKRecordZoneSubscription`` (every change in a zone) or ``CKDatabaseSubscription`` (every
/// change in the database's custom zones). Set ``notificationInfo`` before saving it; saving a
/// subscription whose ID exists replaces the saved one.
///
/// A subscription belongs to the user who saved it, in the database it was saved in.
///
/// CloudKit document: *CKSubscription*.
public class CKSubscription: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// A subscription's identifier, unique among the user's subscriptions in a database.
    public typealias ID = String

    /// Which changes a subscription watches.
    public enum SubscriptionType: Int, Sendable {
        /// Records that match a predicate (``CKQuerySubscription``).
        case query = 1
        /// Every change in one zone (``CKRecordZoneSubscription``).
        case recordZone = 2
        /// Every change in the database's custom zones (``CKDatabaseSubscription``).
        case database = 3
    }

    /// Everything a subscription holds.
    struct State {
        var subscriptionID: ID
        var kind: SubscriptionType
        var recordType: CKRecord.RecordType?
        var predicate: NSPredicate?
        var parsedPredicate: Result<WirePredicate, PredicateError>?
        var zoneID: CKRecordZone.ID?
        var options: UInt = 0
        var notificationInfo: CKNotificationInfo?
    }

    private let lock = NSLock()
    private var state: State

    /// Creates a subscription holding `state`; the public initialisers of the subclasses and
    /// the legacy ones of this class lead here.
    required init(state: State) {
        self.state = state
        super.init()
    }

    /// Creates a plain `CKSubscription`, as the iOS 8–9 initialisers do. The subclasses do not
    /// override it, so they do not inherit those initialisers.
    init(legacyState state: State) {
        self.state = state
        super.init()
    }

    /// Reads the state under the lock.
    func read<Value>(_ body: (State) -> Value) -> Value {
        lock.withLock { body(state) }
    }

    /// Changes the state under the lock.
    func change(_ body: (inout State) -> Void) {
        lock.withLock { body(&state) }
    }

    /// The subscription's identifier.
    public var subscriptionID: ID { read(\.subscriptionID) }

    /// Which changes the subscription watches.
    public var subscriptionType: SubscriptionType { read(\.kind) }

    /// What the push says and carries when the subscription fires. Must be set before the
    /// subscription is saved. Setting it stores a copy.
    public var notificationInfo: NotificationInfo? {
        get { read(\.notificationInfo) }
        set {
            let copy = newValue.map { CKNotificationInfo(wire: $0.wireValue) }
            change { $0.notificationInfo = copy }
        }
    }

    // MARK: - Wire values

    /// The subscription as the service takes it, or `invalidArguments` when its predicate is
    /// not in CloudKit's subset.
    package func wireValue() -> Result<WireSubscription, CKError> {
        let state = read { $0 }
        var predicate: WirePredicate?
        switch state.parsedPredicate {
        case .success(let parsed)?:
            predicate = parsed
        case .failure(let error)?:
            return .failure(CKError(.invalidArguments, message: "the predicate of subscription '\(state.subscriptionID)' is not supported: \(error.message)"))
        case nil:
            predicate = nil
        }
        return .success(WireSubscription(
            subscriptionID: state.subscriptionID,
            kind: WireSubscription.Kind(rawValue: state.kind.rawValue) ?? .query,
            recordType: state.recordType,
            predicate: predicate,
            zoneID: state.zoneID?.wireValue,
            queryOptions: WireSubscription.QueryOptions(rawValue: state.options),
            notificationInfo: state.notificationInfo?.wireValue
        ))
    }

    /// A new subscription of the subclass its kind calls for, holding `wire`.
    package static func make(wire: WireSubscription) -> CKSubscription {
        let state = State(
            subscriptionID: wire.subscriptionID,
            kind: SubscriptionType(rawValue: wire.kind.rawValue) ?? .query,
            recordType: wire.recordType,
            predicate: wire.predicate.map { NSPredicate(parsed: .success($0)) },
            parsedPredicate: wire.predicate.map { .success($0) },
            zoneID: wire.zoneID.map { CKRecordZone.ID(wire: $0) },
            options: wire.queryOptions.rawValue,
            notificationInfo: wire.notificationInfo.map { CKNotificationInfo(wire: $0) }
        )
        switch wire.kind {
        case .query: return CKQuerySubscription(state: state)
        case .recordZone: return CKRecordZoneSubscription(state: state)
        case .database: return CKDatabaseSubscription(state: state)
        }
    }

    // MARK: - Copying and archiving

    /// A copy of the same class with the same properties (and a copy of the notification info).
    public func copy(with zone: NSZone? = nil) -> Any {
        var copied = read { $0 }
        copied.notificationInfo = copied.notificationInfo.map { CKNotificationInfo(wire: $0.wireValue) }
        return type(of: self).init(state: copied)
    }

    /// Subscriptions decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// CloudKit's class name, `CKSubscription`, listed as the archive's class hint; the
    /// subclasses give theirs.
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKSubscription"] }

    /// Encodes the subscription as one versioned blob: its type, ID, record type, predicate
    /// (or why it was refused), zone, options and notification info.
    public func encode(with coder: NSCoder) {
        let state = read { $0 }
        let blob = ArchiveEnvelope.seal(.subscription) { writer in
            writer.write(UInt8(state.kind.rawValue))
            writer.write(state.subscriptionID)
            writer.write(state.recordType)
            switch state.parsedPredicate {
            case nil:
                writer.write(UInt8(0))
            case .success(let predicate)?:
                writer.write(UInt8(1))
                predicate.write(to: &writer)
            case .failure(let error)?:
                writer.write(UInt8(2))
                writer.write(error.message)
            }
            writer.write(state.zoneID != nil)
            state.zoneID?.wireValue.write(to: &writer)
            WireSubscription.QueryOptions(rawValue: state.options).write(to: &writer)
            writer.write(state.notificationInfo != nil)
            state.notificationInfo?.wireValue.write(to: &writer)
        }
        SecureCodingBlob.encode(blob, with: coder)
    }

    /// Decodes a subscription; nil for a missing, damaged or foreign archive, for a
    /// subscription of another type than the class decoding it, and for a predicate nested
    /// deeper than ``WirePredicate/maximumDepth``.
    public required init?(coder: NSCoder) {
        guard let decoded = SecureCodingBlob.decode(from: coder, as: .subscription, { reader throws(BinaryFormatError) -> State in
            let raw = try reader.readByte()
            guard let kind = SubscriptionType(rawValue: Int(raw)) else { throw BinaryFormatError("unknown subscription type \(raw)") }
            let subscriptionID = try reader.readString()
            let recordType = try reader.readOptionalString()
            let parsed: Result<WirePredicate, PredicateError>?
            switch try reader.readByte() {
            case 0: parsed = nil
            case 1: parsed = .success(try WirePredicate.read(from: &reader))
            case 2: parsed = .failure(PredicateError(try reader.readString()))
            case let other: throw BinaryFormatError("unknown predicate tag \(other)")
            }
            let zoneID = try reader.readBool() ? try WireZoneID.read(from: &reader) : nil
            let options = try WireSubscription.QueryOptions.read(from: &reader)
            let info = try reader.readBool() ? try WireNotificationInfo.read(from: &reader) : nil
            return State(
                subscriptionID: subscriptionID,
                kind: kind,
                recordType: recordType,
                predicate: parsed.map { NSPredicate(parsed: $0) },
                parsedPredicate: parsed,
                zoneID: zoneID.map { CKRecordZone.ID(wire: $0) },
                options: options.rawValue,
                notificationInfo: info.map { CKNotificationInfo(wire: $0) }
            )
        }) else { return nil }
        guard Self.accepts(decoded.kind) else { return nil }
        state = decoded
        super.init()
    }

    /// Whether an archive of a subscription of `kind` decodes as this class.
    class func accepts(_ kind: SubscriptionType) -> Bool { true }

    /// A summary such as `<CKQuerySubscription: subscriptionID=parties, type=query>`.
    public override var description: String {
        let state = read { $0 }
        let kind = switch state.kind {
        case .query: "query"
        case .recordZone: "recordZone"
        case .database: "database"
        }
        var parts = ["subscriptionID=\(state.subscriptionID)", "type=\(kind)"]
        if let recordType = state.recordType { parts.append("recordType=\(recordType)") }
        if let zoneID = state.zoneID { parts.append("zoneID=\(zoneID.zoneName)") }
        return "<\(Swift.type(of: self)): \(parts.joined(separator: ", "))>"
    }
}
