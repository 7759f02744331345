import StratusWire

/// Who the server's accounts are, as iCloud knows them: each account's email address, phone
/// number, name and contact list, and, per container, whether the account granted
/// `userDiscoverability`.
///
/// The rule it keeps: a user is found, by anyone, only in a container where the user granted
/// `userDiscoverability` (by a request from one of the user's devices, or a test knob). A user
/// who did not, and a user nobody knows, give the same answer: nothing.
///
/// Addresses are matched as people write them, not byte for byte: email addresses ignore case
/// and surrounding spaces; phone numbers compare their last ten digits, ignoring everything
/// else, so `+1 (555) 010-0001`, `15550100001` and `555-010-0001` are one number.
struct PeopleDirectory: Sendable {
    /// One account's details.
    struct Profile: Sendable {
        var emailAddress: String?
        var phoneNumber: String?
        var name: WireNameComponents?
        var contacts: [CloudServer.Contact] = []
    }

    /// An account in a container.
    struct Membership: Hashable, Sendable {
        var account: String
        var containerIdentifier: String
    }

    private(set) var profiles: [String: Profile] = [:]
    /// Granted or denied `userDiscoverability`; an absent entry is the initial state.
    private var discoverability: [Membership: WireApplicationPermissionStatus] = [:]
    /// What a user answers when asked for `userDiscoverability` for the first time.
    var promptAnswer: WireApplicationPermissionStatus = .granted

    // MARK: - Profiles

    /// Gives `account` an email address, taking it from any other account that had it.
    mutating func setEmailAddress(_ emailAddress: String?, for account: String) {
        give(emailAddress, as: \.emailAddress, normalized: Self.normalizedEmail, to: account)
    }

    /// Gives `account` a phone number, taking it from any other account that had it.
    mutating func setPhoneNumber(_ phoneNumber: String?, for account: String) {
        give(phoneNumber, as: \.phoneNumber, normalized: Self.normalizedPhone, to: account)
    }

    /// Sets an address of `account`, taking it from any other account whose address is the
    /// same once `normalized`: an address names one account at most.
    private mutating func give(_ address: String?, as property: WritableKeyPath<Profile, String?>, normalized: (String) -> String, to account: String) {
        if let address {
            let key = normalized(address)
            for (other, profile) in profiles where other != account {
                if let held = profile[keyPath: property], normalized(held) == key { profiles[other]?[keyPath: property] = nil }
            }
        }
        profiles[account, default: Profile()][keyPath: property] = address
    }

    mutating func setName(_ name: WireNameComponents?, for account: String) {
        profiles[account, default: Profile()].name = name
    }

    mutating func setContacts(_ contacts: [CloudServer.Contact], for account: String) {
        profiles[account, default: Profile()].contacts = contacts
    }

    // MARK: - Permission

    /// The account's `userDiscoverability` status in a container.
    func discoverabilityStatus(of account: String, in containerIdentifier: String) -> WireApplicationPermissionStatus {
        discoverability[Membership(account: account, containerIdentifier: containerIdentifier)] ?? .initialState
    }

    /// Sets the status; `.initialState` forgets the answer, `.couldNotComplete` is no answer
    /// and leaves the status unchanged.
    mutating func setDiscoverability(_ status: WireApplicationPermissionStatus, of account: String, in containerIdentifier: String) {
        let key = Membership(account: account, containerIdentifier: containerIdentifier)
        switch status {
        case .granted, .denied: discoverability[key] = status
        case .initialState: discoverability[key] = nil
        case .couldNotComplete: break
        }
    }

    /// Asks the account for discoverability: the first time, the user answers
    /// ``promptAnswer``; once the user has answered, the answer stands and nobody is asked.
    mutating func requestDiscoverability(of account: String, in containerIdentifier: String) -> WireApplicationPermissionStatus {
        let current = discoverabilityStatus(of: account, in: containerIdentifier)
        guard current == .initialState else { return current }
        setDiscoverability(promptAnswer, of: account, in: containerIdentifier)
        return promptAnswer
    }

    // MARK: - Finding people

    /// The discoverable user `info` names in a container, or nil: an unknown user and a user
    /// who did not grant discoverability are alike.
    ///
    /// - Parameter userRecordName: The user record name of an account in the container.
    func find(
        _ info: WireUserLookupInfo,
        in containerIdentifier: String,
        userRecordName: (String) -> String
    ) -> WireUserIdentity? {
        let account = self.account(for: info, among: discoverableAccounts(in: containerIdentifier), userRecordName: userRecordName)
        guard let account, discoverabilityStatus(of: account, in: containerIdentifier) == .granted else { return nil }
        return WireUserIdentity(
            userRecordName: userRecordName(account),
            lookupInfo: info,
            nameComponents: profiles[account]?.name
        )
    }

    /// The identity a share invitation for `info` carries in a container: the person is found
    /// among `accounts` by email address, phone number or user record ID whether or not they
    /// granted discoverability (inviting needs no opt-in), but their name is given only when
    /// they did. A person no account matches gets an identity with only the lookup info and
    /// `hasiCloudAccount == false`.
    ///
    /// - Parameters:
    ///   - accounts: Every account the server knows, for lookups by user record ID.
    ///   - userRecordName: The user record name of an account in the container.
    func invitee(
        _ info: WireUserLookupInfo,
        in containerIdentifier: String,
        accounts: Set<String>,
        userRecordName: (String) -> String
    ) -> WireUserIdentity {
        guard let account = account(for: info, among: accounts.sorted(), userRecordName: userRecordName) else {
            return WireUserIdentity(userRecordName: nil, lookupInfo: info, nameComponents: nil, hasiCloudAccount: false)
        }
        let discoverable = discoverabilityStatus(of: account, in: containerIdentifier) == .granted
        return WireUserIdentity(
            userRecordName: userRecordName(account),
            lookupInfo: info,
            nameComponents: discoverable ? profiles[account]?.name : nil
        )
    }

    /// Why `info` cannot name anyone, or nil: it must set exactly one of its fields, an email
    /// address must hold more than spaces, and a phone number at least one digit.
    static func problem(with info: WireUserLookupInfo) -> String? {
        guard info.isWellFormed else {
            return "a lookup info must name exactly one of an email address, a phone number or a user record ID"
        }
        if let email = info.emailAddress, normalizedEmail(email).isEmpty {
            return "the email address '\(email)' is empty"
        }
        if let phone = info.phoneNumber, normalizedPhone(phone).isEmpty {
            return "the phone number '\(phone)' holds no digits"
        }
        if let recordID = info.userRecordID, let error = WireValidation.checkRecordName(recordID.recordName) {
            return "the user record ID is not valid: \(error.message)"
        }
        return nil
    }

    /// The discoverable users among `account`'s contacts in a container: one identity per
    /// user, in the order of the user's first matching contact, naming every matching contact.
    func discoverContacts(
        of account: String,
        in containerIdentifier: String,
        userRecordName: (String) -> String
    ) -> [WireUserIdentity] {
        var identities: [WireUserIdentity] = []
        var positions: [String: Int] = [:]
        for contact in profiles[account]?.contacts ?? [] {
            let candidates = contact.emailAddresses.map { WireUserLookupInfo(emailAddress: $0) }
                + contact.phoneNumbers.map { WireUserLookupInfo(phoneNumber: $0) }
            var matched: Set<String> = []
            for info in candidates {
                guard var identity = find(info, in: containerIdentifier, userRecordName: userRecordName),
                      let name = identity.userRecordName, matched.insert(name).inserted else { continue }
                if let position = positions[name] {
                    identities[position].contactIdentifiers.append(contact.identifier)
                } else {
                    identity.contactIdentifiers = [contact.identifier]
                    positions[name] = identities.count
                    identities.append(identity)
                }
            }
        }
        return identities
    }

    /// The account `info` names: by email address, phone number, or user record ID (in the
    /// default zone) among `candidates`.
    private func account(for info: WireUserLookupInfo, among candidates: [String], userRecordName: (String) -> String) -> String? {
        if let email = info.emailAddress { return account(withEmail: email) }
        if let phone = info.phoneNumber { return account(withPhone: phone) }
        guard let recordID = info.userRecordID, recordID.zoneID.isDefaultZone else { return nil }
        return candidates.first { userRecordName($0).hasSameUTF8Bytes(as: recordID.recordName) }
    }

    private func account(withEmail email: String) -> String? {
        let key = Self.normalizedEmail(email)
        guard !key.isEmpty else { return nil }
        return profiles.first { $0.value.emailAddress.map(Self.normalizedEmail) == key }?.key
    }

    private func account(withPhone phone: String) -> String? {
        let key = Self.normalizedPhone(phone)
        guard !key.isEmpty else { return nil }
        return profiles.first { $0.value.phoneNumber.map(Self.normalizedPhone) == key }?.key
    }

    /// The accounts that granted discoverability in a container, in a stable order.
    private func discoverableAccounts(in containerIdentifier: String) -> [String] {
        discoverability.compactMap { key, status in
            key.containerIdentifier == containerIdentifier && status == .granted ? key.account : nil
        }.sorted()
    }

    /// An email address as it is compared: lowercased, without surrounding spaces.
    static func normalizedEmail(_ email: String) -> String {
        String(email.lowercased().drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    /// A phone number as it is compared: its last ten ASCII digits (all of them when it has
    /// fewer), so a number matches with or without its country code or trunk prefix.
    static func normalizedPhone(_ phone: String) -> String {
        String(phone.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init).suffix(10))
    }
}
