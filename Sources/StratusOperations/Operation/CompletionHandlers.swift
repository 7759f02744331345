/// Runs `body` in a task and hands its value or error to a CloudKit-style completion handler
/// `(value?, error?)`. Handlers run on a task of the cooperative pool, never on the main thread.
func complete<Value: Sendable>(
    _ handler: @escaping @Sendable (Value?, (any Error)?) -> Void,
    _ body: @escaping @Sendable () async throws -> Value
) {
    Task {
        do {
            handler(try await body(), nil)
        } catch {
            handler(nil, error)
        }
    }
}

/// Runs `body` in a task and hands its outcome to a `Result` completion handler.
func complete<Value: Sendable>(
    _ handler: @escaping @Sendable (Result<Value, any Error>) -> Void,
    _ body: @escaping @Sendable () async throws -> Value
) {
    Task {
        do {
            handler(.success(try await body()))
        } catch {
            handler(.failure(error))
        }
    }
}
