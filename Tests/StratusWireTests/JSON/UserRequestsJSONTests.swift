import Foundation
@testable import StratusWire
import XCTest

/// The JSON of the user endpoints (`users/current`, `users/discover`,
/// `users/lookup/contacts`), account status and application permissions (Stratus extensions),
/// and `session/open` (a Stratus extension carrying CloudKit Web Services' `ckWebAuthToken`).
final class UserRequestsJSONTests: XCTestCase {
    private let context = WireRequestContext(containerIdentifier: "iCloud.com.example.clowns", database: .public, deviceID: "device-7", sessionToken: "session-9")

    private func roundTrip<Value: Codable & Equatable>(_ value: Value, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try WireJSON.decode(Value.self, from: try WireJSON.encode(value)), value, file: file, line: line)
    }

    private func roundTripRequest<Request: Codable & Equatable>(_ request: Request, file: StaticString = #filePath, line: UInt = #line) throws {
        let text = try json(request)
        for part in ["iCloud.com.example.clowns", "device-7", "session-9"] {
            XCTAssertFalse(text.contains(part), "the context is not in the body: \(text)", file: file, line: line)
        }
        XCTAssertEqual(try WireJSON.decode(Request.self, from: Data(text.utf8), context: context), request, file: file, line: line)
    }

    private let john = WireUserIdentity(
        userRecordName: "_0123456789abcdef0123456789abcdef",
        lookupInfo: WireUserLookupInfo(emailAddress: "john@example.com"),
        nameComponents: WireNameComponents(namePrefix: "Dr.", givenName: "John", familyName: "Appleseed", nickname: "J"),
        contactIdentifiers: ["contact-1", "contact-2"]
    )

    // MARK: - Account status and current user

    func testAccountStatusesAreNamedAsAStratusExtension() throws {
        let names: [(WireAccountStatus, String)] = [
            (.couldNotDetermine, "COULD_NOT_DETERMINE"), (.available, "AVAILABLE"), (.restricted, "RESTRICTED"),
            (.noAccount, "NO_ACCOUNT"), (.temporarilyUnavailable, "TEMPORARILY_UNAVAILABLE"),
        ]
        XCTAssertEqual(names.map(\.0), WireAccountStatus.allCases)
        for (status, name) in names {
            XCTAssertEqual(try json(status), "\"\(name)\"")
            try roundTrip(status)
        }
        let unknown = decodeError(WireAccountStatus.self, #""SLEEPING""#)
        XCTAssertEqual(unknown?.code, .invalidArguments)
        XCTAssertTrue(unknown?.message.contains("SLEEPING") == true, unknown?.message ?? "")
        XCTAssertEqual(decodeError(WireAccountStatus.self, "1")?.code, .invalidArguments, "not the raw value")
    }

    func testTheCurrentUserIsCloudKitWebServicesUsersCurrent() throws {
        let response = WireCurrentUserResponse(userRecordName: "_0123456789abcdef0123456789abcdef")
        XCTAssertEqual(try json(response), #"{"userRecordName":"_0123456789abcdef0123456789abcdef"}"#)
        try roundTrip(response)
        XCTAssertEqual(try WireJSON.decode(WireCurrentUserResponse.self, from: Data(#"{"userRecordName":"_d1ce","firstName":"Mei","lastName":"Chen"}"#.utf8)).userRecordName, "_d1ce")
        assertInvalid(decodeError(WireCurrentUserResponse.self, #"{"firstName":"Mei"}"#), naming: "userRecordName")
        assertInvalid(decodeError(WireCurrentUserResponse.self, #"{"userRecordName":null}"#), naming: "userRecordName")
    }

    // MARK: - users/discover

    func testAUserLookupIsCloudKitWebServicesUsersDiscover() throws {
        let request = WireUsersLookupRequest(context: context, ids: [
            WireUserLookupInfo(emailAddress: "john@example.com"), WireUserLookupInfo(phoneNumber: "+15555550100"), WireUserLookupInfo(userRecordID: WireRecordID(recordName: "_d1ce")),
        ])
        XCTAssertEqual(try json(request), #"{"lookupInfos":[{"emailAddress":"john@example.com"},{"phoneNumber":"+15555550100"},{"userRecordName":"_d1ce"}]}"#)
        try roundTripRequest(request)
        try roundTripRequest(WireUsersLookupRequest(context: context, ids: []))
        try roundTripRequest(WireUsersLookupRequest(context: context, ids: [WireUserLookupInfo(), WireUserLookupInfo(emailAddress: "a@b.c", phoneNumber: "1")]))
        assertInvalid(decodeError(WireUsersLookupRequest.self, "{}", context: context), naming: "lookupInfos")
        assertInvalid(decodeError(WireUsersLookupRequest.self, #"{"lookupInfos":[{"emailAddress":3}]}"#, context: context), naming: "lookupInfos[0].emailAddress")
    }

    func testAUserLookupResponseKeepsEachUserInPlaceAndNoUserAsNotFound() throws {
        let response = WireUsersLookupResponse(results: [nil, john, nil])
        XCTAssertEqual(try json(WireUsersLookupResponse(results: [nil])), #"{"users":[{"ckErrorCode":11,"reason":"no discoverable user matches the lookup info","serverErrorCode":"NOT_FOUND"}]}"#)
        try roundTrip(response)
        try roundTrip(WireUsersLookupResponse(results: []))
        try roundTrip(WireUsersLookupResponse(results: [WireUserIdentity(userRecordName: nil, lookupInfo: nil, nameComponents: nil, hasiCloudAccount: false)]))
        let fromApple = try WireJSON.decode(WireUsersLookupResponse.self, from: Data("""
        {"users":[{"userRecordName":"_d1ce","lookupInfo":{"emailAddress":"mei@example.com"},"nameComponents":{"givenName":"Mei","familyName":"Chen"}},
                  null,{"serverErrorCode":"NOT_FOUND","reason":"no user"}]}
        """.utf8))
        XCTAssertEqual(fromApple.results, [
            WireUserIdentity(userRecordName: "_d1ce", lookupInfo: WireUserLookupInfo(emailAddress: "mei@example.com"), nameComponents: WireNameComponents(givenName: "Mei", familyName: "Chen")),
            nil, nil,
        ])
        assertInvalid(decodeError(WireUsersLookupResponse.self, #"{"users":[{"serverErrorCode":"ACCESS_DENIED","reason":"no"}]}"#), naming: "users[0]")
        assertInvalid(decodeError(WireUsersLookupResponse.self, #"{"users":[{"userRecordName":7}]}"#), naming: "users[0].userRecordName")
        assertInvalid(decodeError(WireUsersLookupResponse.self, #"{"users":[3]}"#), naming: "users[0]")
        assertInvalid(decodeError(WireUsersLookupResponse.self, #"{"results":[]}"#), naming: "users")
    }

    func testContactsAreCloudKitWebServicesUsers() throws {
        let response = WireUsersContactsResponse(identities: [john])
        XCTAssertEqual(try json(WireUsersContactsResponse(identities: [WireUserIdentity(userRecordName: "_d1ce", lookupInfo: nil, nameComponents: nil)])), #"{"users":[{"hasiCloudAccount":true,"userRecordName":"_d1ce"}]}"#)
        try roundTrip(response)
        try roundTrip(WireUsersContactsResponse(identities: []))
        assertInvalid(decodeError(WireUsersContactsResponse.self, #"{"users":[{"nameComponents":[]}]}"#), naming: "users[0].nameComponents")
    }

    // MARK: - Application permissions

    func testApplicationPermissionsAreNamedAndComeBackExactly() throws {
        let request = WireApplicationPermissionRequest(context: context, permission: .userDiscoverability)
        XCTAssertEqual(try json(request), #"{"permission":["USER_DISCOVERABILITY"]}"#)
        try roundTripRequest(request)
        try roundTripRequest(WireApplicationPermissionRequest(context: context, permission: []))
        let unknownBits = WireApplicationPermissionRequest(context: context, permission: WireApplicationPermissions(rawValue: 1 | 4 | 1 << 63))
        XCTAssertEqual(try json(unknownBits), #"{"permission":["USER_DISCOVERABILITY",4,9223372036854775808]}"#, "bits without a name go as their numbers")
        try roundTripRequest(unknownBits)
        assertInvalid(decodeError(WireApplicationPermissionRequest.self, #"{"permission":["TELEPATHY"]}"#, context: context), naming: "permission[0]")
        assertInvalid(decodeError(WireApplicationPermissionRequest.self, #"{"permission":[-1]}"#, context: context), naming: "permission[0]")
        assertInvalid(decodeError(WireApplicationPermissionRequest.self, #"{"permission":[99999999999999999999999]}"#, context: context), naming: "permission[0]")
        assertInvalid(decodeError(WireApplicationPermissionRequest.self, #"{"permission":"USER_DISCOVERABILITY"}"#, context: context), naming: "permission")
        assertInvalid(decodeError(WireApplicationPermissionRequest.self, "{}", context: context), naming: "permission")
    }

    func testApplicationPermissionStatusesAreNamedAsAStratusExtension() throws {
        let names: [(WireApplicationPermissionStatus, String)] = [(.initialState, "INITIAL_STATE"), (.couldNotComplete, "COULD_NOT_COMPLETE"), (.denied, "DENIED"), (.granted, "GRANTED")]
        XCTAssertEqual(names.map(\.0), WireApplicationPermissionStatus.allCases)
        for (status, name) in names {
            XCTAssertEqual(try json(status), "\"\(name)\"")
            try roundTrip(status)
        }
        XCTAssertEqual(decodeError(WireApplicationPermissionStatus.self, #""MAYBE""#)?.code, .invalidArguments)
    }

    // MARK: - session/open

    func testASessionIsAStratusExtensionCarryingCloudKitWebServicesAuthToken() throws {
        XCTAssertEqual(try json(WireSessionRequest(containerIdentifier: "iCloud.com.example.clowns", deviceID: "device-7", account: "john")), #"{"account":"john","containerIdentifier":"iCloud.com.example.clowns","deviceID":"device-7"}"#)
        XCTAssertEqual(try json(WireSessionRequest(containerIdentifier: "iCloud.com.example.clowns", account: nil)), #"{"containerIdentifier":"iCloud.com.example.clowns"}"#)
        XCTAssertEqual(try json(WireSession(deviceID: "device-7", sessionToken: "tok+/=")), #"{"ckWebAuthToken":"tok+/=","deviceID":"device-7"}"#)
        for request in [
            WireSessionRequest(containerIdentifier: "iCloud.com.example.clowns", deviceID: "device-7", account: "john"),
            WireSessionRequest(containerIdentifier: "", deviceID: nil, account: nil),
            WireSessionRequest(containerIdentifier: "c", deviceID: "", account: ""),
        ] {
            try roundTrip(request)
        }
        try roundTrip(WireSession(deviceID: "device-7", sessionToken: "s"))
        try roundTrip(WireSession(deviceID: "device-7", sessionToken: nil))
        assertInvalid(decodeError(WireSessionRequest.self, #"{"account":"john"}"#), naming: "containerIdentifier")
        assertInvalid(decodeError(WireSessionRequest.self, #"{"containerIdentifier":"c","account":false}"#), naming: "account")
        assertInvalid(decodeError(WireSession.self, #"{"ckWebAuthToken":"t"}"#), naming: "deviceID")
        assertInvalid(decodeError(WireSession.self, #"{"deviceID":"d","ckWebAuthToken":1}"#), naming: "ckWebAuthToken")
    }
}
