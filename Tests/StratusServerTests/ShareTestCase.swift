import Foundation
import Stratus
import XCTest

/// Sharing through the `CloudService` boundary, with wire records: a custom zone "Party" in
/// john's private database, records of type `Item`, and shares.
class ShareTestCase: ServerTestCase {
    let party = WireZoneID(zoneName: "Party")
    var john: CKDatabase!

    override func setUp() {
        super.setUp()
        john = device("john").privateCloudDatabase
    }

    override func tearDown() {
        john = nil
        super.tearDown()
    }

    /// Creates a custom zone in `database` (john's private database by default).
    @discardableResult
    func makeZone(_ zoneID: WireZoneID? = nil, in database: CKDatabase? = nil) async throws -> WireZone {
        let response = try await server.modifyZones(WireZonesModifyRequest(context: rawContext(database ?? john), saves: [WireZone(zoneID: zoneID ?? party)]))
        return try XCTUnwrap(response.saveResults.first).result.get()
    }

    /// A record of type `Item` to save.
    func item(_ name: String, zone: WireZoneID? = nil, parent: String? = nil, share: String? = nil, tag: String? = nil, fields: [String: WireFieldValue] = [:]) -> WireRecordSave {
        let zoneID = zone ?? party
        var record = WireRecord(recordID: WireRecordID(recordName: name, zoneID: zoneID), recordType: "Item", changeTag: tag, fields: fields)
        record.parent = parent.map { WireReference(recordID: WireRecordID(recordName: $0, zoneID: zoneID), action: .none) }
        record.share = share.map { WireReference(recordID: WireRecordID(recordName: $0, zoneID: zoneID), action: .none) }
        return WireRecordSave(record: record, parentChanged: parent != nil)
    }

    /// A share record to save: named `name`, or the zone-wide share with `zoneWide`.
    func share(
        _ name: String = "share",
        zone: WireZoneID? = nil,
        publicPermission: WireParticipantPermission = .none,
        participants: [WireShareParticipant] = [],
        url: String? = nil,
        tag: String? = nil,
        fields: [String: WireFieldValue] = [:]
    ) -> WireRecordSave {
        let record = WireRecord(
            recordID: WireRecordID(recordName: name, zoneID: zone ?? party),
            recordType: WireShareRules.recordType,
            changeTag: tag,
            shareInfo: WireShareInfo(publicPermission: publicPermission, url: url, participants: participants),
            fields: fields
        )
        return WireRecordSave(record: record)
    }

    /// The zone-wide share of `zone` to save.
    func zoneWideShare(zone: WireZoneID? = nil, publicPermission: WireParticipantPermission = .none, participants: [WireShareParticipant] = []) -> WireRecordSave {
        share(WireShareRules.zoneWideShareName, zone: zone, publicPermission: publicPermission, participants: participants)
    }

    /// An invited participant, as a client sends it.
    func invitee(
        _ email: String,
        id: String? = nil,
        permission: WireParticipantPermission = .readOnly,
        role: WireParticipantRole = .privateUser,
        status: WireParticipantAcceptanceStatus = .unknown
    ) -> WireShareParticipant {
        WireShareParticipant(
            participantID: id ?? "client-\(email)",
            identity: WireUserIdentity(userRecordName: nil, lookupInfo: WireUserLookupInfo(emailAddress: email), nameComponents: nil),
            role: role,
            acceptanceStatus: status,
            permission: permission
        )
    }

    /// Sends one modify request to `database` (john's by default), without the client's checks.
    @discardableResult
    func modify(
        _ saves: [WireRecordSave] = [],
        deleting deletes: [String] = [],
        zone: WireZoneID? = nil,
        in database: CKDatabase? = nil,
        policy: WireSavePolicy = .ifServerRecordUnchanged,
        atomic: Bool = false
    ) async throws -> WireRecordsModifyResponse {
        try await server.modifyRecords(WireRecordsModifyRequest(
            context: rawContext(database ?? john),
            saves: saves,
            deletes: deletes.map { WireRecordID(recordName: $0, zoneID: zone ?? party) },
            savePolicy: policy,
            isAtomic: atomic
        ))
    }

    /// The stored record named `name` of `zone`, or nil when the lookup fails.
    func fetch(_ name: String, zone: WireZoneID? = nil, in database: CKDatabase? = nil) async throws -> WireRecord? {
        let response = try await server.lookupRecords(WireRecordsLookupRequest(
            context: rawContext(database ?? john),
            recordIDs: [WireRecordID(recordName: name, zoneID: zone ?? party)]
        ))
        return try? response.results.first?.result.get()
    }

    /// The stored record named `name`, failing the test when it is missing.
    func stored(_ name: String, zone: WireZoneID? = nil, file: StaticString = #filePath, line: UInt = #line) async throws -> WireRecord {
        let record = try await fetch(name, zone: zone)
        return try XCTUnwrap(record, "record '\(name)' should exist", file: file, line: line)
    }

    /// The zone as a zone lookup returns it.
    func lookUpZone(_ zoneID: WireZoneID? = nil) async throws -> WireZone {
        let response = try await server.lookupZones(WireZonesLookupRequest(context: rawContext(john), ids: [zoneID ?? party]))
        return try XCTUnwrap(response.results.first).result.get()
    }

    /// The error code of each save result, nil for a success, in request order.
    func codes(_ response: WireRecordsModifyResponse) -> [CKErrorCode?] {
        response.saveResults.map { item in
            if case .failure(let error) = item.result { return error.code }
            return nil
        }
    }

    /// The saved record of save `index`, failing the test when it failed.
    func saved(_ response: WireRecordsModifyResponse, _ index: Int, file: StaticString = #filePath, line: UInt = #line) throws -> WireRecord {
        guard index < response.saveResults.count else {
            XCTFail("no save \(index)", file: file, line: line)
            throw WireError(.internalError, "no save \(index)")
        }
        switch response.saveResults[index].result {
        case .success(let record): return record
        case .failure(let error):
            XCTFail("save \(index) failed: \(error.code) \(error.message)", file: file, line: line)
            throw error
        }
    }

    /// A reference to `name` of `zone`, as the server sets `share`.
    func reference(_ name: String, zone: WireZoneID? = nil) -> WireReference {
        WireReference(recordID: WireRecordID(recordName: name, zoneID: zone ?? party), action: .none)
    }

    /// Shares `root` with a new share `shareName`, saving the root (created, or over its stored
    /// version) in the same request; both must succeed.
    @discardableResult
    func shareRoot(_ root: String, as shareName: String = "share", participants: [WireShareParticipant] = [], publicPermission: WireParticipantPermission = .none) async throws -> (root: WireRecord, share: WireRecord) {
        let existing = try await fetch(root)
        let response = try await modify([item(root, share: shareName, tag: existing?.changeTag), share(shareName, publicPermission: publicPermission, participants: participants)])
        return (try saved(response, 0), try saved(response, response.saveResults.count - 1))
    }
}
