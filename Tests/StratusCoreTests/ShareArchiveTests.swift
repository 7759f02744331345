import Foundation
import StratusCore
import StratusWire
import XCTest

/// `CKShare`, `CKShare.Participant`, `CKShare.Metadata` and a zone with its zone-wide share
/// archive as one blob each, keep what an app relies on across a restart, and refuse, never
/// crash on, a damaged, truncated, foreign or missing archive.
final class ShareArchiveTests: XCTestCase {
    private let zoneID = CKRecordZone.ID(zoneName: "Parties")

    private func wireParticipant(_ id: String, _ name: String?, role: WireParticipantRole = .privateUser, status: WireParticipantAcceptanceStatus = .pending) -> WireShareParticipant {
        var full = PersonNameComponents()
        full.givenName = "Ann"
        return WireShareParticipant(
            participantID: id,
            identity: WireUserIdentity(
                userRecordName: name,
                lookupInfo: WireUserLookupInfo(emailAddress: "\(id)@example.com"),
                nameComponents: WireNameComponents(full),
                contactIdentifiers: ["c-\(id)"],
                hasiCloudAccount: name != nil
            ),
            role: role,
            acceptanceStatus: status,
            permission: role == .owner ? .readWrite : .readOnly
        )
    }

    private var savedShare: WireRecord {
        WireRecord(
            recordID: WireRecordID(recordName: "share-1", zoneID: zoneID.wireValue),
            recordType: "cloudkit.share",
            changeTag: "7",
            creationDate: Date(timeIntervalSinceReferenceDate: 1000),
            modificationDate: Date(timeIntervalSinceReferenceDate: 2000),
            creatorUserRecordName: "__defaultOwner__",
            lastModifiedUserRecordName: "__defaultOwner__",
            shareInfo: WireShareInfo(
                publicPermission: .none,
                url: "https://stratus.invalid/share/abc",
                participants: [wireParticipant("owner", "__defaultOwner__", role: .owner, status: .accepted), wireParticipant("ann", "_ann"), wireParticipant("bob", nil)]
            ),
            fields: ["cloudkit.title": .string("Clowns at the park")]
        )
    }

    private func share() throws -> CKShare {
        try XCTUnwrap(CKRecord.make(wire: savedShare) as? CKShare)
    }

    private func metadata() -> CKShare.Metadata {
        CKShare.Metadata(wire: WireShareMetadata(
            containerIdentifier: "iCloud.com.example.clowns",
            share: savedShare,
            hierarchicalRootRecordID: WireRecordID(recordName: "party", zoneID: zoneID.wireValue),
            rootRecord: WireRecord(recordID: WireRecordID(recordName: "party", zoneID: zoneID.wireValue), recordType: "Party", changeTag: "3", fields: ["n": .int64(4)]),
            participantRole: .privateUser,
            participantStatus: .pending,
            participantPermission: .readOnly,
            ownerIdentity: wireParticipant("owner", "_olga").identity
        ))
    }

    private func roundTrip<T: NSObject & NSSecureCoding>(_ object: T, as type: T.Type) throws -> T {
        let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
        return try XCTUnwrap(try NSKeyedUnarchiver.unarchivedObject(ofClass: type, from: data))
    }

    // MARK: - Round trips

    func testAShareWithLocalEditsSurvivesTheKeyedArchiver() throws {
        let share = try share()
        share[CKShare.SystemFieldKey.shareType] = "com.example.clowns.party"
        share.participants[1].permission = .readWrite
        share.removeParticipant(share.participants[2])
        let refused = CKShare.Participant(wire: wireParticipant("pat", "_pat"))
        refused.role = .publicUser
        share.addParticipant(refused)

        let decoded = try roundTrip(share, as: CKShare.self)
        XCTAssertEqual(decoded.wireSnapshot, share.wireSnapshot)
        XCTAssertEqual(decoded.changedKeys(), ["cloudkit.type"])
        XCTAssertEqual(decoded.participants.map(\.participantID), ["owner", "ann"])
        XCTAssertEqual(decoded.participants[1].permission, .readWrite)
        XCTAssertEqual(decoded.participants[1].userIdentity.nameComponents?.givenName, "Ann")
        XCTAssertEqual(decoded.participants[1].userIdentity.contactIdentifiers, ["c-ann"])
        XCTAssertEqual(decoded.ancestorSnapshot.shareInfo, savedShare.shareInfo, "the state the server last sent survives too")
        XCTAssertEqual(decoded.url, share.url)
        XCTAssertEqual(decoded.rejectionError?.code, .invalidArguments, "a refused change still fails the save")
        XCTAssertEqual(decoded.makeSave(policy: .ifServerRecordUnchanged).record, share.makeSave(policy: .ifServerRecordUnchanged).record)
    }

    func testANewShareSurvivesTheKeyedArchiverWithItsOwner() throws {
        let share = CKShare(rootRecord: CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "party", zoneID: zoneID)))
        share.addParticipant(CKShare.Participant(wire: wireParticipant("ann", "_ann")))
        let decoded = try roundTrip(share, as: CKShare.self)
        XCTAssertEqual(decoded.recordID, share.recordID)
        XCTAssertEqual(decoded.participants.map(\.participantID), share.participants.map(\.participantID))
        XCTAssertTrue(decoded.currentUserParticipant === decoded.owner)
        XCTAssertNil(decoded.rejectionError)
    }

    func testAShareDecodedAsARecordIsStillAShare() throws {
        let share = try share()
        let data = try NSKeyedArchiver.archivedData(withRootObject: share, requiringSecureCoding: true)
        let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [CKRecord.self, CKShare.self], from: data)
        XCTAssertEqual((decoded as? CKShare)?.wireSnapshot, share.wireSnapshot)
        let asRecord = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: data)
        XCTAssertTrue(asRecord is CKShare, "\(String(describing: asRecord))")
    }

    func testSystemFieldsKeepTheSavedSharingStateAndDropLocalEdits() throws {
        let share = try share()
        share[CKShare.SystemFieldKey.shareType] = "com.example.clowns.party"
        share.participants[1].permission = .readWrite
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        share.encodeSystemFields(with: coder)
        coder.finishEncoding()
        let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        decoder.decodingFailurePolicy = .setErrorAndReturn
        let decoded = try XCTUnwrap(CKShare(coder: decoder))
        XCTAssertEqual(decoded.recordChangeTag, "7")
        XCTAssertEqual(decoded.allKeys(), [])
        XCTAssertEqual(decoded.changedKeys(), [])
        XCTAssertEqual(decoded.participants.map(\.participantID), ["owner", "ann", "bob"])
        XCTAssertEqual(decoded.participants[1].permission, .readOnly, "the participants are the server's")
        XCTAssertEqual(decoded.url, share.url)
        XCTAssertEqual(decoded.makeSave(policy: .ifServerRecordUnchanged).record.shareInfo, savedShare.shareInfo,
                       "saving a share decoded from its system fields keeps everyone on it")
    }

    func testAShareReadAsAPlainRecordKeepsTheSavedSharingStateForItsSave() throws {
        let share = try share()
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        share.encodeSystemFields(with: coder)
        coder.finishEncoding()
        let decoder = try NSKeyedUnarchiver(forReadingFrom: coder.encodedData)
        decoder.requiresSecureCoding = true
        decoder.decodingFailurePolicy = .setErrorAndReturn
        let record = try XCTUnwrap(CKRecord(coder: decoder))
        XCTAssertFalse(record is CKShare, "CKRecord(coder:) makes a CKRecord, as in CloudKit")
        XCTAssertEqual(record.recordType, CKRecord.SystemType.share)
        XCTAssertEqual(record.recordChangeTag, "7")
        XCTAssertEqual(record.makeSave(policy: .ifServerRecordUnchanged).record.shareInfo, savedShare.shareInfo)
    }

    func testParticipantAndMetadataSurviveTheKeyedArchiver() throws {
        let participant = CKShare.Participant(wire: wireParticipant("ann", "_ann"))
        participant.permission = .readWrite
        let decodedParticipant = try roundTrip(participant, as: CKShare.Participant.self)
        XCTAssertEqual(decodedParticipant.wireValue, participant.wireValue)
        XCTAssertEqual(decodedParticipant.userIdentity, participant.userIdentity)

        let metadata = metadata()
        let decodedMetadata = try roundTrip(metadata, as: CKShare.Metadata.self)
        XCTAssertEqual(decodedMetadata.wireValue, metadata.wireValue)
        XCTAssertEqual(decodedMetadata.rootRecord?["n"] as? Int, 4)
        XCTAssertEqual(decodedMetadata.share.participants.count, 3)
        let copy = try XCTUnwrap(metadata.copy() as? CKShare.Metadata)
        XCTAssertFalse(copy.share === metadata.share)
        XCTAssertEqual(copy.wireValue, metadata.wireValue)
    }

    func testZoneWideShareSurvivesTheZonesArchiveAndAZoneWithoutOneWritesTheOldBytes() throws {
        let shared = CKRecordZone(wire: WireZone(
            zoneID: zoneID.wireValue,
            capabilities: [.fetchChanges, .atomic, .sharing, .zoneWideSharing],
            share: WireReference(recordID: WireRecordID(recordName: "cloudkit.zoneshare", zoneID: zoneID.wireValue), action: .none)
        ))
        let decoded = try roundTrip(shared, as: CKRecordZone.self)
        XCTAssertEqual(decoded.share, shared.share)
        XCTAssertEqual(decoded.capabilities, shared.capabilities)

        let plain = CKRecordZone(wire: WireZone(zoneID: zoneID.wireValue, capabilities: [.fetchChanges, .atomic]))
        let blob = try blob(of: plain)
        let expected = ArchiveEnvelope.seal(.zone) { WireZone(zoneID: zoneID.wireValue, capabilities: [.fetchChanges, .atomic]).write(to: &$0) }
        XCTAssertEqual(Array(blob), expected)
    }

    // MARK: - Damaged archives

    private var objects: [(String, NSObject & NSSecureCoding)] {
        get throws {
            let share = try share()
            return [
                ("share", share),
                ("participant", share.participants[1]),
                ("metadata", metadata()),
            ]
        }
    }

    private func decoders(_ data: Data) throws -> [String: Bool] {
        func decoded(_ make: (NSCoder) -> NSObject?) throws -> Bool {
            let decoder = try NSKeyedUnarchiver(forReadingFrom: data)
            decoder.requiresSecureCoding = true
            decoder.decodingFailurePolicy = .setErrorAndReturn
            return make(decoder) != nil
        }
        return [
            "share": try decoded { CKShare(coder: $0) },
            "record": try decoded { CKRecord(coder: $0) },
            "participant": try decoded { CKShare.Participant(coder: $0) },
            "metadata": try decoded { CKShare.Metadata(coder: $0) },
        ]
    }

    func testEachBlobDecodesAsItsOwnTypeOnly() throws {
        for (label, object) in try objects {
            let accepted = try decoders(archive(withBlob: blob(of: object)))
            let expected: Set = label == "share" ? ["share", "record"] : [label]
            XCTAssertEqual(Set(accepted.filter(\.value).map(\.key)), expected, label)
        }
        let record = CKRecord(recordType: "Party")
        XCTAssertEqual(try decoders(archive(withBlob: blob(of: record))).filter(\.value).map(\.key), ["record"],
                       "a plain record's archive is no share")
        let typed = CKRecord(wire: WireRecord(recordID: WireRecordID(recordName: "s"), recordType: "cloudkit.share"))
        XCTAssertEqual(try decoders(archive(withBlob: blob(of: typed))).filter(\.value).map(\.key), ["record"])
    }

    func testEveryFlippedByteAndEveryTruncationGivesNil() throws {
        for (label, object) in try objects {
            let blob = try blob(of: object)
            for index in blob.indices {
                var damaged = blob
                damaged[index] ^= 0x5A
                XCTAssertEqual(try decoders(archive(withBlob: damaged)).filter(\.value).map(\.key), [], "\(label), byte \(index)")
            }
            for length in stride(from: 0, to: blob.count, by: max(1, blob.count / 64)) {
                XCTAssertEqual(try decoders(archive(withBlob: blob.prefix(length))).filter(\.value).map(\.key), [], "\(label), \(length) bytes")
            }
        }
    }

    func testForgedBlobsWithAValidFrameAreRefused() throws {
        func forged(_ kind: ArchiveEnvelope.Kind, _ payload: (inout BinaryWriter) -> Void) throws -> [String: Bool] {
            try decoders(archive(withBlob: Data(ArchiveEnvelope.seal(kind, payload: payload))))
        }
        // A share archive whose record is not a share; the same bytes with the share type
        // decode, so it is the type that is refused.
        func shareBlob(ofType type: String) -> (inout BinaryWriter) -> Void {
            { writer in
                WireRecord(recordID: WireRecordID(recordName: "s"), recordType: type).write(to: &writer)
                for _ in 0..<2 {   // no changed keys, ancestor or rejections, plain then encrypted
                    writer.writeCount(0)
                    writer.write(false)
                    writer.writeCount(0)
                }
                writer.write(false)   // parent unchanged
                writer.write(false)   // no sharing state from a server
                writer.write(Int64(1))
                writer.write(nil as String?)
                writer.writeCount(0)
                writer.writeCount(0)
            }
        }
        XCTAssertEqual(Set(try forged(.share, shareBlob(ofType: "cloudkit.share")).filter(\.value).map(\.key)), ["share", "record"])
        XCTAssertEqual(try forged(.share, shareBlob(ofType: "Party")).filter(\.value).map(\.key), [])
        // Share state whose participants repeat an ID.
        let twice = WireShareInfo(participants: [wireParticipant("ann", "_ann"), wireParticipant("ann", "_bob")])
        let repeated = try forged(.shareSystemFields) { writer in
            savedShare.systemFieldsOnly.write(to: &writer)
            WireShareInfo.write(twice, to: &writer)
        }
        XCTAssertEqual(repeated.filter(\.value).map(\.key), [])
        // A participant with a role CloudKit does not define is still read back as it was.
        let odd = try forged(.shareParticipant) { writer in
            writer.write("p")
            WireUserIdentity(userRecordName: nil, lookupInfo: nil, nameComponents: nil).write(to: &writer)
            writer.write(Int64(2))
            writer.write(Int64(1))
            writer.write(Int64(2))
        }
        XCTAssertEqual(odd.filter(\.value).map(\.key), ["participant"])
    }

    func testMissingOrForeignValueGivesNil() throws {
        let empty = NSKeyedArchiver(requiringSecureCoding: true)
        empty.finishEncoding()
        XCTAssertEqual(try decoders(empty.encodedData).filter(\.value).map(\.key), [])
        let foreign = NSKeyedArchiver(requiringSecureCoding: true)
        foreign.encode("not a blob" as NSString, forKey: SecureCodingBlob.key)
        foreign.finishEncoding()
        XCTAssertEqual(try decoders(foreign.encodedData).filter(\.value).map(\.key), [])
    }
}
