import Foundation
import StratusWire

extension CloudServer {

    /// Gives `account` an email address that others can discover it by (once it opts in); nil
    /// removes it. An address is one account's: giving it to `account` takes it from any
    /// other. Addresses match ignoring case and surrounding spaces.
    public func setEmailAddress(_ emailAddress: String?, forAccount account: String) {
        registry.withLock { $0.people.setEmailAddress(emailAddress, for: account) }
    }

    /// Gives `account` a phone number that others can discover it by (once it opts in); nil
    /// removes it. A number is one account's: giving it to `account` takes it from any other.
    /// Numbers match by their last ten digits, ignoring spaces, punctuation and a country code.
    public func setPhoneNumber(_ phoneNumber: String?, forAccount account: String) {
        registry.withLock { $0.people.setPhoneNumber(phoneNumber, for: account) }
    }

    /// Gives `account` the name a discovered identity reports in `nameComponents`; nil removes it.
    public func setName(_ name: PersonNameComponents?, forAccount account: String) {
        let wire = name.map {
            WireNameComponents(
                namePrefix: $0.namePrefix,
                givenName: $0.givenName,
                middleName: $0.middleName,
                familyName: $0.familyName,
                nameSuffix: $0.nameSuffix,
                nickname: $0.nickname
            )
        }
        registry.withLock { $0.people.setName(wire, for: account) }
    }

    /// Replaces `account`'s contact list: discovering all identities from a device of the
    /// account returns the contacts who are discoverable users of the container.
    public func setContacts(_ contacts: [Contact], forAccount account: String) {
        registry.withLock { $0.people.setContacts(contacts, for: account) }
    }

    /// Sets whether `account` is discoverable in a container, as if the user had answered the
    /// `userDiscoverability` prompt there: `.granted` or `.denied`; `.initialState` makes the
    /// user undecided again (the next request asks).
    public func setUserDiscoverability(_ status: WireApplicationPermissionStatus, forAccount account: String, containerIdentifier: String) {
        registry.withLock { $0.people.setDiscoverability(status, of: account, in: containerIdentifier) }
    }

    /// What a user answers when `requestApplicationPermission(.userDiscoverability)` asks for
    /// the first time in a container: `.granted` (the default) or `.denied`. Once the user has
    /// answered, later requests return that answer without asking. `.initialState` or
    /// `.couldNotComplete` model a prompt the user dismissed: the request returns that status
    /// and nothing is recorded.
    public var userDiscoverabilityPromptAnswer: WireApplicationPermissionStatus {
        get { registry.withLock { $0.people.promptAnswer } }
        set { registry.withLock { $0.people.promptAnswer = newValue } }
    }
}
