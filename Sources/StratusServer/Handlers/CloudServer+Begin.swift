import StratusWire

extension CloudServer {
    /// Where every endpoint handler starts: the request passes the gate
    /// (``pass(_:_:)``: session, offline devices, injected delays and failures, the rate
    /// limit, the request log), and the first request of an account in a container has the
    /// server create the account's user records, through the write pipeline.
    func begin(_ context: WireRequestContext, _ endpoint: RecordedRequest.Endpoint) async throws(WireError) -> RequestScope {
        let scope = try await pass(context, endpoint)
        if let account = scope.account, let user = scope.userRecordName {
            ensureUserRecords(account: account, userRecordName: user, in: scope.container)
        }
        return scope
    }
}
