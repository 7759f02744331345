import Foundation

/// A query as CloudKit Web Services writes it: `{"recordType": …, "filterBy": [filter…],
/// "sortBy": [sortDescriptor…]}`, both lists always written (empty for no filter, no order).
///
/// The predicate travels as `filterBy` whenever CKWS's filters give it back exactly
/// (``WirePredicate/isExpressibleAsCloudKitWebServicesFilters``): `TRUEPREDICATE` is no filter,
/// an `AND` of two or more CKWS filters is its parts, any other CKWS filter is itself. Any other
/// predicate (`FALSEPREDICATE`, a `NOT` of something no `NOT_…` comparator says, `BETWEEN`,
/// `now()`, an `AND` inside an `AND`, …) travels, instead of `filterBy`, as the Stratus extension
/// `stratusPredicate`: the whole predicate as one filter tree (see ``WirePredicate``). So each
/// predicate has one encoding. Decoding prefers `stratusPredicate` when present; without either
/// key the predicate is `TRUEPREDICATE`, as in CKWS.
extension WireQuery: Codable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONQueryKeys.self)
        try container.encode(recordType, forKey: .recordType)
        try JSONPredicate.encodeFilters(predicate, into: &container)
        try container.encode(sortDescriptors, forKey: .sortBy)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: JSONQueryKeys.self)
        self.init(
            recordType: try container.decode(String.self, forKey: .recordType),
            predicate: try JSONPredicate.decodeFilters(from: container) ?? .constant(true),
            sortDescriptors: try container.decodeIfPresent([WireSortDescriptor].self, forKey: .sortBy) ?? []
        )
    }
}

/// A sort descriptor as CKWS writes it: `{fieldName | systemFieldName, ascending,
/// relativeLocation}`, `ascending` always written (CKWS's default is `true`), and
/// `relativeLocation` a field value holding a `LOCATION` (`CKLocationSortDescriptor`'s point).
extension WireSortDescriptor: Codable {
    private enum CodingKeys: String, CodingKey {
        case ascending, relativeLocation
    }

    public func encode(to encoder: any Encoder) throws {
        try field.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ascending, forKey: .ascending)
        try container.encodeIfPresent(relativeLocation.map(WireFieldValue.location), forKey: .relativeLocation)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var relativeLocation: WireLocation?
        switch try container.decodeIfPresent(WireFieldValue.self, forKey: .relativeLocation) {
        case nil: break
        case .location(let location)?: relativeLocation = location
        case let other?:
            throw DecodingError.invalid(CodingKeys.relativeLocation, in: container, "a relative location is a LOCATION, not \(WireFieldValue.typeName(of: other.kind))")
        }
        self.init(
            field: try WireQueryField(from: decoder),
            ascending: try container.decodeIfPresent(Bool.self, forKey: .ascending) ?? true,
            relativeLocation: relativeLocation
        )
    }
}
