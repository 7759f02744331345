import Foundation
import StratusWire

/// A discovered user as iOS 8 and 9 described one: the legacy `CKDiscoverAllContactsOperation`
/// and `CKDiscoverUserInfosOperation` hand these out. Use ``CKUserIdentity`` in new code.
///
/// The iOS 9 `displayContact` (a `CNContact`) is not here: Linux has no Contacts framework.
/// `firstName` and `lastName` are, as the header declares them where Contacts is missing.
///
/// CloudKit document: *CKDiscoveredUserInfo* (iOS 8–9 SDK).
@available(*, deprecated, message: "Replaced by CKUserIdentity")
public final class CKDiscoveredUserInfo: NSObject, @unchecked Sendable {
    /// The user's user record ID in this container.
    public let userRecordID: CKRecord.ID?
    /// The user's given name, when the user gave one.
    public let firstName: String?
    /// The user's family name, when the user gave one.
    public let lastName: String?

    package init(identity: CKUserIdentity) {
        self.userRecordID = identity.userRecordID
        self.firstName = identity.nameComponents?.givenName
        self.lastName = identity.nameComponents?.familyName
    }

    /// A summary such as `<CKDiscoveredUserInfo: userRecordID=_0a1b…, Ann Lee>`.
    public override var description: String {
        let name = [firstName, lastName].compactMap { $0 }.joined(separator: " ")
        return "<CKDiscoveredUserInfo: userRecordID=\(userRecordID?.recordName ?? "nil"), \(name)>"
    }
}
