import StratusWire

extension CKContainer {
    /// Extra capabilities a user can grant the app in a container.
    ///
    /// CloudKit document: *CKContainer.ApplicationPermissions*.
    public struct ApplicationPermissions: OptionSet, Hashable, Sendable {
        /// The permission's bits.
        public let rawValue: UInt

        /// Creates a set of permissions from its bits.
        public init(rawValue: UInt) {
            self.rawValue = rawValue
        }

        /// The user can be discovered by other users of the app, by email address, phone
        /// number or user record ID. Until a user grants it, discovery never finds the user.
        @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
        public static let userDiscoverability = ApplicationPermissions(rawValue: 1 << 0)
    }

    /// The state of an application permission.
    ///
    /// CloudKit document: *CKContainer.ApplicationPermissionStatus*.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    public enum ApplicationPermissionStatus: Int, Sendable {
        /// The app has not asked the user yet.
        case initialState = 0
        /// The status could not be read or changed; the accompanying error says why.
        case couldNotComplete = 1
        /// The user denied the permission.
        case denied = 2
        /// The user granted the permission.
        case granted = 3
    }

    /// The handler that receives the outcome of checking or requesting an application
    /// permission: the status, or an error saying why it could not be read.
    ///
    /// CloudKit document: *CKContainer.ApplicationPermissionBlock*. `@Sendable`, like every
    /// convenience completion handler in Stratus, so a block of this type can be handed to
    /// `status(forApplicationPermission:completionHandler:)` in the Swift 6 language mode.
    @available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
    public typealias ApplicationPermissionBlock = @Sendable (ApplicationPermissionStatus, (any Error)?) -> Void

    /// The Swift 4.2 spellings of the application permission types, kept for older code.
    ///
    /// CloudKit document: *CKContainer.Application*. The namespace itself is not deprecated;
    /// each name in it is, as CloudKit deprecates it ("renamed to …").
    public enum Application {
        /// The old name of ``CKContainer/ApplicationPermissions``.
        @available(*, deprecated, message: "renamed to CKContainer.ApplicationPermissions")
        public typealias Permissions = CKContainer.ApplicationPermissions

        /// The old name of ``CKContainer/ApplicationPermissionStatus``.
        @available(*, deprecated, message: "renamed to CKContainer.ApplicationPermissionStatus")
        public typealias PermissionStatus = CKContainer.ApplicationPermissionStatus

        /// The old name of ``CKContainer/ApplicationPermissionBlock``.
        @available(*, deprecated, message: "renamed to CKContainer.ApplicationPermissionBlock")
        public typealias PermissionBlock = CKContainer.ApplicationPermissionBlock
    }
}

@available(*, deprecated, message: "No longer supported. Please see Sharing CloudKit Data with Other iCloud Users.")
extension CKContainer.ApplicationPermissionStatus {
    package init(_ wire: WireApplicationPermissionStatus) {
        switch wire {
        case .initialState: self = .initialState
        case .couldNotComplete: self = .couldNotComplete
        case .denied: self = .denied
        case .granted: self = .granted
        }
    }
}
