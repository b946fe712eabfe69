import ArgumentParser

/// The exit codes of `monitor`, as the README documents them.
public enum ExitStatus {
    /// Everything succeeded.
    public static let success = ExitCode(0)
    /// Some feed failed, or the command could not do its work.
    public static let failure = ExitCode(1)
    /// The feeds file is invalid.
    public static let invalidConfig = ExitCode(2)
    /// `run --once` was stopped by SIGINT (128 + 2, as shells report it).
    public static let interrupted = ExitCode(130)
    /// `run --once` was stopped by SIGTERM (128 + 15).
    public static let terminated = ExitCode(143)
    /// The command line is wrong (ArgumentParser's own code for usage errors).
    public static let usage = ExitCode(64)
}
