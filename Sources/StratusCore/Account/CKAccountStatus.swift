import Foundation
import StratusWire

// `CKAccountStatus` is declared in C (CStratus), so that Swift imports it as it imports
// CloudKit's: a non-frozen enum, whose `switch`es end with `@unknown default`.

extension CKAccountStatus {
    package init(_ wire: WireAccountStatus) {
        self = switch wire {
        case .couldNotDetermine: .couldNotDetermine
        case .available: .available
        case .restricted: .restricted
        case .noAccount: .noAccount
        case .temporarilyUnavailable: .temporarilyUnavailable
        }
    }
}

extension CKAccountStatus: @retroactive CustomStringConvertible {
    /// The status's Swift name, such as `available`.
    public var description: String {
        switch self {
        case .couldNotDetermine: "couldNotDetermine"
        case .available: "available"
        case .restricted: "restricted"
        case .noAccount: "noAccount"
        case .temporarilyUnavailable: "temporarilyUnavailable"
        @unknown default: "CKAccountStatus(rawValue: \(rawValue))"
        }
    }
}

extension Notification.Name {
    /// Posted on `NotificationCenter.default`, with the container as its object, when the
    /// device's account changes (sign-in, sign-out, another user). Ask the container for its
    /// ``CKAccountStatus`` again when it arrives.
    public static let CKAccountChanged = Notification.Name("CKAccountChangedNotification")
}
