import StratusCore

// `configuredWith(configuration:group:body:)`: CloudKit's way to give convenience calls a
// configuration and a group. The body gets another object for the same container or database,
// whose convenience calls run their operations with that configuration (a copy, taken when
// `configuredWith` is called) and in that group.

extension CKContainer {
    /// Runs `body` with a container whose databases' convenience calls (`save(_:)`,
    /// `record(for:)`, `records(matching:…)`, …) use `configuration` and `group`.
    ///
    /// A property the configuration does not set falls back on the group's default
    /// configuration, then on the convenience calls' default (`.userInitiated` quality of
    /// service). The configured container is the same container and device; only its
    /// convenience calls differ. Operations you add yourself keep their own configuration.
    ///
    /// - Returns: What `body` returns.
    @discardableResult
    public func configuredWith<R>(
        configuration: CKOperation.Configuration? = nil,
        group: CKOperationGroup? = nil,
        body: (_ configuredContainer: CKContainer) throws -> R
    ) rethrows -> R {
        try body(configured(.init(copying: configuration, group: group)))
    }

    /// Runs the asynchronous `body` with a container whose databases' convenience calls use
    /// `configuration` and `group`, as the synchronous form describes.
    ///
    /// - Returns: What `body` returns.
    @discardableResult
    @preconcurrency
    public func configuredWith<R>(
        configuration: CKOperation.Configuration? = nil,
        group: CKOperationGroup? = nil,
        body: @Sendable (_ configuredContainer: CKContainer) async throws -> R
    ) async rethrows -> R {
        try await body(configured(.init(copying: configuration, group: group)))
    }
}

extension CKDatabase {
    /// Runs `body` with a database whose convenience calls (`save(_:)`, `record(for:)`,
    /// `records(matching:…)`, …) use `configuration` and `group`.
    ///
    /// A property the configuration does not set falls back on the group's default
    /// configuration, then on the convenience calls' default (`.userInitiated` quality of
    /// service). The configured database is the same database; only its convenience calls
    /// differ. Operations you add yourself keep their own configuration.
    ///
    /// - Returns: What `body` returns.
    @discardableResult
    public func configuredWith<R>(
        configuration: CKOperation.Configuration? = nil,
        group: CKOperationGroup? = nil,
        body: (_ configuredDatabase: CKDatabase) throws -> R
    ) rethrows -> R {
        try body(configured(.init(copying: configuration, group: group)))
    }

    /// Runs the asynchronous `body` with a database whose convenience calls use
    /// `configuration` and `group`, as the synchronous form describes.
    ///
    /// - Returns: What `body` returns.
    @discardableResult
    @preconcurrency
    public func configuredWith<R>(
        configuration: CKOperation.Configuration? = nil,
        group: CKOperationGroup? = nil,
        body: @Sendable (_ configuredDatabase: CKDatabase) async throws -> R
    ) async rethrows -> R {
        try await body(configured(.init(copying: configuration, group: group)))
    }
}

extension ConvenienceSettings {
    /// Settings holding a copy of `configuration`, so later changes to it do not reach the
    /// configured object, and `group`.
    init(copying configuration: CKOperation.Configuration?, group: CKOperationGroup?) {
        self.init(configuration: configuration?.copy() as? CKOperation.Configuration, group: group)
    }
}
