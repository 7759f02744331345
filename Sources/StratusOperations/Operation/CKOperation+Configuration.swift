import Foundation
import StratusCore
import StratusWire

extension CKOperation {
    /// How an operation runs: its container, quality of service, and timeouts.
    ///
    /// Each property remembers whether it was set. When an operation belongs to a
    /// ``CKOperationGroup``, a property set on the operation's configuration wins, then one set
    /// on the group's ``CKOperationGroup/defaultConfiguration``, then CloudKit's default. A fresh
    /// `Configuration()` sets nothing.
    ///
    /// CloudKit document: *CKOperation.Configuration*.
    public final class Configuration: NSObject, NSCopying, @unchecked Sendable {
        enum Property: Hashable, Sendable {
            case container, qualityOfService, allowsCellularAccess, isLongLived
            case timeoutIntervalForRequest, timeoutIntervalForResource
        }

        struct Values: @unchecked Sendable {
            var container: CKContainer?
            var qualityOfService: QualityOfService = .default
            var allowsCellularAccess = true
            var isLongLived = false
            var timeoutIntervalForRequest: TimeInterval = 60
            var timeoutIntervalForResource: TimeInterval?
            var explicit: Set<Property> = []
        }

        let values: Locked<Values>

        /// Creates a configuration with every property at its default, none marked as set.
        public override init() {
            values = Locked(Values())
        }

        init(values: Values) {
            self.values = Locked(values)
        }

        private func get<T>(_ keyPath: KeyPath<Values, T>) -> T {
            values.value[keyPath: keyPath]
        }

        private func set<T>(_ keyPath: WritableKeyPath<Values, T>, _ value: T, _ property: Property) {
            values.withValue {
                $0[keyPath: keyPath] = value
                $0.explicit.insert(property)
            }
        }

        /// The container the operation works in; nil means `CKContainer.default()`.
        public var container: CKContainer? {
            get { get(\.container) }
            set { set(\.container, newValue, .container) }
        }

        /// How urgent the operation is: `.default` unless set. The operation's
        /// `qualityOfService` is this same value.
        public var qualityOfService: QualityOfService {
            get { get(\.qualityOfService) }
            set { set(\.qualityOfService, newValue, .qualityOfService) }
        }

        /// Whether the operation may use cellular data: true unless set. Stored; it has no
        /// effect, as Stratus has no network.
        public var allowsCellularAccess: Bool {
            get { get(\.allowsCellularAccess) }
            set { set(\.allowsCellularAccess, newValue, .allowsCellularAccess) }
        }

        /// Whether the operation is long-lived: false unless set. A long-lived operation is
        /// listed by `CKContainer.allLongLivedOperationIDs()` from its start until it finishes,
        /// and calls `longLivedOperationWasPersistedBlock` when it starts. Stratus keeps it for
        /// the life of the process only; it does not survive the app's exit. Changing it after
        /// the operation started has no effect.
        public var isLongLived: Bool {
            get { get(\.isLongLived) }
            set { set(\.isLongLived, newValue, .isLongLived) }
        }

        /// Seconds a request may take before the operation fails with `networkFailure`: 60
        /// unless set; 0 or less means the default, infinity no timeout. A value that is not
        /// a number is refused with a warning and means the default.
        public var timeoutIntervalForRequest: TimeInterval {
            get { get(\.timeoutIntervalForRequest) }
            set { set(\.timeoutIntervalForRequest, Self.checked(newValue, "timeoutIntervalForRequest"), .timeoutIntervalForRequest) }
        }

        /// Seconds the whole operation may take before it fails with `networkFailure`. Unless
        /// set, none (-1) for `.userInteractive` and `.userInitiated` quality of service, one
        /// week otherwise. 0 or less, or infinity, means none; a value that is not a number is
        /// refused with a warning and means none.
        public var timeoutIntervalForResource: TimeInterval {
            get {
                let values = values.value
                return values.timeoutIntervalForResource ?? Self.defaultResourceTimeout(for: values.qualityOfService)
            }
            set { set(\.timeoutIntervalForResource, Self.checked(newValue, "timeoutIntervalForResource"), .timeoutIntervalForResource) }
        }

        /// A timeout as set: NaN becomes 0, with a warning.
        private static func checked(_ value: TimeInterval, _ name: String) -> TimeInterval {
            guard value.isNaN else { return value }
            runtimeWarning("CKOperation.Configuration.\(name) was set to NaN; 0 is used")
            return 0
        }

        static func defaultResourceTimeout(for qualityOfService: QualityOfService) -> TimeInterval {
            switch qualityOfService {
            case .userInteractive, .userInitiated: -1
            default: 7 * 24 * 60 * 60
            }
        }

        /// A configuration with the same values and the same properties marked as set.
        public func copy(with zone: NSZone? = nil) -> Any {
            Configuration(values: values.value)
        }

        /// This configuration over `group`'s: per property, a value set here wins, then one set
        /// in `group`, then the default.
        func resolved(over group: Configuration?) -> Values {
            let own = values.value
            guard let group = group?.values.value else { return own }
            var merged = Values()
            func pick<T>(_ keyPath: WritableKeyPath<Values, T>, _ property: Property) {
                if own.explicit.contains(property) {
                    merged[keyPath: keyPath] = own[keyPath: keyPath]
                } else if group.explicit.contains(property) {
                    merged[keyPath: keyPath] = group[keyPath: keyPath]
                }
            }
            pick(\.container, .container)
            pick(\.qualityOfService, .qualityOfService)
            pick(\.allowsCellularAccess, .allowsCellularAccess)
            pick(\.isLongLived, .isLongLived)
            pick(\.timeoutIntervalForRequest, .timeoutIntervalForRequest)
            pick(\.timeoutIntervalForResource, .timeoutIntervalForResource)
            merged.explicit = own.explicit.union(group.explicit)
            return merged
        }
    }
}

extension CKOperation.Configuration.Values {
    /// The request timeout in effect: the value, or 60 seconds for 0 or less.
    var effectiveRequestTimeout: TimeInterval {
        timeoutIntervalForRequest > 0 ? timeoutIntervalForRequest : 60
    }

    /// The resource timeout in effect, or nil for none (0 or less, or infinity).
    var effectiveResourceTimeout: TimeInterval? {
        let value = timeoutIntervalForResource ?? CKOperation.Configuration.defaultResourceTimeout(for: qualityOfService)
        return value > 0 && value.isFinite ? value : nil
    }
}
