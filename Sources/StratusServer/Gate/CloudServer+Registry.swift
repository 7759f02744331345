import Foundation
import StratusWire

// What the gate knows of devices and requests: each device's container, account and session,
// and the state of admission (injected faults, delays, the rate limit, the request log).

extension CloudServer {
    struct Device: Sendable {
        var containerIdentifier: String
        var account: String?
        var statusOverride: WireAccountStatus?
        /// The session the device's account was signed in with: requests must carry it. A
        /// device without an account has none.
        var sessionToken: String?
        /// The user record name of ``account`` in the container, worked out once.
        var userRecordName: String?

        init(containerIdentifier: String, account: String?) {
            self.containerIdentifier = containerIdentifier
            self.account = account
            self.sessionToken = account == nil ? nil : RandomUUID.string()
            self.userRecordName = account.map { CloudServer.userRecordName(account: $0, containerIdentifier: containerIdentifier) }
        }

        var status: WireAccountStatus {
            statusOverride ?? (account == nil ? .noAccount : .available)
        }
    }

    struct Registry: Sendable {
        let settings: StoreSettings
        var containers: [String: ContainerStore] = [:]
        var devices: [String: Device] = [:]
        var knownUsers: Set<String> = []
        var requestCount = 0
        var injectedFailures = CountedQueue<WireError>()
        var pendingDelays = CountedQueue<TimeInterval>()
        var requestLog = RequestLog(limit: RequestLog.defaultLimit)
        /// How many records the last query examined, for ``CloudServer/lastQueryExaminedCount``.
        var examinedByLastQuery = 0
        var rateLimiter: RateLimiter?
        /// Who the accounts are (email, phone, name, contacts) and who may be discovered.
        var people = PeopleDirectory()

        /// The container with `identifier`, created on first use.
        mutating func container(_ identifier: String) -> ContainerStore {
            if let existing = containers[identifier] { return existing }
            let created = ContainerStore(identifier: identifier, settings: settings)
            containers[identifier] = created
            return created
        }
    }
}
