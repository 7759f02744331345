import Foundation

/// What an HTTP request's method and path name: the route, and the container, environment and
/// database its path segments give.
public struct WireRouteMatch: Hashable, Sendable {
    /// The endpoint.
    public var route: WireRoute
    /// The container, percent-decoded, such as `iCloud.com.example.clowns`.
    public var containerIdentifier: String
    /// The environment segment.
    public var environment: WireEnvironment
    /// The database segment (for a device route, and a route with a ``WireRoute/fixedDatabase``,
    /// that database: the request is about no database of its own).
    public var database: WireDatabaseScope
}

extension WireRoute {
    /// The route that `method` and `path` name, with the path's container, environment and
    /// database. A query string after the path is ignored (credentials travel there).
    ///
    /// - Throws: ``CKErrorCode/unknownItem`` (CKWS's `NOT_FOUND`) for a path no route has,
    ///   including a route that fixes its database segment reached under another;
    ///   ``CKErrorCode/invalidArguments`` (`BAD_REQUEST`) for a path that has the route under
    ///   another method, an environment other than `development` and `production`, or a
    ///   container segment that is empty or not valid percent-encoding.
    public static func match(method: String, path: String) throws(WireError) -> WireRouteMatch {
        let pathOnly = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path
        let segments = pathOnly.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // "", service, "1", container, environment, [database,] subpath...
        guard segments.count >= 6, segments[0].isEmpty, let service = Service(rawValue: segments[1]), segments[2] == "1" else {
            throw notFound(pathOnly)
        }
        guard let container = segments[3].removingPercentEncoding, !container.isEmpty else {
            throw WireError(.invalidArguments, "the container segment of '\(pathOnly.prefix(200))' is empty or not valid percent-encoding")
        }
        guard let environment = WireEnvironment(rawValue: segments[4]) else {
            throw WireError(.invalidArguments, "the environment is '\(segments[4].prefix(40))'; it must be 'development' or 'production'")
        }
        var database = WireDatabaseScope.public
        var rest = segments[5...]
        if service == .database {
            guard let named = WireDatabaseScope.names.first(where: { $0.1 == segments[5] })?.0 else { throw notFound(pathOnly) }
            database = named
            rest = segments[6...]
        }
        let subpath = rest.joined(separator: "/")
        let candidates = all.filter { $0.service == service && $0.subpath == subpath && ($0.fixedDatabase ?? database) == database }
        guard !candidates.isEmpty else { throw notFound(pathOnly) }
        guard let route = candidates.first(where: { $0.method.rawValue == method }) else {
            let allowed = candidates.map(\.method.rawValue).joined(separator: ", ")
            throw WireError(.invalidArguments, "\(subpath) takes \(allowed), not \(method.prefix(20))")
        }
        return WireRouteMatch(route: route, containerIdentifier: container, environment: environment, database: database)
    }

    private static func notFound(_ path: String) -> WireError {
        WireError(.unknownItem, "no endpoint at '\(path.prefix(200))'")
    }
}
