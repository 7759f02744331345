import Foundation
import StratusWire

extension CloudServer {
    /// Fires the database's subscriptions for what one request changed: each notification goes
    /// into its owner's notification collection and is pushed to the owner's registered
    /// devices, except `originator`, the device that made the change.
    ///
    /// - A query subscription fires once per record: a creation or an update when the record
    ///   matches its type, zone and predicate after the change, a deletion when it matched
    ///   before. An update that makes a record start matching fires as an update; one that
    ///   makes it stop matching does not fire (the subscription watches matching records, and
    ///   the record no longer is one). A `firesOnce` subscription is deleted as it fires its
    ///   first notification, and fires no other. In the public database it fires only for
    ///   records its owner may read. Its `desiredKeys` and localization arguments are read from
    ///   the record the notification is about: for a deletion, the record as it was.
    /// - A zone subscription fires once per request that changed a record in its zone
    ///   (deletions by cascade included), of its record type when it names one.
    /// - A database subscription fires once per request that changed a record in a custom
    ///   zone (of its record type when it names one), or created or deleted a custom zone (only
    ///   when it names no record type). The default zone never makes it fire.
    ///
    /// The server calls it while the zones are still locked, so each zone's notifications
    /// follow the order of its changes.
    func fireSubscriptions(for events: DatabaseEvents, in database: DatabaseStore, container: ContainerStore, originator: String?) {
        guard !events.isEmpty else { return }
        let now = clock.now
        for owned in database.subscriptions.everyOwner {
            let (owner, subscriptions) = (owned.owner, owned.subscriptions)
            let context = WirePredicateContext(now: now, currentUserRecordName: owner)
            // Whom the owner's pushes go to, found once for all of this request's notifications.
            var recipients: [String]?
            let candidates = owned.equalities.candidates(in: events)
            for (position, subscription) in subscriptions.enumerated() {
                guard let info = subscription.notificationInfo else { continue }
                let relevant = candidates.events(forSubscriptionAt: position, of: events)
                if relevant.isEmpty { continue }   // a narrowed subscription with no candidate
                for firing in firings(of: subscription, owner: owner, for: relevant, database: database, container: container, context: context) {
                    if subscription.queryOptions.contains(.firesOnce), !database.subscriptions.claim(subscription, owner: owner) { break }
                    let notification = notify(owner, of: firing, subscription: subscription, info: info, databaseScope: database.scope, container: container)
                    let devices = recipients ?? pushRecipients(of: owner, in: container, except: originator)
                    recipients = devices
                    push(notification, info: info, to: devices, owner: owner, in: container)
                    if subscription.queryOptions.contains(.firesOnce) { break }
                }
            }
        }
    }

    /// One reason for a subscription to fire.
    struct Firing {
        var kind: WireNotification.Kind
        var reason: WireNotification.QueryReason?
        /// The record a query notification is about, as it is after the change (before it for
        /// a deletion).
        var record: WireRecord?
        var zoneID: WireZoneID?
    }

    private func firings(of subscription: WireSubscription, owner: String, for events: DatabaseEvents, database: DatabaseStore, container: ContainerStore, context: WirePredicateContext) -> [Firing] {
        let ownZone = { (zoneID: WireZoneID?) -> WireZoneID? in
            guard let zoneID, zoneID.ownerName.hasSameUTF8Bytes(as: owner) else { return zoneID }
            return WireZoneID(zoneName: zoneID.zoneName, ownerName: WireZoneID.currentUserOwnerName)
        }
        let ofType = { (change: RecordChange) -> Bool in
            guard let type = subscription.recordType else { return true }
            return (change.new ?? change.old)?.recordType == type
        }
        switch subscription.kind {
        case .query:
            guard let predicate = subscription.predicate, let type = subscription.recordType else { return [] }
            let zone = ownZone(subscription.zoneID)
            let options = subscription.queryOptions
            var result: [Firing] = []
            // In the public database the owner hears only of records the security roles let
            // them read, as a query would show them.
            let permissions = database.scope == .public ? container.permissions(for: type) : nil
            let readable = { (record: WireRecord) -> Bool in
                permissions?.grants(signedIn: true, isCreator: record.creatorUserRecordName == owner).contains(.read) ?? true
            }
            for (zoneID, changes) in events.recordChanges where zone == nil || zone == zoneID {
                for change in changes where (change.new ?? change.old).map(readable) ?? false {
                    switch (change.old, change.new) {
                    case (_, let new?) where new.recordType == type && predicate.evaluate(new, in: context):
                        let reason: WireNotification.QueryReason = change.old == nil ? .recordCreated : .recordUpdated
                        guard options.contains(reason == .recordCreated ? .firesOnRecordCreation : .firesOnRecordUpdate) else { continue }
                        result.append(Firing(kind: .query, reason: reason, record: new, zoneID: zoneID))
                    case (let old?, nil) where old.recordType == type && options.contains(.firesOnRecordDeletion) && predicate.evaluate(old, in: context):
                        result.append(Firing(kind: .query, reason: .recordDeleted, record: old, zoneID: zoneID))
                    default:
                        continue
                    }
                }
            }
            return result
        case .recordZone:
            guard let zone = ownZone(subscription.zoneID),
                  events.recordChanges.contains(where: { $0.zoneID == zone && $0.changes.contains(where: ofType) }) else { return [] }
            return [Firing(kind: .recordZone, zoneID: zone)]
        case .database:
            guard database.scope != .public else { return [] }
            let recordsChanged = events.recordChanges.contains { !$0.zoneID.isDefaultZone && $0.changes.contains(where: ofType) }
            let zonesChanged = subscription.recordType == nil && events.zoneChanges.contains { !$0.isDefaultZone }
            return recordsChanged || zonesChanged ? [Firing(kind: .database)] : []
        }
    }

    /// Makes the notification for `firing` and adds it to the owner's collection, raising the
    /// owner's badge first when the subscription badges.
    private func notify(_ owner: String, of firing: Firing, subscription: WireSubscription, info: WireNotificationInfo, databaseScope: WireDatabaseScope, container: ContainerStore) -> WireNotification {
        var notification = WireNotification(
            kind: firing.kind, notificationID: nextNotificationID(), subscriptionID: subscription.subscriptionID,
            databaseScope: databaseScope, info: info
        )
        notification.containerIdentifier = container.identifier
        notification.subscriptionOwnerUserRecordName = owner
        notification.queryReason = firing.reason
        if let record = firing.record {
            notification.recordID = record.recordID
            if let keys = info.desiredKeys {
                let fields = record.fields.filter { keys.contains($0.key) && WireNotification.isAllowedRecordFieldValue($0.value) }
                notification.recordFields = fields.isEmpty ? nil : fields
            }
            notification.alertLocalizationArgs = info.alertLocalizationArgs.map { $0.map { Self.argument(record.fields[$0]) } }
            notification.titleLocalizationArgs = info.titleLocalizationArgs.map { $0.map { Self.argument(record.fields[$0]) } }
            notification.subtitleLocalizationArgs = info.subtitleLocalizationArgs.map { $0.map { Self.argument(record.fields[$0]) } }
            notification.collapseID = info.collapseIDKey.flatMap { record.fields[$0] }.map { Self.argument($0) }
        } else {
            notification.zoneID = firing.kind == .recordZone ? firing.zoneID : nil
        }
        let limit = storeSettings.notificationHistoryLimit
        return container.notifications.withLock { collections in
            if info.shouldBadge {
                let badge = collections[owner]?.badge ?? 0
                collections[owner, default: NotificationCollection()].badge = badge == .max ? badge : badge + 1
                notification.badge = collections[owner]?.badge
            }
            collections[owner, default: NotificationCollection()].add(notification, limit: limit)
            return notification
        }
    }

    /// A record value as a localization argument or collapse ID: strings as they are, numbers
    /// in decimal, dates in ISO 8601, references as the record name; empty for a missing field
    /// and for values that have no text form (bytes, assets, locations, lists).
    private static func argument(_ value: WireFieldValue?) -> String {
        switch value {
        case .string(let text)?: text
        case .int64(let number)?: String(number)
        case .double(let number)?: String(number)
        case .date(let date)?: ISO8601DateFormatter().string(from: date)
        case .reference(let reference)?: reference.recordID.recordName
        case .bytes?, .asset?, .location?, .list?, nil: ""
        }
    }

    /// A new notification ID: opaque, unique on this server, and the same sequence on every
    /// run of a server made with the same seed.
    private func nextNotificationID() -> String {
        let serial = notificationSerial.add(1, ordering: .relaxed).newValue
        let digest = SHA256.hex(sealingKey + Array("notification-\(serial)".utf8))
        let hex = Array(digest.prefix(32))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]).uppercased() }.joined(separator: "-")
    }
}
