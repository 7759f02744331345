import Foundation

// CloudKit names kept for older code. Each forwards to the current spelling.

/// The old name of ``CKCurrentUserDefaultName``.
@available(*, deprecated, renamed: "CKCurrentUserDefaultName")
public let CKOwnerDefaultName = CKCurrentUserDefaultName

/// The Swift 4.2 flat name of ``CKRecord/ReferenceAction``.
@available(*, deprecated, message: "renamed to CKRecord.ReferenceAction")
public typealias CKRecord_Reference_Action = CKRecord.ReferenceAction

/// The Swift 4.2 flat name of ``CKContainer/ApplicationPermissions``.
@available(*, deprecated, message: "renamed to CKContainer.ApplicationPermissions")
public typealias CKContainer_Application_Permissions = CKContainer.ApplicationPermissions

/// The Swift 4.2 flat name of ``CKContainer/ApplicationPermissionStatus``.
@available(*, deprecated, message: "renamed to CKContainer.ApplicationPermissionStatus")
public typealias CKContainer_Application_PermissionStatus = CKContainer.ApplicationPermissionStatus

/// The Swift 4.2 flat name of ``CKContainer/ApplicationPermissionBlock``.
@available(*, deprecated, message: "renamed to CKContainer.ApplicationPermissionBlock")
public typealias CKContainer_Application_PermissionBlock = CKContainer.ApplicationPermissionBlock

/// The Swift 4.2 flat name of ``CKShare/ParticipantAcceptanceStatus``.
@available(*, deprecated, message: "renamed to CKShare.ParticipantAcceptanceStatus")
public typealias CKShare_Participant_AcceptanceStatus = CKShare.ParticipantAcceptanceStatus

/// The Swift 4.2 flat name of ``CKShare/ParticipantPermission``.
@available(*, deprecated, message: "renamed to CKShare.ParticipantPermission")
public typealias CKShare_Participant_Permission = CKShare.ParticipantPermission

/// The Swift 4.2 flat name of ``CKShare/ParticipantRole``.
@available(*, deprecated, message: "renamed to CKShare.ParticipantRole")
public typealias CKShare_Participant_Role = CKShare.ParticipantRole

extension CKRecord {
    /// Creates a record in the given zone with a new UUID name.
    @available(*, deprecated, message: "Use init(recordType:recordID:) + CKRecord.ID(zoneID:) instead")
    public convenience init(recordType: RecordType, zoneID: CKRecordZone.ID) {
        self.init(recordType: recordType, recordID: ID(zoneID: zoneID))
    }
}

extension CKReference {
    /// The old name of ``CKRecord/ReferenceAction``.
    @available(*, deprecated, message: "renamed to CKRecord.ReferenceAction")
    public typealias Action = CKRecord.ReferenceAction
}

extension CKRecordZoneID {
    /// Creates a zone ID whose owner may be nil, meaning the current user: the iOS 8 spelling.
    ///
    /// Only a call that passes an optional owner name picks this initialiser.
    @available(*, deprecated)
    @_disfavoredOverload
    public convenience init(zoneName: String = CKRecordZoneID.defaultZoneName, ownerName: String? = CKCurrentUserDefaultName) {
        self.init(zoneName: zoneName, ownerName: ownerName ?? CKCurrentUserDefaultName)
    }
}

extension CKShareParticipant {
    /// The Swift 3 name of ``CKShare/ParticipantAcceptanceStatus``.
    @available(*, deprecated, message: "renamed to CKShare.ParticipantAcceptanceStatus")
    public typealias AcceptanceStatus = CKShare.ParticipantAcceptanceStatus

    /// The Swift 3 name of ``CKShare/ParticipantPermission``.
    @available(*, deprecated, message: "renamed to CKShare.ParticipantPermission")
    public typealias Permission = CKShare.ParticipantPermission

    /// The Swift 3 name of ``CKShare/ParticipantRole``.
    @available(*, deprecated, message: "renamed to CKShare.ParticipantRole")
    public typealias Role = CKShare.ParticipantRole

    /// The Swift 3 name of `CKShare.ParticipantType`.
    @available(*, deprecated, message: "renamed to CKShare.ParticipantType")
    public typealias ParticipantType = CKShareParticipantType
}
