import StratusWire

// `CKNotificationType` and `CKQueryNotificationReason` are declared in C (CStratus), so that
// Swift imports them as it imports CloudKit's: non-frozen enums, whose `switch`es end with
// `@unknown default`.

extension CKNotificationType {
    package init(_ wire: WireNotification.Kind) {
        self = switch wire {
        case .query: .query
        case .recordZone: .recordZone
        case .readNotification: .readNotification
        case .database: .database
        }
    }

    /// The kind on the wire; nil for a raw value CloudKit does not define.
    package var wireValue: WireNotification.Kind? { WireNotification.Kind(rawValue: rawValue) }
}

extension CKNotificationType: @retroactive CustomStringConvertible {
    /// The type's Swift name, such as `query`.
    public var description: String {
        switch self {
        case .query: "query"
        case .recordZone: "recordZone"
        case .readNotification: "readNotification"
        case .database: "database"
        @unknown default: "CKNotification.NotificationType(rawValue: \(rawValue))"
        }
    }
}

extension CKQueryNotificationReason {
    package init(_ wire: WireNotification.QueryReason) {
        self = switch wire {
        case .recordCreated: .recordCreated
        case .recordUpdated: .recordUpdated
        case .recordDeleted: .recordDeleted
        }
    }

    /// The reason on the wire; nil for a raw value CloudKit does not define.
    package var wireValue: WireNotification.QueryReason? { WireNotification.QueryReason(rawValue: rawValue) }
}

extension CKQueryNotificationReason: @retroactive CustomStringConvertible {
    /// The reason's Swift name, such as `recordCreated`.
    public var description: String {
        switch self {
        case .recordCreated: "recordCreated"
        case .recordUpdated: "recordUpdated"
        case .recordDeleted: "recordDeleted"
        @unknown default: "CKQueryNotification.Reason(rawValue: \(rawValue))"
        }
    }
}
