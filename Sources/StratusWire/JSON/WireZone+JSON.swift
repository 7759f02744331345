import Foundation

/// A zone as CloudKit Web Services writes it: `{zoneID, atomic}`, plus, as Stratus extensions,
/// `capabilities` (`FETCH_CHANGES`, `ATOMIC`, `SHARING`, `ZONE_WIDE_SHARING`) and the zone-wide
/// `share`. Decoding a CKWS zone without `capabilities` takes `atomic` alone.
extension WireZone: Codable {
    private enum CodingKeys: String, CodingKey {
        case zoneID, atomic, capabilities, share
    }

    private static let capabilityNames: [(Capabilities, String)] = [
        (.fetchChanges, "FETCH_CHANGES"), (.atomic, "ATOMIC"), (.sharing, "SHARING"), (.zoneWideSharing, "ZONE_WIDE_SHARING"),
    ]

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(zoneID, forKey: .zoneID)
        try container.encode(capabilities.contains(.atomic), forKey: .atomic)
        try container.encode(Self.capabilityNames.filter { capabilities.contains($0.0) }.map(\.1), forKey: .capabilities)
        try container.encodeIfPresent(share, forKey: .share)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var capabilities: Capabilities = []
        if let names = try container.decodeIfPresent([String].self, forKey: .capabilities) {
            for name in names {
                guard let capability = Self.capabilityNames.first(where: { $0.1 == name })?.0 else {
                    throw DecodingError.invalid(CodingKeys.capabilities, in: container, "'\(name)' is not a zone capability")
                }
                capabilities.insert(capability)
            }
        } else if try container.decodeIfPresent(Bool.self, forKey: .atomic) == true {
            capabilities = .atomic
        }
        self.init(
            zoneID: try container.decode(WireZoneID.self, forKey: .zoneID),
            capabilities: capabilities,
            share: try container.decodeIfPresent(WireReference.self, forKey: .share)
        )
    }
}
