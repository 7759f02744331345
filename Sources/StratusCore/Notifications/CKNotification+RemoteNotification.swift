import Foundation
import StratusWire

/// Gives `CKNotification` CloudKit's `init?(fromRemoteNotificationDictionary:)`, which returns
/// the concrete subclass.
///
/// A class's own initialiser cannot return an instance of a subclass; an initialiser declared in
/// a protocol extension can, by assigning `self`. `CKNotification` conforms, and so every
/// notification class has the initialiser; you never conform a type of your own.
public protocol CKNotificationInitializable {}

extension CKNotificationInitializable where Self: CKNotification {
    /// The notification a push's dictionary describes, as its concrete class:
    /// `CKNotification(fromRemoteNotificationDictionary: userInfo)` gives a
    /// ``CKQueryNotification``, ``CKRecordZoneNotification`` or ``CKDatabaseNotification``.
    ///
    /// Returns nil for a dictionary that is not CloudKit's or is malformed (see
    /// ``CKNotification/remoteNotificationDictionary`` for the shape), and when called on a
    /// subclass that the dictionary's notification is not: `CKQueryNotification(fromRemote…)`
    /// of a zone notification is nil.
    ///
    /// - Parameter notificationDictionary: The `userInfo` of the remote notification.
    public init?(fromRemoteNotificationDictionary notificationDictionary: [AnyHashable: Any]) {
        guard let wire = RemoteNotificationPayload.notification(from: notificationDictionary),
              let notification = CKNotification.make(wire) as? Self
        else { return nil }
        self = notification
    }
}

extension CKNotification {
    /// The remote-notification dictionary (the `userInfo`) a device receives for this
    /// notification: APNs' `"aps"` dictionary with the alert, sound, badge, category and flags,
    /// and CloudKit's `"ck"` dictionary. When it would exceed APNs' 4 KB limit, fields are
    /// dropped in the order the notification's class documents and `"ck"` carries `"p"`, so
    /// the notification it turns back into has ``isPruned`` set.
    ///
    /// Not CloudKit API: Stratus's, so that tests can hand an app's push handler what APNs would.
    ///
    /// ```
    /// { "aps": { "alert": { "body", "loc-key", "loc-args", "title", "title-loc-key",
    ///                       "title-loc-args", "subtitle", "subtitle-loc-key",
    ///                       "subtitle-loc-args", "action-loc-key", "launch-image" },
    ///            "sound", "badge", "category", "content-available": 1, "mutable-content": 1 },
    ///   "ck": { "nid", "cid", "ckuserid", "p": 1,
    ///           "qry": { "sid", "dbs", "fo", "rid", "zid", "zoid", "af": { … } }  // query
    ///           "fet": { "sid", "dbs", "zid", "zoid" }                            // zone
    ///           "met": { "sid", "dbs" } } }                                       // database
    /// ```
    public var remoteNotificationDictionary: [AnyHashable: Any] {
        Self.remoteNotificationDictionary(for: wire)
    }

    /// The remote-notification dictionary a device receives for `wire`, pruned to 4 KB.
    package static func remoteNotificationDictionary(for wire: WireNotification) -> [AnyHashable: Any] {
        var dictionary: [AnyHashable: Any] = [:]
        for (key, value) in RemoteNotificationPayload.dictionary(for: wire) { dictionary[key] = value }
        return dictionary
    }

    /// `wire` as a push delivers it: pruned to fit 4 KB.
    package static func pushed(_ wire: WireNotification) -> CKNotification {
        make(RemoteNotificationPayload.pruned(wire))
    }
}
