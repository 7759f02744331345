import StratusWire

extension CloudServer {
    /// Sets the security roles of `recordType` in the public database of a container.
    /// Records already saved keep their creator; the new roles apply to the next request.
    public func setPermissions(_ permissions: RecordPermissions, forRecordType recordType: String, containerIdentifier: String) {
        containerStore(containerIdentifier).permissions.withLock { $0[recordType] = permissions }
    }

    /// The security roles of `recordType` in a container's public database.
    public func permissions(forRecordType recordType: String, containerIdentifier: String) -> RecordPermissions {
        containerStore(containerIdentifier).permissions(for: recordType)
    }

    /// Limits the storage of an account's private databases, over all containers, to `bytes`
    /// (nil: unlimited). A request that would go over fails with `quotaExceeded` and stores
    /// nothing. Storage counts record field data (``WireRecord/byteSize``) and asset files.
    public func setQuota(bytes: Int?, forAccount account: String) {
        accountStorage.withLock { $0[account, default: (0, nil)].quota = bytes }
    }

    /// Limits the storage of a container's public database to `bytes` (nil: unlimited).
    public func setPublicQuota(bytes: Int?, containerIdentifier: String) {
        containerStore(containerIdentifier).publicStorage.withLock { $0.quota = bytes }
    }

    /// The bytes an account's private databases hold, over all containers.
    public func storageUsed(byAccount account: String) -> Int {
        accountStorage.withLock { $0[account]?.used ?? 0 }
    }

    /// The bytes a container's public database holds.
    public func publicStorageUsed(containerIdentifier: String) -> Int {
        containerStore(containerIdentifier).publicStorage.withLock { $0.used }
    }

    /// The schema of a container: its environment, the development schema (record types and
    /// field types so far, and marked indexes) and the production schema.
    public func schema(containerIdentifier: String) -> ServerSchema {
        containerStore(containerIdentifier).schema.withLock { $0 }
    }

    /// Switches a container between the development and production schema rules. The
    /// records stay as they are: Stratus keeps one set of data per container.
    public func setEnvironment(_ environment: ServerSchema.Environment, containerIdentifier: String) {
        containerStore(containerIdentifier).schema.withLock { $0.environment = environment }
    }

    /// Deploys the development schema to production: record types, fields and marked
    /// indexes, not records.
    public func deployDevelopmentSchema(containerIdentifier: String) {
        containerStore(containerIdentifier).schema.withLock { $0.deploy() }
    }

    /// Marks indexes on a field of a record type, in both environments, as CloudKit's
    /// dashboard does. System fields go by their Swift names (`recordID`, `creationDate`,
    /// `modificationDate`, `creatorUserRecordID`, …). A new index covers the records already
    /// saved.
    public func markIndexes(_ indexes: ServerSchema.Indexes, field: String, recordType: String, containerIdentifier: String) {
        containerStore(containerIdentifier).schema.withLock { $0.mark(indexes, field: WireQueryField(key: field).description, recordType: recordType) }
    }

}
