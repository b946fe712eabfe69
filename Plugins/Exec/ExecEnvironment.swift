/// The environment an exec program runs with: a few harmless variables of `monitor`'s own, the feed's `env`,
/// and the protocol's `MONITOR_*` variables. Nothing else of `monitor`'s environment (tokens, proxies with
/// passwords) reaches the program unless `env` passes it on, as in `{GITHUB_TOKEN: "${GITHUB_TOKEN}"}`.
enum ExecEnvironment {
    /// The variables of `monitor`'s environment that every program gets.
    static let inherited = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"]

    /// The protocol version programs are told.
    static let protocolVersion = 1

    /// The environment of one run of feed `feed`.
    static func make(
        feed: String, cursor: String?, env: [String: String], from parent: [String: String]
    ) -> [String: String] {
        var environment: [String: String] = [:]
        for name in inherited {
            if let value = parent[name] { environment[name] = value }
        }
        environment.merge(env) { $1 }
        environment["MONITOR_PROTOCOL"] = String(protocolVersion)
        environment["MONITOR_FEED"] = feed
        environment["MONITOR_CURSOR"] = cursor
        return environment
    }

    /// Checks a name of `env`: a portable variable name, not one of the protocol's.
    @Sendable static func checkName(_ name: String) -> String? {
        guard let first = name.first, first == "_" || (first.isASCII && first.isLetter),
            name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
        else {
            return "a variable name has letters, digits and '_', and does not start with a digit"
        }
        return name.hasPrefix("MONITOR_") ? "MONITOR_ variables are set by monitor itself" : nil
    }
}
