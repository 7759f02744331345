import Foundation
import StratusWire

extension CloudServer {
    /// The asset dictionaries of `value` as a client fetches them: checksum, size and a
    /// download URL valid for ``WireLimits/assetUploadLifetime``.
    func downloadable(_ value: WireFieldValue) -> WireFieldValue {
        switch value {
        case .asset(let asset):
            guard let checksum = asset.fileChecksum else { return value }
            let handle = AssetDownloadHandle(checksum: checksum, expires: clock.now.addingTimeInterval(WireLimits.assetUploadLifetime))
            var shown = WireAsset(fileChecksum: checksum, size: asset.size)
            shown.downloadURL = AssetURL.base + WireAssetURLPath.download + handle.sealed(with: sealingKey)
            return .asset(shown)
        case .list(let values):
            return .list(values.map(downloadable))
        default:
            return value
        }
    }
}
