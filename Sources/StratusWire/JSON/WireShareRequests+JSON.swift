import Foundation

/// The share participants lookup, a Stratus extension shaped like CloudKit Web Services'
/// `users/discover`, answered in CKWS's per-item style.
extension WireShareParticipantsEndpoint: WireJSONItemsRequestEndpoint, WireJSONItemsResponseEndpoint {
    /// The request: `{"lookupInfos": [{emailAddress | phoneNumber | userRecordName}, …]}`.
    public static let itemsRequestJSON = JSONDictionary(WireShareParticipantsLookupRequest.init, .context(\.context), .required("lookupInfos", \.ids)).coder

    /// The answer: `{"participants": […]}`, one element per lookup info in order, the
    /// participant dictionary or an error dictionary, with the lookup info beside under
    /// `lookupInfo` (``JSONItems``).
    public static let itemsResponseJSON = JSONDictionary(
        WireShareParticipantsLookupResponse.init, .results("participants", \.results, id: .keyed("lookupInfo"), value: .value)
    ).coder
}

/// `records/resolve` as CKWS shapes it: `{"shortGUIDs": [{"value": …, "shouldFetchRootRecord":
/// …, "rootRecordDesiredKeys": […]}]}`, one element per share URL (see ``JSONShareURLs`` for how
/// a URL crosses), with `shouldFetchRootRecord` and `rootRecordDesiredKeys` (absent: every
/// field) on each. The same two keys at the top level, a Stratus extension, carry them for a
/// request with no URLs; decoding takes each element's (the top level's where an element has
/// none), and they must be the same on every element: `invalidArguments` naming the key when not.
extension WireShareMetadataLookupRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case shortGUIDs, shouldFetchRootRecord, rootRecordDesiredKeys
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var items = container.nestedUnkeyedContainer(forKey: .shortGUIDs)
        for url in shareURLs {
            let itemEncoder = items.superEncoder()
            try JSONShareURLs.encodeShortGUID(url, to: itemEncoder)
            var item = itemEncoder.container(keyedBy: CodingKeys.self)
            try item.encode(shouldFetchRootRecord, forKey: .shouldFetchRootRecord)
            try item.encodeIfPresent(rootRecordDesiredKeys, forKey: .rootRecordDesiredKeys)
        }
        try container.encode(shouldFetchRootRecord, forKey: .shouldFetchRootRecord)
        try container.encodeIfPresent(rootRecordDesiredKeys, forKey: .rootRecordDesiredKeys)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let requestFetch = try container.decodeIfPresent(Bool.self, forKey: .shouldFetchRootRecord) ?? false
        let requestKeys = try container.decodeIfPresent([String].self, forKey: .rootRecordDesiredKeys)
        var items = try container.nestedUnkeyedContainer(forKey: .shortGUIDs)
        var urls: [String] = []
        var fetch = requestFetch
        var keys = requestKeys
        while !items.isAtEnd {
            let itemDecoder = try items.superDecoder()
            let item = try itemDecoder.container(keyedBy: CodingKeys.self)
            let itemFetch = try item.decodeIfPresent(Bool.self, forKey: .shouldFetchRootRecord) ?? requestFetch
            let itemKeys = try item.decodeIfPresent([String].self, forKey: .rootRecordDesiredKeys) ?? requestKeys
            if urls.isEmpty {
                fetch = itemFetch
                keys = itemKeys
            } else if itemFetch != fetch {
                throw DecodingError.invalid(CodingKeys.shouldFetchRootRecord, in: item, "every share of a request must ask the same of its root record")
            } else if itemKeys != keys {
                throw DecodingError.invalid(CodingKeys.rootRecordDesiredKeys, in: item, "every share of a request must ask for the same root record keys")
            }
            urls.append(try JSONShareURLs.decodeShortGUID(from: itemDecoder))
        }
        self.init(context: try decoder.requestContext(), shareURLs: urls, shouldFetchRootRecord: fetch, rootRecordDesiredKeys: keys)
    }
}

/// The answer to `records/resolve` as CKWS writes it.
extension WireShareMetadataEndpoint: WireJSONItemsResponseEndpoint {
    /// `{"results": […]}`, one element per share URL in order, the share result dictionary
    /// (``WireShareMetadata``) or an error dictionary, with the URL beside as `shortGUID` and
    /// `shareURL` (``JSONShareURLs``).
    public static let itemsResponseJSON = JSONDictionary(
        WireShareMetadataLookupResponse.init, .results("results", \.results, id: JSONShareURLs.id, value: .value)
    ).coder
}

/// `records/accept` as CKWS shapes it.
extension WireAcceptSharesEndpoint: WireJSONItemsRequestEndpoint, WireJSONItemsResponseEndpoint {
    /// The request: `{"shortGUIDs": [{"value": …, "shouldFetchRootRecord": false}]}`, one
    /// element per share URL (``JSONShareURLs``).
    public static let itemsRequestJSON = WireJSONCoder<WireAcceptSharesRequest> { request, encoder in
        var items = JSONKey.list(under: "shortGUIDs", of: encoder)
        for url in request.ids {
            let itemEncoder = items.superEncoder()
            try JSONShareURLs.encodeShortGUID(url, to: itemEncoder)
            try JSONKey.encode(false, under: "shouldFetchRootRecord", to: itemEncoder)
        }
    } decode: { decoder in
        var items = try JSONKey.list(under: "shortGUIDs", of: decoder)
        var urls: [String] = []
        while !items.isAtEnd {
            urls.append(try JSONShareURLs.decodeShortGUID(from: try items.superDecoder()))
        }
        return WireAcceptSharesRequest(context: try decoder.requestContext(), ids: urls)
    }

    /// The answer: `{"results": […]}`, one element per share URL in order, a share result
    /// dictionary holding the accepted share's record under `share` (and its `zoneID`, the
    /// zone a `share` without one is in), or an error dictionary, with the URL beside as
    /// `shortGUID` and `shareURL` (``JSONShareURLs``).
    public static let itemsResponseJSON = JSONDictionary(
        WireAcceptSharesResponse.init, .results("results", \.results, id: JSONShareURLs.id, value: acceptedShare)
    ).coder

    /// An accepted share's result dictionary: `{"share": {…}, "zoneID": {…}}`.
    private static let acceptedShare = WireJSONCoder<WireRecord> { share, encoder in
        var result = encoder.container(keyedBy: JSONKey.self)
        try result.encode(share, forKey: JSONKey("share"))
        try result.encode(share.recordID.zoneID, forKey: JSONKey("zoneID"))
    } decode: { decoder in
        let result = try decoder.container(keyedBy: JSONKey.self)
        var share = try result.decode(WireRecord.self, forKey: JSONKey("share"))
        if let zoneID = try result.decodeIfPresent(WireZoneID.self, forKey: JSONKey("zoneID")),
           try !result.nestedContainer(keyedBy: JSONKey.self, forKey: JSONKey("share")).contains(JSONKey("zoneID")) {
            share.recordID.zoneID = zoneID
        }
        return share
    }
}

/// How a share URL crosses. CloudKit Web Services names a share by its short GUID, the last
/// component of the share's URL (`https://www.icloud.com/share/<shortGUID>#<title>`); Stratus
/// requests and responses name it by the whole URL, exactly as the client holds it. Both go
/// out: the short GUID under CKWS's key (`value` in a request's `shortGUIDs`, `shortGUID` beside
/// a result), and the exact URL under the Stratus extension `shareURL`, which wins when read.
/// A short GUID read without `shareURL` is the URL `https://www.icloud.com/share/<shortGUID>`
/// (the form CloudKit and Stratus give shares), or itself when it is already a URL.
enum JSONShareURLs {
    /// The URL a share's short GUID is the last component of.
    static let prefix = "https://www.icloud.com/share/"


    /// The short GUID of the share `url` names: its last path component, without query or
    /// fragment; the whole string when it has none.
    static func shortGUID(of url: String) -> String {
        var path = Substring(url)
        if let fragment = path.firstIndex(of: "#") { path = path[..<fragment] }
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        while path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return String(path) }
        return String(path[path.index(after: slash)...])
    }

    /// The share URL a short GUID read without `shareURL` names.
    static func url(shortGUID: String) -> String {
        shortGUID.contains("://") ? shortGUID : prefix + shortGUID
    }

    /// A request's element: `{"value": <shortGUID>, "shareURL": <url>}`.
    static func encodeShortGUID(_ url: String, to encoder: any Encoder) throws {
        try encode(url, guidKey: "value", to: encoder)
    }

    /// Reads ``encodeShortGUID(_:to:)``.
    static func decodeShortGUID(from decoder: any Decoder) throws -> String {
        try decode(guidKey: "value", from: decoder)
    }

    /// A result's ID keys: `shortGUID` and `shareURL`.
    static let id = WireJSONCoder<String> { url, encoder in
        try encode(url, guidKey: "shortGUID", to: encoder)
    } decode: { decoder in
        try decode(guidKey: "shortGUID", from: decoder)
    }

    /// Writes the URL's short GUID under `guidKey` and the URL itself under `shareURL`.
    private static func encode(_ url: String, guidKey: String, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(shortGUID(of: url), forKey: JSONKey(guidKey))
        try container.encode(url, forKey: JSONKey("shareURL"))
    }

    /// The URL under `shareURL`, or, without it, the one the short GUID under `guidKey` names.
    private static func decode(guidKey: String, from decoder: any Decoder) throws -> String {
        let container = try decoder.container(keyedBy: JSONKey.self)
        if let url = try container.decodeIfPresent(String.self, forKey: JSONKey("shareURL")) { return url }
        return url(shortGUID: try container.decode(String.self, forKey: JSONKey(guidKey)))
    }
}
