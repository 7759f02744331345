import StratusWire

// How a shared zone's records are named in a participant's shared database: the owner's
// `__defaultOwner__` becomes the owner's user record name, and back.

extension WireRecord {
    /// The record with every zone ID owned by `owner` (its own, its parent's, its share's and
    /// those of the references in its fields) owned by `newOwner` instead: how a record of an
    /// owner's zone (`__defaultOwner__`) reads in a participant's shared database (the owner's
    /// user record name), and back.
    func relabelingOwner(_ owner: String, as newOwner: String) -> WireRecord {
        var record = self
        record.recordID = recordID.relabelingOwner(owner, as: newOwner)
        record.parent = parent?.relabelingOwner(owner, as: newOwner)
        record.share = share?.relabelingOwner(owner, as: newOwner)
        record.fields = fields.mapValues { $0.relabelingOwner(owner, as: newOwner) }
        record.encryptedFields = encryptedFields.mapValues { $0.relabelingOwner(owner, as: newOwner) }
        return record
    }
}

extension WireRecordID {
    /// The ID with owner `newOwner` when its zone is owned by `owner`.
    func relabelingOwner(_ owner: String, as newOwner: String) -> WireRecordID {
        guard zoneID.ownerName.hasSameUTF8Bytes(as: owner) else { return self }
        return WireRecordID(recordName: recordName, zoneID: WireZoneID(zoneName: zoneID.zoneName, ownerName: newOwner))
    }
}

extension WireReference {
    /// The reference with its record's owner relabelled.
    func relabelingOwner(_ owner: String, as newOwner: String) -> WireReference {
        WireReference(recordID: recordID.relabelingOwner(owner, as: newOwner), action: action)
    }
}

extension WireFieldValue {
    /// The value with the owners of its references relabelled.
    func relabelingOwner(_ owner: String, as newOwner: String) -> WireFieldValue {
        switch self {
        case .reference(let reference): .reference(reference.relabelingOwner(owner, as: newOwner))
        case .list(let values): .list(values.map { $0.relabelingOwner(owner, as: newOwner) })
        default: self
        }
    }
}

extension WirePredicate {
    /// The predicate with the owners of its reference values relabelled, so a query a
    /// participant writes with the owner's zone as they name it matches the records as the
    /// owner's zone stores them.
    func relabelingOwner(_ owner: String, as newOwner: String) -> WirePredicate {
        let value = { (value: WireFieldValue) in value.relabelingOwner(owner, as: newOwner) }
        let operand = { (operand: WireQueryOperand) -> WireQueryOperand in
            if case .value(let inner) = operand { return .value(value(inner)) }
            return operand
        }
        switch self {
        case .constant, .beginsWith, .listMemberBeginsWith, .tokens, .near:
            return self
        case .and(let parts):
            return .and(parts.map { $0.relabelingOwner(owner, as: newOwner) })
        case .not(let inner):
            return .not(inner.relabelingOwner(owner, as: newOwner))
        case .compare(let field, let comparison, let right):
            return .compare(field, comparison, operand(right))
        case .between(let field, let low, let high):
            return .between(field, operand(low), operand(high))
        case .isIn(let field, let values):
            return .isIn(field, values.map(value))
        case .listContains(let field, let element):
            return .listContains(field, value(element))
        case .listContainsAny(let field, let values):
            return .listContainsAny(field, values.map(value))
        }
    }
}
