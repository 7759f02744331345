import StratusWire

extension CKDatabase {
    /// The context a request from this database made now carries: the container, the database,
    /// the device and its current session, with the default quality of service.
    ///
    /// For benchmarks and tests that call the `CloudService` (a `CloudServer`) directly, as a
    /// network transport would, without the client's checks or the request path's timeout and
    /// rate-limit hold. CloudKit has no such call; it is not API.
    ///
    /// - Returns: The context to put in a `Wire…Request` sent straight to the service.
    @_spi(Testing)
    public func rawRequestContext() -> WireRequestContext {
        requestPath(qualityOfService: .default).context()
    }
}
