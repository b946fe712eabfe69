/// The environment every external program (an exec source's, a command notifier's) starts from: a few harmless
/// variables of `monitor`'s own and the `env` of its feed or notifier. Nothing else of `monitor`'s environment (tokens,
/// proxies with passwords) reaches a program unless `env` passes it on, as in `{GITHUB_TOKEN: "${GITHUB_TOKEN}"}`.
package enum ProgramEnvironment {
    /// The variables of `monitor`'s environment that every program gets.
    static let inherited = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"]

    /// The inherited variables of `parent`, then `env`.
    package static func make(env: [String: String], from parent: [String: String]) -> [String: String] {
        parent.filter { inherited.contains($0.key) }.merging(env) { $1 }
    }

    /// Checks a name of `env`: a portable variable name, not one of the `MONITOR_` ones `monitor` sets.
    @Sendable package static func checkName(_ name: String) -> String? {
        guard let first = name.first, first == "_" || (first.isASCII && first.isLetter),
            name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) })
        else {
            return "a variable name has letters, digits and '_', and does not start with a digit"
        }
        return name.hasPrefix("MONITOR_") ? "MONITOR_ variables are set by monitor itself" : nil
    }
}
