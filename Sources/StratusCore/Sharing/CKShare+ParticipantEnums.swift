import StratusWire

// The participant enumerations are declared in C (CStratus), so that Swift imports them as it
// imports CloudKit's: non-frozen enums, whose `switch`es end with `@unknown default`.

extension CKShare {
    /// A participant's part in a share: `.owner`, `.privateUser` (added by the owner) or
    /// `.publicUser` (joined through the URL of a share open to the public). Declared in C as
    /// `CKShareParticipantRole`, with CloudKit's raw values (there is no case with raw value 2).
    public typealias ParticipantRole = CKShareParticipantRole

    /// Whether a participant has accepted: `.pending`, `.accepted` or `.removed`. Declared in
    /// C as `CKShareParticipantAcceptanceStatus`, with CloudKit's raw values.
    public typealias ParticipantAcceptanceStatus = CKShareParticipantAcceptanceStatus

    /// What a participant, or anyone with the URL of a public share, may do with the shared
    /// records: `.none`, `.readOnly` or `.readWrite`. Declared in C as
    /// `CKShareParticipantPermission`, with CloudKit's raw values.
    public typealias ParticipantPermission = CKShareParticipantPermission

    /// The iOS 10 name of a participant's part in a share, with the raw values of
    /// ``ParticipantRole``.
    @available(*, deprecated, renamed: "CKShare.ParticipantRole")
    public typealias ParticipantType = CKShareParticipantType
}

extension CKShareParticipantRole {
    package init(_ wire: WireParticipantRole) {
        self = switch wire {
        case .unknown: .unknown
        case .owner: .owner
        case .privateUser: .privateUser
        case .publicUser: .publicUser
        }
    }

    /// The role on the wire; nil for a raw value CloudKit does not define.
    package var wireValue: WireParticipantRole? { WireParticipantRole(rawValue: rawValue) }
}

extension CKShareParticipantRole: @retroactive CustomStringConvertible {
    /// The role's Swift name, such as `privateUser`.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .owner: "owner"
        case .privateUser: "privateUser"
        case .publicUser: "publicUser"
        @unknown default: "CKShare.ParticipantRole(rawValue: \(rawValue))"
        }
    }
}

extension CKShareParticipantAcceptanceStatus {
    package init(_ wire: WireParticipantAcceptanceStatus) {
        self = switch wire {
        case .unknown: .unknown
        case .pending: .pending
        case .accepted: .accepted
        case .removed: .removed
        }
    }

    /// The status on the wire; nil for a raw value CloudKit does not define.
    package var wireValue: WireParticipantAcceptanceStatus? { WireParticipantAcceptanceStatus(rawValue: rawValue) }
}

extension CKShareParticipantAcceptanceStatus: @retroactive CustomStringConvertible {
    /// The status's Swift name, such as `pending`.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .pending: "pending"
        case .accepted: "accepted"
        case .removed: "removed"
        @unknown default: "CKShare.ParticipantAcceptanceStatus(rawValue: \(rawValue))"
        }
    }
}

extension CKShareParticipantPermission {
    package init(_ wire: WireParticipantPermission) {
        self = switch wire {
        case .unknown: .unknown
        case .none: .none
        case .readOnly: .readOnly
        case .readWrite: .readWrite
        }
    }

    /// The permission on the wire; nil for a raw value CloudKit does not define.
    package var wireValue: WireParticipantPermission? { WireParticipantPermission(rawValue: rawValue) }
}

extension CKShareParticipantPermission: @retroactive CustomStringConvertible {
    /// The permission's Swift name, such as `readOnly`.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .none: "none"
        case .readOnly: "readOnly"
        case .readWrite: "readWrite"
        @unknown default: "CKShare.ParticipantPermission(rawValue: \(rawValue))"
        }
    }
}

extension CKShareParticipantType: @retroactive CustomStringConvertible {
    /// The type's Swift name, such as `privateUser`.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .owner: "owner"
        case .privateUser: "privateUser"
        case .publicUser: "publicUser"
        @unknown default: "CKShare.ParticipantType(rawValue: \(rawValue))"
        }
    }
}
