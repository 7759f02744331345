import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/accountStatus(_:)``
    public func accountStatus(_ context: WireRequestContext) async -> WireAccountStatus {
        registry.withLock { $0.devices[context.deviceID]?.status ?? .noAccount }
    }

    /// - SeeAlso: ``CloudService/currentUser(_:)``
    public func currentUser(_ context: WireRequestContext) async throws(WireError) -> WireCurrentUserResponse {
        let scope = try await begin(context, .currentUser)
        return WireCurrentUserResponse(userRecordName: try scope.requireAccount().userRecordName)
    }
}
