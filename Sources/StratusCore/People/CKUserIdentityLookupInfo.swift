import Foundation
import StratusWire

extension CKUserIdentity {
    /// What a user is looked up by: an email address, a phone number or a user record ID.
    /// See ``CKUserIdentityLookupInfo``.
    public typealias LookupInfo = CKUserIdentityLookupInfo
}

/// What a user is looked up by: an email address, a phone number or a user record ID. Swift
/// code spells it `CKUserIdentity.LookupInfo`.
///
/// ```swift
/// let infos = CKUserIdentity.LookupInfo.lookupInfos(withEmails: ["ann@example.com", "bob@example.com"])
/// let operation = CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: infos)
/// ```
///
/// Lookup infos are values: two with the same email address, phone number or user record ID
/// are equal (`isEqual`/`hash`), so they work as dictionary keys. The comparison is exact; the
/// server matches addresses more loosely (case-insensitive email addresses, phone numbers by
/// their last ten digits).
///
/// The class is declared at the top level, under CloudKit's Objective-C name, because
/// `NSKeyedArchiver` on Linux cannot archive an object of a nested class.
///
/// CloudKit document: *CKUserIdentity.LookupInfo*.
public final class CKUserIdentityLookupInfo: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// The email address looked up by, if any.
    public let emailAddress: String?
    /// The phone number looked up by, if any.
    public let phoneNumber: String?
    /// The user record ID looked up by, if any.
    public let userRecordID: CKRecord.ID?

    private init(emailAddress: String?, phoneNumber: String?, userRecordID: CKRecord.ID?) {
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
        self.userRecordID = userRecordID
    }

    /// A lookup info that finds the user with `emailAddress`.
    public convenience init(emailAddress: String) {
        self.init(emailAddress: emailAddress, phoneNumber: nil, userRecordID: nil)
    }

    /// A lookup info that finds the user with `phoneNumber`.
    public convenience init(phoneNumber: String) {
        self.init(emailAddress: nil, phoneNumber: phoneNumber, userRecordID: nil)
    }

    /// A lookup info that finds the user whose user record is `userRecordID`.
    public convenience init(userRecordID: CKRecord.ID) {
        self.init(emailAddress: nil, phoneNumber: nil, userRecordID: userRecordID)
    }

    /// One lookup info per email address, in order.
    public class func lookupInfos(withEmails emails: [String]) -> [CKUserIdentity.LookupInfo] {
        emails.map { CKUserIdentityLookupInfo(emailAddress: $0) }
    }

    /// One lookup info per phone number, in order.
    public class func lookupInfos(withPhoneNumbers phoneNumbers: [String]) -> [CKUserIdentity.LookupInfo] {
        phoneNumbers.map { CKUserIdentityLookupInfo(phoneNumber: $0) }
    }

    /// One lookup info per user record ID, in order.
    public class func lookupInfos(with recordIDs: [CKRecord.ID]) -> [CKUserIdentity.LookupInfo] {
        recordIDs.map { CKUserIdentityLookupInfo(userRecordID: $0) }
    }

    package convenience init(wire: WireUserLookupInfo) {
        self.init(
            emailAddress: wire.emailAddress,
            phoneNumber: wire.phoneNumber,
            userRecordID: wire.userRecordID.map { CKRecord.ID(wire: $0) }
        )
    }

    package var wireValue: WireUserLookupInfo {
        WireUserLookupInfo(emailAddress: emailAddress, phoneNumber: phoneNumber, userRecordID: userRecordID?.wireValue)
    }

    /// Whether `object` is a lookup info for the same email address, phone number or user
    /// record ID.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKUserIdentityLookupInfo else { return false }
        return other === self || other.wireValue == wireValue
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { wireValue.hashValue }

    /// Returns self: a lookup info is immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Lookup infos decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// Encodes the lookup info as one versioned blob.
    public func encode(with coder: NSCoder) {
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.userIdentityLookupInfo) { wireValue.write(to: &$0) }, with: coder)
    }

    /// Decodes a lookup info; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let wire = SecureCodingBlob.decode(from: coder, as: .userIdentityLookupInfo, WireUserLookupInfo.read) else { return nil }
        self.init(wire: wire)
    }

    /// A summary such as `<CKUserIdentityLookupInfo: emailAddress=ann@example.com>`.
    public override var description: String {
        if let emailAddress { return "<CKUserIdentityLookupInfo: emailAddress=\(emailAddress)>" }
        if let phoneNumber { return "<CKUserIdentityLookupInfo: phoneNumber=\(phoneNumber)>" }
        return "<CKUserIdentityLookupInfo: userRecordID=\(userRecordID?.recordName ?? "nil")>"
    }
}
