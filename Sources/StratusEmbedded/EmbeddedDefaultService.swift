import Foundation
import StratusCore
import StratusServer
import StratusWire
import Synchronization

/// The default service of `import Stratus`: `CKContainer.default()` and
/// `CKContainer(identifier:)` are devices on ``CloudServer/shared``, signed in to
/// ``CloudServer/defaultAccount``, one device per container identifier for the whole process.
///
/// The client modules find this class by name (``DefaultService/providerClassName``): they do
/// not depend on the server.
package final class EmbeddedDefaultService: NSObject, DefaultServiceProvider {
    private static let devices = Mutex<[String: ClientDevice]>([:])

    /// The process's device of the container `containerIdentifier` on ``CloudServer/shared``.
    package static func defaultDevice(containerIdentifier: String) -> (service: any CloudService, device: ClientDevice) {
        let server = CloudServer.shared
        let device = devices.withLock { devices in
            if let existing = devices[containerIdentifier] { return existing }
            let created = server.makeDevice(containerIdentifier: containerIdentifier, account: CloudServer.defaultAccount)
            devices[containerIdentifier] = created
            return created
        }
        return (server.clientService, device)
    }
}
