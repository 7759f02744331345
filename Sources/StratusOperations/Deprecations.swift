import Foundation
import StratusCore

// CloudKit's pre-iOS 11 spellings of an operation's configuration. Each reads and writes the
// operation's `configuration`.

extension CKOperation {
    /// The container the operation works in: `configuration.container`.
    @available(*, deprecated, message: "Use CKOperation.configuration.container")
    public var container: CKContainer? {
        get { configuration.container }
        set { configuration.container = newValue }
    }

    /// Whether the operation may use cellular data: `configuration.allowsCellularAccess`.
    @available(*, deprecated, message: "Use CKOperation.configuration.allowsCellularAccess")
    public var allowsCellularAccess: Bool {
        get { configuration.allowsCellularAccess }
        set { configuration.allowsCellularAccess = newValue }
    }

    /// Whether the operation is long-lived: `configuration.isLongLived`.
    @available(*, deprecated, message: "Use CKOperation.configuration.isLongLived")
    public var isLongLived: Bool {
        get { configuration.isLongLived }
        set { configuration.isLongLived = newValue }
    }

    /// The request timeout: `configuration.timeoutIntervalForRequest`.
    @available(*, deprecated, message: "Use CKOperation.configuration.timeoutIntervalForRequest")
    public var timeoutIntervalForRequest: TimeInterval {
        get { configuration.timeoutIntervalForRequest }
        set { configuration.timeoutIntervalForRequest = newValue }
    }

    /// The resource timeout: `configuration.timeoutIntervalForResource`.
    @available(*, deprecated, message: "Use CKOperation.configuration.timeoutIntervalForResource")
    public var timeoutIntervalForResource: TimeInterval {
        get { configuration.timeoutIntervalForResource }
        set { configuration.timeoutIntervalForResource = newValue }
    }

    /// Whether the operation runs in the background: true exactly when its quality of service
    /// is `.background`. Setting true sets `.background`; setting false on a background
    /// operation sets `.default` (the iOS 8 header's rule).
    @available(*, deprecated, message: "Use qualityOfService")
    public var usesBackgroundSession: Bool {
        get { qualityOfService == .background }
        set {
            if newValue {
                qualityOfService = .background
            } else if qualityOfService == .background {
                qualityOfService = .default
            }
        }
    }
}
