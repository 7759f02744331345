import Foundation
import StratusCore
import StratusWire
import Synchronization

/// Operations that together do one thing a user asked for, sharing a default configuration.
///
/// Set an operation's ``CKOperation/group`` to make it part of the group. A configuration
/// property set on the operation wins over one set on ``defaultConfiguration``, which wins over
/// CloudKit's default.
///
/// CloudKit document: *CKOperationGroup*.
public final class CKOperationGroup: NSObject, NSSecureCoding, @unchecked Sendable {
    /// How much data a group of operations moves. Declared in C as
    /// `CKOperationGroupTransferSize`, so that Swift imports it as it imports CloudKit's: a
    /// non-frozen enum, whose `switch`es end with `@unknown default`.
    public typealias TransferSize = CKOperationGroupTransferSize

    private struct State {
        var defaultConfiguration = CKOperation.Configuration()
        var name: String?
        var quantity = 0
        var expectedSendSize = TransferSize.unknown
        var expectedReceiveSize = TransferSize.unknown
    }

    private let state: Mutex<State>

    /// CloudKit's name for the class, `CKOperationGroup`: the class table of an archive whose root or
    /// nested object this is lists it as the class's fallback (`$classhints`). Foundation on
    /// Linux writes the module-qualified Swift name as `$classname` and offers no way to change
    /// it (see ``SecureCodingBlob``).
    public override class func classFallbacksForKeyedArchiver() -> [String] { ["CKOperationGroup"] }

    /// A unique identifier chosen by the system; an archived group keeps its own.
    public let operationGroupID: String

    /// Creates an empty group.
    public override init() {
        operationGroupID = RandomUUID.string()
        state = Mutex(State())
    }

    private init(operationGroupID: String, state: State) {
        self.operationGroupID = operationGroupID
        self.state = Mutex(state)
    }

    /// The configuration the group's operations fall back on. Setting it stores a copy;
    /// setting nil restores a fresh `Configuration()`.
    public var defaultConfiguration: CKOperation.Configuration! {
        get { state.withLock { $0.defaultConfiguration } }
        set {
            let copy = (newValue?.copy() as? CKOperation.Configuration) ?? CKOperation.Configuration()
            state.withLock { $0.defaultConfiguration = copy }
        }
    }

    /// A name for the user action, for telemetry; must not hold personal data.
    public var name: String? {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    /// How many items the group works on.
    public var quantity: Int {
        get { state.withLock { $0.quantity } }
        set { state.withLock { $0.quantity = newValue } }
    }

    /// How much the group expects to send.
    public var expectedSendSize: TransferSize {
        get { state.withLock { $0.expectedSendSize } }
        set { state.withLock { $0.expectedSendSize = newValue } }
    }

    /// How much the group expects to receive.
    public var expectedReceiveSize: TransferSize {
        get { state.withLock { $0.expectedReceiveSize } }
        set { state.withLock { $0.expectedReceiveSize = newValue } }
    }
}

extension CKOperationGroup {
    /// Groups decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// Encodes the group as one versioned blob: its ID, name, quantity, transfer sizes, and
    /// the properties its default configuration sets, except the container, which is not
    /// archivable (a decoded group's operations use their own container).
    public func encode(with coder: NSCoder) {
        let state = state.withLock { $0 }
        let blob = ArchiveEnvelope.seal(.operationGroup) { writer in
            writer.write(operationGroupID)
            writer.write(state.name)
            writer.write(Int64(state.quantity))
            writer.write(UInt8(state.expectedSendSize.rawValue))
            writer.write(UInt8(state.expectedReceiveSize.rawValue))
            state.defaultConfiguration.values.value.writeArchivable(to: &writer)
        }
        SecureCodingBlob.encode(blob, with: coder)
    }

    /// Decodes a group; nil for a missing, damaged or foreign archive.
    public convenience init?(coder: NSCoder) {
        guard let (id, state) = SecureCodingBlob.decode(from: coder, as: .operationGroup, Self.read) else { return nil }
        self.init(operationGroupID: id, state: state)
    }

    private static func read(_ reader: inout BinaryReader) throws(BinaryFormatError) -> (String, State) {
        let id = try reader.readString()
        var state = State()
        state.name = try reader.readOptionalString()
        let quantity = try reader.readInt64()
        guard let quantityValue = Int(exactly: quantity) else { throw BinaryFormatError("quantity \(quantity) does not fit an Int") }
        state.quantity = quantityValue
        // The enum is open, so any raw value makes one: accept only the sizes CloudKit defines.
        let defined = TransferSize.unknown.rawValue...TransferSize.hundredsOfGigabytes.rawValue
        let (sendRaw, receiveRaw) = (Int(try reader.readByte()), Int(try reader.readByte()))
        guard defined.contains(sendRaw), defined.contains(receiveRaw),
              let send = TransferSize(rawValue: sendRaw), let receive = TransferSize(rawValue: receiveRaw) else {
            throw BinaryFormatError("unknown transfer size")
        }
        state.expectedSendSize = send
        state.expectedReceiveSize = receive
        state.defaultConfiguration = CKOperation.Configuration(values: try .readArchivable(from: &reader))
        return (id, state)
    }
}

extension CKOperation.Configuration.Values {
    private static let archivedProperties: [CKOperation.Configuration.Property] = [
        .qualityOfService, .allowsCellularAccess, .isLongLived, .timeoutIntervalForRequest, .timeoutIntervalForResource,
    ]

    /// Writes the archivable properties (all but the container) and which of them are set.
    func writeArchivable(to writer: inout BinaryWriter) {
        var mask: UInt8 = 0
        for (bit, property) in Self.archivedProperties.enumerated() where explicit.contains(property) {
            mask |= 1 << UInt8(bit)
        }
        writer.write(mask)
        writer.write(Int64(qualityOfService.rawValue))
        writer.write(allowsCellularAccess)
        writer.write(isLongLived)
        writer.write(timeoutIntervalForRequest)
        writer.write(timeoutIntervalForResource ?? .nan)
    }

    /// Reads what ``writeArchivable(to:)`` wrote; throws for an unknown bit or quality of service.
    static func readArchivable(from reader: inout BinaryReader) throws(BinaryFormatError) -> Self {
        let mask = try reader.readByte()
        guard mask >> UInt8(archivedProperties.count) == 0 else { throw BinaryFormatError("unknown configuration property in mask \(mask)") }
        var values = Self()
        let quality = try reader.readInt64()
        guard let qualityValue = Int(exactly: quality), let qualityOfService = QualityOfService(rawValue: qualityValue) else {
            throw BinaryFormatError("unknown quality of service \(quality)")
        }
        values.qualityOfService = qualityOfService
        values.allowsCellularAccess = try reader.readBool()
        values.isLongLived = try reader.readBool()
        values.timeoutIntervalForRequest = try reader.readDouble()
        let resource = try reader.readDouble()
        values.timeoutIntervalForResource = resource.isNaN ? nil : resource
        for (bit, property) in archivedProperties.enumerated() where mask & (1 << UInt8(bit)) != 0 {
            values.explicit.insert(property)
        }
        return values
    }
}
