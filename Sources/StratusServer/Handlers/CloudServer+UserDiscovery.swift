import StratusWire

extension CloudServer {
    /// - SeeAlso: ``CloudService/lookupUsers(_:)``
    public func lookupUsers(_ request: WireUsersLookupRequest) async throws(WireError) -> WireUsersLookupResponse {
        let scope = try await begin(request.context, .lookupUsers)
        _ = try scope.requireAccount()
        try Self.checkItemCount(request.ids.count, of: "lookup infos")
        if let index = request.ids.firstIndex(where: { !$0.isWellFormed }) {
            throw WireError(.invalidArguments, "lookup info \(index) must name exactly one of an email address, a phone number or a user record ID")
        }
        let container = scope.container.identifier
        let results = registry.withLock { registry in
            request.ids.map { info in
                registry.people.find(info, in: container) { self.userRecordName(account: $0, containerIdentifier: container) }
            }
        }
        return WireUsersLookupResponse(results: results)
    }

    /// - SeeAlso: ``CloudService/lookupContacts(_:)``
    public func lookupContacts(_ context: WireRequestContext) async throws(WireError) -> WireUsersContactsResponse {
        let scope = try await begin(context, .lookupContacts)
        let account = try scope.requireAccount().account
        let container = scope.container.identifier
        let identities = registry.withLock { registry in
            registry.people.discoverContacts(of: account, in: container) { self.userRecordName(account: $0, containerIdentifier: container) }
        }
        return WireUsersContactsResponse(identities: identities)
    }

    /// - SeeAlso: ``CloudService/applicationPermissionStatus(_:)``
    public func applicationPermissionStatus(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus {
        try await discoverability(request, .applicationPermissionStatus) { people, account, container in
            people.discoverabilityStatus(of: account, in: container)
        }
    }

    /// - SeeAlso: ``CloudService/requestApplicationPermission(_:)``
    public func requestApplicationPermission(_ request: WireApplicationPermissionRequest) async throws(WireError) -> WireApplicationPermissionStatus {
        try await discoverability(request, .requestApplicationPermission) { people, account, container in
            people.requestDiscoverability(of: account, in: container)
        }
    }

    /// Answers an application-permission request with `body`, given the caller's account and
    /// container, once the request passed the gate and names a permission the server knows.
    private func discoverability(
        _ request: WireApplicationPermissionRequest, _ endpoint: RecordedRequest.Endpoint,
        _ body: (inout PeopleDirectory, String, String) -> WireApplicationPermissionStatus
    ) async throws(WireError) -> WireApplicationPermissionStatus {
        let scope = try await begin(request.context, endpoint)
        let account = try scope.requireAccount().account
        try Self.checkPermission(request.permission)
        let container = scope.container.identifier
        return registry.withLock { body(&$0.people, account, container) }
    }

    /// Refuses an empty permission set and bits the server does not know.
    private static func checkPermission(_ permission: WireApplicationPermissions) throws(WireError) {
        guard !permission.isEmpty else {
            throw WireError(.invalidArguments, "no application permission was named")
        }
        guard WireApplicationPermissions.known.isSuperset(of: permission) else {
            throw WireError(.invalidArguments, "unknown application permission bits \(permission.subtracting(.known).rawValue)")
        }
    }
}
