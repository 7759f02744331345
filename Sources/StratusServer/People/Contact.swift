import Foundation
import StratusWire

extension CloudServer {
    /// An entry of an account's contact list, as iCloud keeps the user's contacts: what
    /// `CKDiscoverAllUserIdentitiesOperation` and `CKContainer.allUserIdentitiesFromContacts()`
    /// look through.
    public struct Contact: Hashable, Sendable {
        /// The contact's identifier, reported in `CKUserIdentity.contactIdentifiers`.
        public var identifier: String
        /// The contact's email addresses.
        public var emailAddresses: [String]
        /// The contact's phone numbers.
        public var phoneNumbers: [String]

        /// Creates a contact.
        public init(identifier: String = RandomUUID.string(), emailAddresses: [String] = [], phoneNumbers: [String] = []) {
            self.identifier = identifier
            self.emailAddresses = emailAddresses
            self.phoneNumbers = phoneNumbers
        }
    }
}
