import Foundation
import StratusWire

/// A user of the app found by discovery: who the user is in this container (the user record
/// ID), the name the user gave, and how the user was found.
///
/// You never create identities: `CKDiscoverUserIdentitiesOperation`,
/// `CKDiscoverAllUserIdentitiesOperation` and `CKContainer`'s `userIdentity(for…:)` methods
/// hand them out, and only for users who granted `userDiscoverability` in the container.
///
/// Identities are values: two with the same contents are equal (`isEqual`/`hash`).
///
/// CloudKit document: *CKUserIdentity*.
public final class CKUserIdentity: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// What the user was found by: the lookup info you passed, or for an identity from your
    /// contacts, the contact's email address or phone number that matched.
    public let lookupInfo: CKUserIdentity.LookupInfo?
    /// The user's name, when the user gave one.
    public let nameComponents: PersonNameComponents?
    /// The user's user record ID in this container.
    public let userRecordID: CKRecord.ID?
    /// The identifiers of your contacts that match this user; filled for identities found by
    /// discovering all identities from your contacts, empty otherwise.
    public let contactIdentifiers: [String]
    /// Whether the user has an iCloud account: true for every discovered user.
    public let hasiCloudAccount: Bool

    private init(
        lookupInfo: CKUserIdentity.LookupInfo?,
        nameComponents: PersonNameComponents?,
        userRecordID: CKRecord.ID?,
        contactIdentifiers: [String],
        hasiCloudAccount: Bool
    ) {
        self.lookupInfo = lookupInfo
        self.nameComponents = nameComponents
        self.userRecordID = userRecordID
        self.contactIdentifiers = contactIdentifiers
        self.hasiCloudAccount = hasiCloudAccount
    }

    /// The identity the service describes; `lookupInfo` replaces the one it echoes, so an
    /// identity found by a lookup holds the very lookup info object that was passed.
    package convenience init(wire: WireUserIdentity, lookupInfo: CKUserIdentity.LookupInfo? = nil) {
        self.init(
            lookupInfo: lookupInfo ?? wire.lookupInfo.map { CKUserIdentity.LookupInfo(wire: $0) },
            nameComponents: wire.nameComponents.map(PersonNameComponents.init(wire:)),
            userRecordID: wire.userRecordName.map { CKRecord.ID(recordName: $0) },
            contactIdentifiers: wire.contactIdentifiers,
            hasiCloudAccount: wire.hasiCloudAccount
        )
    }

    /// The identity's contents, as they are archived and compared.
    private struct Contents: Hashable {
        var lookupInfo: WireUserLookupInfo?
        var nameComponents: WireNameComponents?
        var userRecordID: WireRecordID?
        var contactIdentifiers: [String]
        var hasiCloudAccount: Bool

        func write(to writer: inout BinaryWriter) {
            writer.write(lookupInfo != nil)
            lookupInfo?.write(to: &writer)
            writer.write(nameComponents != nil)
            nameComponents?.write(to: &writer)
            writer.write(userRecordID != nil)
            userRecordID?.write(to: &writer)
            writer.write(contactIdentifiers)
            writer.write(hasiCloudAccount)
        }

        static func read(from reader: inout BinaryReader) throws(BinaryFormatError) -> Contents {
            Contents(
                lookupInfo: try reader.readBool() ? try WireUserLookupInfo.read(from: &reader) : nil,
                nameComponents: try reader.readBool() ? try WireNameComponents.read(from: &reader) : nil,
                userRecordID: try reader.readBool() ? try WireRecordID.read(from: &reader) : nil,
                contactIdentifiers: try reader.readStrings(),
                hasiCloudAccount: try reader.readBool()
            )
        }
    }

    private var contents: Contents {
        Contents(
            lookupInfo: lookupInfo?.wireValue,
            nameComponents: nameComponents.map(WireNameComponents.init),
            userRecordID: userRecordID?.wireValue,
            contactIdentifiers: contactIdentifiers,
            hasiCloudAccount: hasiCloudAccount
        )
    }

    private convenience init(contents: Contents) {
        self.init(
            lookupInfo: contents.lookupInfo.map { CKUserIdentity.LookupInfo(wire: $0) },
            nameComponents: contents.nameComponents.map(PersonNameComponents.init(wire:)),
            userRecordID: contents.userRecordID.map { CKRecord.ID(wire: $0) },
            contactIdentifiers: contents.contactIdentifiers,
            hasiCloudAccount: contents.hasiCloudAccount
        )
    }

    /// Whether `object` is an identity with the same contents.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKUserIdentity else { return false }
        return other === self || other.contents == contents
    }

    /// A hash consistent with ``isEqual(_:)``.
    public override var hash: Int { contents.hashValue }

    /// Returns self: an identity is immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Identities decode only what they encoded.
    public static var supportsSecureCoding: Bool { true }

    /// Encodes the identity as one versioned blob.
    public func encode(with coder: NSCoder) {
        let contents = self.contents
        SecureCodingBlob.encode(ArchiveEnvelope.seal(.userIdentity) { contents.write(to: &$0) }, with: coder)
    }

    /// Decodes an identity; nil for a missing, damaged or foreign archive.
    public required convenience init?(coder: NSCoder) {
        guard let contents = SecureCodingBlob.decode(from: coder, as: .userIdentity, Contents.read) else { return nil }
        self.init(contents: contents)
    }

    /// A summary such as `<CKUserIdentity: userRecordID=_0a1b…, name=Ann Lee>`.
    public override var description: String {
        let name = [nameComponents?.givenName, nameComponents?.familyName].compactMap { $0 }.joined(separator: " ")
        return "<CKUserIdentity: userRecordID=\(userRecordID?.recordName ?? "nil"), name=\(name.isEmpty ? "nil" : name)>"
    }
}

extension PersonNameComponents {
    package init(wire: WireNameComponents) {
        self.init()
        namePrefix = wire.namePrefix
        givenName = wire.givenName
        middleName = wire.middleName
        familyName = wire.familyName
        nameSuffix = wire.nameSuffix
        nickname = wire.nickname
    }
}

extension WireNameComponents {
    package init(_ name: PersonNameComponents) {
        self.init(
            namePrefix: name.namePrefix,
            givenName: name.givenName,
            middleName: name.middleName,
            familyName: name.familyName,
            nameSuffix: name.nameSuffix,
            nickname: name.nickname
        )
    }
}
