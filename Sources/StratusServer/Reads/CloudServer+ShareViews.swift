import Foundation
import StratusWire

extension CloudServer {
    /// `account` as the container `containerIdentifier` knows it, for deciding its part in a
    /// share there.
    func shareCaller(account: String, in containerIdentifier: String) -> ShareCaller {
        let (profile, discoverable) = registry.withLock { registry in
            (registry.people.profiles[account], registry.people.discoverabilityStatus(of: account, in: containerIdentifier) == .granted)
        }
        return ShareCaller(
            account: account,
            userRecordName: userRecordName(account: account, containerIdentifier: containerIdentifier),
            emailAddress: profile?.emailAddress,
            phoneNumber: profile?.phoneNumber,
            name: profile?.name,
            isDiscoverable: discoverable
        )
    }

    /// The scope a request of `caller` would have in the share's container: the owner's
    /// private database for the owner, the shared database for anyone else.
    func shareScope(for caller: ShareCaller, at location: ShareLocation, deviceID: String) -> RequestScope {
        let isOwner = caller.account == location.zone.ownerAccount
        return RequestScope(
            container: location.container,
            deviceID: deviceID,
            databaseScope: isOwner ? .private : .shared,
            status: .available,
            account: caller.account,
            userRecordName: caller.userRecordName
        )
    }

    /// A record of the share's zone as `scope`'s user sees it: as in the owner's private
    /// database for the owner, as in their shared database for anyone else.
    func presentInShare(_ record: WireRecord, at location: ShareLocation, to scope: RequestScope, desiredKeys: [String]? = nil) -> WireRecord {
        scope.databaseScope == .private
            ? present(record, to: scope, desiredKeys: desiredKeys)
            : present(record, in: ZoneView(location.zone, scope: scope), desiredKeys: desiredKeys)
    }
}

extension CloudServer {
    /// Calls `body` with the share whose URL is `url`, its zone locked for the length of the
    /// call: looked for first in `preferred`, the container of the request, then in every
    /// other container of the server (by identifier), since an app cannot know a share's
    /// container before it has the share's metadata. nil when no share has the URL.
    func withShare<T>(url: String, preferring preferred: ContainerStore, _ body: (ShareLocation, StoredRecord) -> T) -> T? {
        if let answer = preferred.shareDirectory.withShare(url: url, in: preferred, body) { return answer }
        guard url.hasPrefix(ShareRules.urlPrefix) else { return nil }
        let others = registry.withLock { registry in
            registry.containers.values.filter { $0 !== preferred }.sorted { $0.identifier < $1.identifier }
        }
        for container in others {
            if let answer = container.shareDirectory.withShare(url: url, in: container, body) { return answer }
        }
        return nil
    }
}
