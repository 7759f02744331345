/// Holds a value that is not `Sendable` (an operation's blocks, which CloudKit lets share state
/// with their sibling blocks) so it can travel to the operation's serial callback queue. The
/// operation only ever touches the value there, one block at a time.
package struct UncheckedBox<Value>: @unchecked Sendable {
    package let value: Value

    package init(value: Value) {
        self.value = value
    }
}
