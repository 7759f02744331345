// The module users import in place of CloudKit: `import Stratus`.
// Like CloudKit, it re-exports Foundation; it re-exports the other Stratus modules and
// declares nothing of its own.

@_exported import Foundation
@_exported import StratusCore
@_exported import StratusWire
@_exported import StratusServer
@_exported import StratusOperations
@_exported import StratusEmbedded
#if canImport(CoreLocation)
// Where CoreLocation exists, its CLLocation is the record value; elsewhere StratusCore declares one.
@_exported import CoreLocation
#endif
