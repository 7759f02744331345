import Foundation
import StratusWire

/// What stands behind `CKContainer.default()` and `CKContainer(identifier:)`: the process's
/// default service, and its device for each container.
///
/// The client modules do not know the embedded server (they depend on `StratusWire` alone), so
/// the module that wires the two together provides the default: a class adopting this protocol,
/// found by name when a default container is first made. With `import Stratus` that is the
/// embedded wiring's `CloudServer.shared`.
package protocol DefaultServiceProvider: AnyObject {
    /// The device of the container `containerIdentifier` on the default service, signed in to
    /// its default account, and that service: the same device for every call with one identifier.
    static func defaultDevice(containerIdentifier: String) -> (service: any CloudService, device: ClientDevice)
}

/// Finds the ``DefaultServiceProvider``.
package enum DefaultService {
    /// The name the provider is looked up by: a class of the embedded wiring module.
    package static let providerClassName = "StratusEmbedded.EmbeddedDefaultService"

    /// Looked up each time a default device is made, which is once per container identifier.
    private static var provider: (any DefaultServiceProvider.Type)? {
        NSClassFromString(providerClassName) as? any DefaultServiceProvider.Type
    }

    /// The default service's device of the container `containerIdentifier`; without a provider
    /// linked in, a device of ``UnavailableService``, whose every request fails saying so.
    package static func device(containerIdentifier: String) -> (service: any CloudService, device: ClientDevice) {
        if let provider { return provider.defaultDevice(containerIdentifier: containerIdentifier) }
        return (UnavailableService(), ClientDevice(id: "unavailable", clock: SystemClock()))
    }
}
