import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/openSession(_:)``
    public func openSession(_ request: WireSessionRequest) async throws(WireError) -> WireSession {
        try openSessionNow(request)
    }

    /// ``openSession(_:)`` without waiting: what the embedded wiring calls to sign a test's
    /// devices in and out synchronously.
    package func openSessionNow(_ request: WireSessionRequest) throws(WireError) -> WireSession {
        guard !request.containerIdentifier.isEmpty else {
            throw WireError(.invalidArguments, "a session needs a container identifier")
        }
        if let account = request.account, account.isEmpty {
            throw WireError(.invalidArguments, "an account name cannot be empty; sign out with no account instead")
        }
        guard let deviceID = request.deviceID else {
            return registerDevice(containerIdentifier: request.containerIdentifier, account: request.account)
        }
        guard let session = setAccount(request.account, forDevice: deviceID, in: request.containerIdentifier) else {
            throw WireError(.invalidArguments, "device '\(deviceID)' is not a device of container '\(request.containerIdentifier)' this server knows")
        }
        return session
    }

    /// - SeeAlso: ``CloudService/closeSession(deviceID:)``
    public func closeSession(deviceID: String) async {
        unregisterDevice(deviceID)
    }

    /// Forgets a device whose last container object went away: the gate and the push router
    /// both.
    package func unregisterDevice(_ deviceID: String) {
        removeDevice(deviceID)
        pushes.withLock { $0.forget(deviceID) }.resume()
    }
}
