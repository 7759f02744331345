import Foundation
@testable import StratusWire
import XCTest

/// The JSON of sharing: share participants lookups (a Stratus extension), `records/resolve`
/// with CloudKit Web Services' share result dictionary, and `records/accept`; share URLs cross
/// as their short GUIDs (CKWS) and exactly (`shareURL`).
final class ShareRequestsJSONTests: XCTestCase {
    private let context = WireRequestContext(containerIdentifier: "iCloud.com.example.clowns", database: .shared, deviceID: "device-7", sessionToken: "session-9")
    private let party = WireZoneID(zoneName: "Party", ownerName: "_abc")
    private let partyJSON = #"{"ownerRecordName":"_abc","zoneName":"Party"}"#
    private let url = "https://www.icloud.com/share/0abcDEF#Clowns"

    private func roundTrip<Request: Codable>(_ request: Request, file: StaticString = #filePath, line: UInt = #line) throws -> Request {
        let text = try json(request)
        for part in ["iCloud.com.example.clowns", "device-7", "session-9"] {
            XCTAssertFalse(text.contains(part), "the context is not in the body: \(text)", file: file, line: line)
        }
        return try WireJSON.decode(Request.self, from: Data(text.utf8), context: context)
    }

    private let owner = WireUserIdentity(
        userRecordName: "_abc", lookupInfo: WireUserLookupInfo(emailAddress: "owner@example.com"), nameComponents: WireNameComponents(givenName: "Olga")
    )

    private func share() -> WireRecord {
        var share = WireRecord(recordID: WireRecordID(recordName: "share-1", zoneID: party), recordType: "cloudkit.share", changeTag: "4")
        share.shareInfo = WireShareInfo(publicPermission: .readOnly, url: url, participants: [
            WireShareParticipant(participantID: "p0", identity: owner, role: .owner, acceptanceStatus: .accepted, permission: .readWrite),
            WireShareParticipant(
                participantID: "p1", identity: WireUserIdentity(userRecordName: "__defaultOwner__", lookupInfo: nil, nameComponents: nil),
                role: .privateUser, acceptanceStatus: .pending, permission: .readOnly
            ),
        ])
        return share
    }

    private func metadata(root: Bool = true, role: WireParticipantRole = .privateUser) -> WireShareMetadata {
        WireShareMetadata(
            containerIdentifier: "iCloud.com.example.clowns",
            share: share(),
            hierarchicalRootRecordID: root ? WireRecordID(recordName: "party", zoneID: party) : nil,
            rootRecord: root ? WireRecord(recordID: WireRecordID(recordName: "party", zoneID: party), recordType: "Party", changeTag: "2", fields: ["title": .string("Clowns")]) : nil,
            participantRole: role,
            participantStatus: .pending,
            participantPermission: .readOnly,
            ownerIdentity: owner
        )
    }

    // MARK: - Share URLs

    func testAShareURLCrossesAsItsShortGUIDAndExactly() {
        XCTAssertEqual(JSONShareURLs.shortGUID(of: url), "0abcDEF")
        XCTAssertEqual(JSONShareURLs.shortGUID(of: "https://www.icloud.com/share/0abcDEF/?x=1"), "0abcDEF")
        XCTAssertEqual(JSONShareURLs.shortGUID(of: "0abcDEF"), "0abcDEF")
        XCTAssertEqual(JSONShareURLs.url(shortGUID: "0abcDEF"), "https://www.icloud.com/share/0abcDEF")
        XCTAssertEqual(JSONShareURLs.url(shortGUID: "https://stratus.invalid/s/1"), "https://stratus.invalid/s/1")
    }

    // MARK: - Share participants

    func testAParticipantsLookupIsShapedLikeUsersDiscoverAndComesBackExactly() throws {
        let request = WireShareParticipantsLookupRequest(context: context, ids: [WireUserLookupInfo(emailAddress: "a@example.com"), WireUserLookupInfo(phoneNumber: "+15555550100")])
        XCTAssertEqual(try json(request), #"{"lookupInfos":[{"emailAddress":"a@example.com"},{"phoneNumber":"+15555550100"}]}"#)
        XCTAssertEqual(try roundTrip(request), request)
        XCTAssertEqual(try roundTrip(WireShareParticipantsLookupRequest(context: context, ids: [])).ids, [])
        assertInvalid(decodeError(WireShareParticipantsLookupRequest.self, #"{"lookupInfos":{}}"#, context: context), naming: "lookupInfos")

        let participant = WireShareParticipant(
            participantID: "p9", identity: WireUserIdentity(userRecordName: nil, lookupInfo: WireUserLookupInfo(emailAddress: "a@example.com"), nameComponents: nil, hasiCloudAccount: false),
            role: .privateUser, acceptanceStatus: .pending, permission: .readOnly
        )
        let response = WireShareParticipantsLookupResponse(results: [
            WireItemResult(id: WireUserLookupInfo(emailAddress: "a@example.com"), result: .success(participant)),
            WireItemResult(id: WireUserLookupInfo(emailAddress: ""), result: .failure(WireError(.invalidArguments, "an empty email address names no one"))),
        ])
        XCTAssertEqual(try json(response), """
        {"participants":[{"acceptanceStatus":"INVITED","lookupInfo":{"emailAddress":"a@example.com"},"participantID":"p9","permission":"READ_ONLY","type":"USER",\
        "userIdentity":{"hasiCloudAccount":false,"lookupInfo":{"emailAddress":"a@example.com"}}},\
        {"ckErrorCode":12,"lookupInfo":{"emailAddress":""},"reason":"an empty email address names no one","serverErrorCode":"BAD_REQUEST"}]}
        """)
        assertSameResults(try WireJSON.decode(WireShareParticipantsLookupResponse.self, from: try WireJSON.encode(response)).results, response.results)
        assertInvalid(decodeError(WireShareParticipantsLookupResponse.self, #"{"participants":[{"permission":"READ_ONLY"}]}"#), naming: "participants[0].lookupInfo")
        assertInvalid(decodeError(WireShareParticipantsLookupResponse.self, #"{"participants":[{"lookupInfo":{},"userIdentity":{},"type":"ADMINISTRATOR"}]}"#), naming: "participants[0].type")
    }

    // MARK: - records/resolve

    func testAShareMetadataLookupIsCloudKitWebServicesRecordsResolve() throws {
        let request = WireShareMetadataLookupRequest(context: context, shareURLs: [url], shouldFetchRootRecord: true, rootRecordDesiredKeys: ["title"])
        XCTAssertEqual(try json(request), """
        {"rootRecordDesiredKeys":["title"],"shortGUIDs":[{"rootRecordDesiredKeys":["title"],"shareURL":"\(url)","shouldFetchRootRecord":true,"value":"0abcDEF"}],\
        "shouldFetchRootRecord":true}
        """)
        for request in [
            request,
            WireShareMetadataLookupRequest(context: context, shareURLs: [url, "not a url", ""], shouldFetchRootRecord: false),
            WireShareMetadataLookupRequest(context: context, shareURLs: [], shouldFetchRootRecord: true, rootRecordDesiredKeys: []),
            WireShareMetadataLookupRequest(context: context, shareURLs: [url, url], shouldFetchRootRecord: true, rootRecordDesiredKeys: nil),
        ] {
            let back = try roundTrip(request)
            XCTAssertEqual(back, request)
        }
    }

    func testAShareMetadataLookupWrittenForCloudKitWebServicesDecodes() throws {
        let text = #"{"shortGUIDs":[{"value":"0abcDEF","shouldFetchRootRecord":true,"rootRecordDesiredKeys":["title"]},{"value":"0xyz","shouldFetchRootRecord":true,"rootRecordDesiredKeys":["title"]}]}"#
        let request = try WireJSON.decode(WireShareMetadataLookupRequest.self, from: Data(text.utf8), context: context)
        XCTAssertEqual(request.shareURLs, ["https://www.icloud.com/share/0abcDEF", "https://www.icloud.com/share/0xyz"])
        XCTAssertTrue(request.shouldFetchRootRecord)
        XCTAssertEqual(request.rootRecordDesiredKeys, ["title"])
        XCTAssertEqual(request.context, context)
    }

    func testAMalformedShareMetadataLookupIsInvalidArgumentsNamingTheKey() {
        assertInvalid(decodeError(WireShareMetadataLookupRequest.self, "{}", context: context), naming: "shortGUIDs")
        assertInvalid(decodeError(WireShareMetadataLookupRequest.self, #"{"shortGUIDs":[{"shouldFetchRootRecord":true}]}"#, context: context), naming: "shortGUIDs[0].value")
        assertInvalid(decodeError(WireShareMetadataLookupRequest.self, #"{"shortGUIDs":[{"value":5}]}"#, context: context), naming: "shortGUIDs[0].value")
        assertInvalid(decodeError(WireShareMetadataLookupRequest.self, #"{"shortGUIDs":[{"value":"a","shouldFetchRootRecord":true},{"value":"b","shouldFetchRootRecord":false}]}"#, context: context), naming: "shortGUIDs[1].shouldFetchRootRecord")
        assertInvalid(decodeError(WireShareMetadataLookupRequest.self, #"{"shortGUIDs":[{"value":"a"},{"value":"b","rootRecordDesiredKeys":[]}]}"#, context: context), naming: "shortGUIDs[1].rootRecordDesiredKeys")
        assertInvalid(decodeError(WireShareMetadataLookupRequest.self, #"{"shortGUIDs":[{"value":"a","shouldFetchRootRecord":"yes"}]}"#, context: context), naming: "shortGUIDs[0].shouldFetchRootRecord")
    }

    func testShareMetadataIsCloudKitWebServicesShareResult() throws {
        let text = try json(metadata())
        for expected in [
            #""containerIdentifier":"iCloud.com.example.clowns""#, #""databaseScope":"SHARED""#, #""zoneID":\#(partyJSON)"#,
            #""rootRecordName":"party""#, #""participantType":"USER""#, #""participantStatus":"INVITED""#, #""participantPermission":"READ_ONLY""#,
            #""ownerIdentity":{"hasiCloudAccount":true,"lookupInfo":{"emailAddress":"owner@example.com"},"nameComponents":{"givenName":"Olga"},"userRecordName":"_abc"}"#,
            #""share":{"fields":{},"participants":["#, #""rootRecord":{"fields":{"title":{"type":"STRING","value":"Clowns"}}"#,
        ] {
            XCTAssertTrue(text.contains(expected), "\(expected) not in \(text)")
        }
        XCTAssertTrue(try json(metadata(role: .owner)).contains(#""databaseScope":"PRIVATE""#))
        var elsewhere = metadata()
        elsewhere.hierarchicalRootRecordID = WireRecordID(recordName: "root", zoneID: .defaultZone)
        for value in [metadata(), metadata(root: false), metadata(role: .owner), elsewhere] {
            XCTAssertEqual(try WireJSON.decode(WireShareMetadata.self, from: try WireJSON.encode(value)), value)
        }
    }

    func testAShareMetadataResponseIsResultsWithTheShortGUIDBeside() throws {
        let response = WireShareMetadataLookupResponse(results: [
            WireItemResult(id: url, result: .success(metadata(root: false))),
            WireItemResult(id: "https://www.icloud.com/share/0nope", result: .failure(WireError(.unknownItem, "no share"))),
            WireItemResult(id: "odd", result: .failure(WireError(.participantMayNeedVerification, "verify"))),
            WireItemResult(id: url, result: .success(metadata())),
        ])
        var plain = WireRecord(recordID: WireRecordID(recordName: "share-1", zoneID: party), recordType: "cloudkit.share", changeTag: "4")
        plain.shareInfo = WireShareInfo(publicPermission: .none, url: url)
        let pinned = WireShareMetadata(
            containerIdentifier: "c", share: plain, hierarchicalRootRecordID: WireRecordID(recordName: "party", zoneID: party),
            participantRole: .privateUser, participantStatus: .pending, participantPermission: .readOnly,
            ownerIdentity: WireUserIdentity(userRecordName: "_abc", lookupInfo: nil, nameComponents: nil)
        )
        XCTAssertEqual(try json(WireShareMetadataLookupResponse(results: [WireItemResult(id: url, result: .success(pinned))])), """
        {"results":[{"containerIdentifier":"c","databaseScope":"SHARED","ownerIdentity":{"hasiCloudAccount":true,"userRecordName":"_abc"},\
        "participantPermission":"READ_ONLY","participantStatus":"INVITED","participantType":"USER","rootRecordName":"party",\
        "share":{"fields":{},"participants":[],"publicPermission":"NONE","recordChangeTag":"4","recordName":"share-1","recordType":"cloudkit.share","url":"\(url)","zoneID":\(partyJSON)},\
        "shareURL":"\(url)","shortGUID":"0abcDEF","zoneID":\(partyJSON)}]}
        """)
        let text = try json(response)
        XCTAssertTrue(text.contains(#"{"ckErrorCode":11,"reason":"no share","serverErrorCode":"NOT_FOUND","shareURL":"https://www.icloud.com/share/0nope","shortGUID":"0nope"}"#), text)
        XCTAssertTrue(text.contains(#""shareURL":"\#(url)","shortGUID":"0abcDEF""#), text)
        assertSameResults(try WireJSON.decode(WireShareMetadataLookupResponse.self, from: try WireJSON.encode(response)).results, response.results)
    }

    func testAShareMetadataResponseFromCloudKitWebServicesDecodes() throws {
        let text = """
        {"results":[
          {"containerIdentifier":"iCloud.com.example.clowns","databaseScope":"SHARED","environment":"development",
           "zoneID":{"zoneName":"Party","ownerRecordName":"_abc"},"rootRecordName":"party","shortGUID":"0abcDEF",
           "share":{"recordName":"share-1","recordType":"cloudkit.share","recordChangeTag":"4","fields":{},"publicPermission":"READ_ONLY",
                    "participants":[{"userIdentity":{"userRecordName":"_abc","lookupInfo":{"emailAddress":"owner@example.com"}},"permission":"READ_WRITE","type":"OWNER","acceptanceStatus":"ACCEPTED"}]},
           "ownerIdentity":{"userRecordName":"_abc","nameComponents":{"givenName":"Olga"}},
           "participantType":"USER","participantStatus":"INVITED","participantPermission":"READ_ONLY",
           "potentialMatchList":[{"participantId":"x","contactInformation":{"emailAddress":"me@example.com"}}],"webpageURL":"https://www.icloud.com/share/0abcDEF"},
          {"shortGUID":"0gone","reason":"share not found","serverErrorCode":"NOT_FOUND","retryAfter":null}]}
        """
        let response = try WireJSON.decode(WireShareMetadataLookupResponse.self, from: Data(text.utf8))
        XCTAssertEqual(response.results.map(\.id), ["https://www.icloud.com/share/0abcDEF", "https://www.icloud.com/share/0gone"])
        let found = try response.results[0].result.get()
        XCTAssertEqual(found.containerIdentifier, "iCloud.com.example.clowns")
        XCTAssertEqual(found.hierarchicalRootRecordID, WireRecordID(recordName: "party", zoneID: party))
        XCTAssertNil(found.rootRecord)
        XCTAssertEqual(found.share.recordID, WireRecordID(recordName: "share-1", zoneID: party), "in the result's zone")
        XCTAssertEqual(found.share.shareInfo?.participants.first?.role, .owner)
        XCTAssertEqual(found.participantRole, .privateUser)
        XCTAssertEqual(found.participantStatus, .pending)
        XCTAssertEqual(found.participantPermission, .readOnly)
        XCTAssertEqual(found.ownerIdentity.nameComponents?.givenName, "Olga")
        XCTAssertEqual(response.results[1].result.map { _ in true }, .failure(WireError(.unknownItem, "share not found")))
        assertInvalid(decodeError(WireShareMetadataLookupResponse.self, #"{"results":[{"reason":"r","serverErrorCode":"NOT_FOUND"}]}"#), naming: "results[0].shortGUID")
        assertInvalid(decodeError(WireShareMetadataLookupResponse.self, #"{"results":[{"shortGUID":"a","containerIdentifier":"c","ownerIdentity":{}}]}"#), naming: "results[0].share")
        assertInvalid(decodeError(WireShareMetadataLookupResponse.self, #"{"results":[{"shortGUID":"a","containerIdentifier":"c","ownerIdentity":{},"share":{"recordName":"s","recordType":"cloudkit.share"},"participantStatus":"MAYBE"}]}"#), naming: "results[0].participantStatus")
    }

    // MARK: - records/accept

    func testAnAcceptIsCloudKitWebServicesRecordsAccept() throws {
        let request = WireAcceptSharesRequest(context: context, ids: [url])
        XCTAssertEqual(try json(request), #"{"shortGUIDs":[{"shareURL":"\#(url)","shouldFetchRootRecord":false,"value":"0abcDEF"}]}"#)
        for request in [request, WireAcceptSharesRequest(context: context, ids: []), WireAcceptSharesRequest(context: context, ids: ["", "x/", url])] {
            XCTAssertEqual(try roundTrip(request), request)
        }
        let fromApple = try WireJSON.decode(WireAcceptSharesRequest.self, from: Data(#"{"shortGUIDs":[{"value":"0abcDEF","shouldFetchRootRecord":false}]}"#.utf8), context: context)
        XCTAssertEqual(fromApple.ids, ["https://www.icloud.com/share/0abcDEF"])
        let accepted = try WireJSON.decode(WireAcceptSharesResponse.self, from: Data(#"{"results":[{"shortGUID":"0abcDEF","zoneID":{"zoneName":"Party","ownerRecordName":"_abc"},"share":{"recordName":"s","recordType":"cloudkit.share","publicPermission":"NONE"}}]}"#.utf8))
        XCTAssertEqual(accepted.results.map(\.id), ["https://www.icloud.com/share/0abcDEF"])
        XCTAssertEqual(try accepted.results[0].result.get().recordID, WireRecordID(recordName: "s", zoneID: party), "in the result's zone")
        assertInvalid(decodeError(WireAcceptSharesRequest.self, #"{"shortGUIDs":[{}]}"#, context: context), naming: "shortGUIDs[0].value")
        assertInvalid(decodeError(WireAcceptSharesRequest.self, #"{"shortGUIDs":[{"value":"a","shareURL":false}]}"#, context: context), naming: "shortGUIDs[0].shareURL")
    }

    func testAnAcceptResponseHoldsEachShareInAShareResult() throws {
        let response = WireAcceptSharesResponse(results: [
            WireItemResult(id: url, result: .success(share())),
            WireItemResult(id: "https://www.icloud.com/share/0full", result: .failure(WireError(.tooManyParticipants, "full"))),
        ])
        var plain = WireRecord(recordID: WireRecordID(recordName: "share-1", zoneID: party), recordType: "cloudkit.share", changeTag: "4")
        plain.shareInfo = WireShareInfo(publicPermission: .none, url: url)
        XCTAssertEqual(try json(WireAcceptSharesResponse(results: [WireItemResult(id: url, result: .success(plain)), response.results[1]])), """
        {"results":[{"share":{"fields":{},"participants":[],"publicPermission":"NONE","recordChangeTag":"4","recordName":"share-1","recordType":"cloudkit.share",\
        "url":"\(url)","zoneID":\(partyJSON)},"shareURL":"\(url)","shortGUID":"0abcDEF","zoneID":\(partyJSON)},\
        {"ckErrorCode":\(CKErrorCode.tooManyParticipants.rawValue),"reason":"full","serverErrorCode":"BAD_REQUEST","shareURL":"https://www.icloud.com/share/0full","shortGUID":"0full"}]}
        """)
        assertSameResults(try WireJSON.decode(WireAcceptSharesResponse.self, from: try WireJSON.encode(response)).results, response.results)
        assertInvalid(decodeError(WireAcceptSharesResponse.self, #"{"results":[{"shortGUID":"a"}]}"#), naming: "results[0].share")
    }
}
