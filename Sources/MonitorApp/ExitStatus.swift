import ArgumentParser
import UnixSignals

/// The exit codes of `monitor`, as the README documents them.
package enum ExitStatus {
    /// Some feed failed, or the command could not do its work.
    package static let failure = ExitCode(1)
    /// The feeds file is invalid.
    package static let invalidConfig = ExitCode(2)
    /// `run --once` or `notify test` was stopped by `signal` (one of ``StopSignals``): 128 + its number, as shells
    /// report it (130 for SIGINT, 143 for SIGTERM).
    static func stopped(by signal: UnixSignal) -> ExitCode {
        ExitCode(128 + signal.rawValue)
    }
}
