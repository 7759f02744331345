import Foundation
import StratusWire

/// Whether the device has a usable iCloud account: `CKContainer.accountStatus`'s answer.
public enum CKAccountStatus: Int, Hashable, Sendable {
    /// The state could not be determined; try again later.
    case couldNotDetermine = 0
    /// An account is signed in and usable.
    case available = 1
    /// Parental controls or device management deny access.
    case restricted = 2
    /// No account is signed in.
    case noAccount = 3
    /// An account is signed in but not ready yet; wait for `.CKAccountChanged`.
    case temporarilyUnavailable = 4

    package init(_ wire: WireAccountStatus) {
        self = CKAccountStatus(rawValue: wire.rawValue) ?? .couldNotDetermine
    }
}

extension Notification.Name {
    /// Posted on `NotificationCenter.default`, with the container as its object, when the
    /// device's account changes (sign-in, sign-out, another user). Ask the container for its
    /// ``CKAccountStatus`` again when it arrives.
    public static let CKAccountChanged = Notification.Name("CKAccountChangedNotification")
}
