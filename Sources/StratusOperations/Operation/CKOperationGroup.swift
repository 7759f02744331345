import Foundation
import Synchronization

/// Operations that together do one thing a user asked for, sharing a default configuration.
///
/// Set an operation's ``CKOperation/group`` to make it part of the group. A configuration
/// property set on the operation wins over one set on ``defaultConfiguration``, which wins over
/// CloudKit's default.
///
/// CloudKit document: *CKOperationGroup*.
public final class CKOperationGroup: NSObject, @unchecked Sendable {
    /// How much data a group of operations moves.
    public enum TransferSize: Int, Hashable, Sendable {
        /// Unknown.
        case unknown = 0
        /// Less than 1 MB.
        case kilobytes = 1
        /// 1 to 10 MB.
        case megabytes = 2
        /// 10 to 100 MB.
        case tensOfMegabytes = 3
        /// 100 MB to 1 GB.
        case hundredsOfMegabytes = 4
        /// 1 to 10 GB.
        case gigabytes = 5
        /// 10 to 100 GB.
        case tensOfGigabytes = 6
        /// More than 100 GB.
        case hundredsOfGigabytes = 7
    }

    private struct State {
        var defaultConfiguration = CKOperation.Configuration()
        var name: String?
        var quantity = 0
        var expectedSendSize = TransferSize.unknown
        var expectedReceiveSize = TransferSize.unknown
    }

    private let state = Mutex(State())

    /// A unique identifier chosen by the system.
    public let operationGroupID = UUID().uuidString

    /// Creates an empty group.
    public override init() {}

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
