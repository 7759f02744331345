import Foundation

/// Tells the developer, on standard error, about a misuse that Stratus survives: an operation
/// added twice, a test knob given a value it had to refuse or clamp.
package func runtimeWarning(_ message: String) {
    FileHandle.standardError.write(Data("[Stratus] warning: \(message)\n".utf8))
}
