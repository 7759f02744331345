import Foundation
import StratusWire

extension CloudServer {
    /// Checks the receipt of every asset in the plain fields of `save` (lists walked) and takes
    /// the save's hold on the stored bytes, all or nothing: when one is refused, the holds taken
    /// for the others are given back before the error is thrown.
    ///
    /// - Returns: The save with each asset as the server stores it, `{fileChecksum, size}`; the
    ///   caller holds one reference per asset value in it (give them back with
    ///   `assets.release(save.record)`).
    /// - Throws: `invalidArguments` for an asset without a receipt, a receipt this server did
    ///   not issue (or altered), one issued for another container, database, user, zone,
    ///   record, type or field, an expired one, one whose checksum or size the asset
    ///   contradicts, or one whose bytes are no longer stored.
    func admitAssets(of save: WireRecordSave, scope: RequestScope) throws(WireError) -> WireRecordSave {
        let now = clock.now
        assets.releaseExpiredUploads(now: now)
        let target = AssetTarget(
            containerIdentifier: scope.container.identifier, database: scope.databaseScope, userRecordName: scope.userRecordName ?? "",
            zoneID: scope.normalized(save.record.recordID.zoneID), recordName: save.record.recordID.recordName,
            recordType: save.record.recordType, fieldName: ""
        )
        var prepared = save
        var held: [WireFieldValue] = []
        do throws(WireError) {
            for key in save.record.fields.keys.sorted() {
                guard let value = save.record.fields[key], value.holdsAsset else { continue }
                var field = target
                field.fieldName = key
                prepared.record.fields[key] = try admit(value, for: field, now: now, held: &held)
            }
        } catch {
            held.forEach(assets.release)
            throw error
        }
        return prepared
    }

    private func admit(_ value: WireFieldValue, for target: AssetTarget, now: Date, held: inout [WireFieldValue]) throws(WireError) -> WireFieldValue {
        switch value {
        case .asset(let asset):
            let stored = WireFieldValue.asset(try admit(asset, for: target, now: now))
            held.append(stored)
            return stored
        case .list(let values):
            var stored: [WireFieldValue] = []
            stored.reserveCapacity(values.count)
            for element in values { stored.append(try admit(element, for: target, now: now, held: &held)) }
            return .list(stored)
        default:
            return value
        }
    }

    private func admit(_ asset: WireAsset, for target: AssetTarget, now: Date) throws(WireError) -> WireAsset {
        let place = "field '\(target.fieldName)' of record '\(target.recordName)'"
        guard let receipt = asset.receipt else {
            throw WireError(.invalidArguments, "the asset in \(place) has no receipt: upload its bytes first (assets/upload, then the token's URL) and save the asset dictionary the upload answered")
        }
        guard let ticket = AssetTicket.open(receipt, key: sealingKey), let file = ticket.file else {
            throw WireError(.invalidArguments, "the asset receipt in \(place) was not issued by this server, or it was altered")
        }
        guard ticket.target.matches(target) else {
            throw WireError(.invalidArguments, "the asset receipt in \(place) was issued for another container, database, user, zone, record, record type or field (field '\(ticket.target.fieldName)' of record '\(ticket.target.recordName)')")
        }
        guard now < ticket.expires else {
            throw WireError(.invalidArguments, "the asset receipt in \(place) expired \(Int(WireLimits.assetUploadLifetime / 60)) minutes after the upload; upload the file again")
        }
        if let checksum = asset.fileChecksum, !checksum.hasSameUTF8Bytes(as: file.checksum) {
            throw WireError(.invalidArguments, "the asset in \(place) has fileChecksum '\(checksum)', but its receipt is for '\(file.checksum)'")
        }
        if let size = asset.size, size != file.size {
            throw WireError(.invalidArguments, "the asset in \(place) has size \(size), but its receipt is for \(file.size) bytes")
        }
        guard assets.claim(upload: file.upload, name: file.checksum) else {
            throw WireError(.invalidArguments, "the bytes of the asset receipt in \(place) are no longer stored (a receipt serves one save); upload the file again")
        }
        return WireAsset(fileChecksum: file.checksum, size: file.size)
    }
}
