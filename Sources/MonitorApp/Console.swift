import Foundation

/// Where the commands write: standard output for results, standard error for problems.
enum Console {
    /// Writes `text` to standard output as it is (add the newline yourself).
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `text` to standard error as it is (add the newline yourself).
    static func error(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// The width of the terminal on standard output, or 100 when it is not one.
    static func width() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 100 }
        return Int(size.ws_col)
    }

    /// Whether standard output (or error) is a terminal that may be redrawn: not redirected, `NO_COLOR` unset,
    /// not `TERM=dumb`.
    static func isTerminal(onStandardError: Bool) -> Bool {
        colors(onStandardError: onStandardError)
    }

    /// Whether the given stream is a terminal that accepts colour: not redirected, `NO_COLOR` unset, not `TERM=dumb`.
    static func colors(onStandardError: Bool) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        guard environment["NO_COLOR"].map(\.isEmpty) ?? true, environment["TERM"] != "dumb" else { return false }
        return isatty(onStandardError ? STDERR_FILENO : STDOUT_FILENO) == 1
    }
}
