import MonitorCore
import MonitorPrograms

/// The environment an exec program runs with: the one every program starts from (``ProgramEnvironment``: a few
/// harmless variables of `monitor`'s own and the feed's `env`) and the protocol's `MONITOR_*` variables.
enum ExecEnvironment {
    /// The protocol version programs are told.
    static let protocolVersion = 1

    /// The environment of one run of feed `feed`.
    static func make(
        feed: String, cursor: String?, env: [String: String], from parent: [String: String]
    ) -> [String: String] {
        var environment = ProgramEnvironment.make(env: env, from: parent)
        environment["MONITOR_PROTOCOL"] = String(protocolVersion)
        environment["MONITOR_FEED"] = feed
        environment["MONITOR_CURSOR"] = cursor
        return environment
    }
}
