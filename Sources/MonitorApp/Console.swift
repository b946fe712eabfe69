import Foundation

/// Where the commands write: standard output for results, standard error for problems.
///
/// Writes go straight to `write(2)`, so a failed write is an answer, never a crash. When the reader of standard
/// output has gone (a closed pipe, `monitor events x | head -1`), `monitor` stops quietly with exit 0: nobody is
/// left to tell. Any other failure (a full disk, a closed standard output) is reported on standard error and
/// ends `monitor` with exit 1.
enum Console {
    /// Makes the standard streams safe to write to; call once, first thing.
    ///
    /// A broken pipe becomes the error `EPIPE` instead of a `SIGPIPE` that kills the process, and each standard
    /// stream that was closed (`>&-`) is held by `/dev/null`, so that no file the process opens later (the state
    /// database) can take its number and receive its output. Standard output is held read-only, so that writing
    /// to it still fails and is reported.
    static func prepare() {
        signal(SIGPIPE, SIG_IGN)
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 {
            let placeholder = open("/dev/null", descriptor == STDERR_FILENO ? O_WRONLY : O_RDONLY)
            if placeholder >= 0, placeholder != descriptor {
                dup2(placeholder, descriptor)
                close(placeholder)
            }
        }
    }

    /// Writes `text` to standard output as it is (add the newline yourself); a failed write ends the process
    /// (see ``Console``).
    static func out(_ text: String) {
        guard let failure = write(text, to: STDOUT_FILENO) else { return }
        if failure == EPIPE { _exit(0) }
        error("monitor: error: cannot write to standard output: \(describe(failure))\n")
        _exit(1)
    }

    /// Writes `text` to standard error as it is (add the newline yourself); when even that fails there is
    /// nowhere left to say so, and the text is dropped.
    static func error(_ text: String) {
        _ = write(text, to: STDERR_FILENO)
    }

    /// What a write error means, in words.
    static func describe(_ failure: Int32) -> String {
        switch failure {
        case ENOSPC: "the disk is full"
        case EBADF: "it is closed"
        case EDQUOT: "the disk quota is exceeded"
        default: String(cString: strerror(failure)).lowercasedFirst
        }
    }

    /// Writes all of `text` to `descriptor`; the `errno` of the write that failed, or nil.
    static func write(_ text: String, to descriptor: Int32) -> Int32? {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            // Nothing written of a text that is not empty: no progress to wait for.
            if written == 0 { return EIO }
            bytes = bytes.dropFirst(written)
        }
        return nil
    }

    /// The width of the terminal on standard output, or 100 when it is not one.
    static func width() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 100 }
        return Int(size.ws_col)
    }

    /// Whether the given stream is a terminal that accepts colour: not redirected, `NO_COLOR` unset, not `TERM=dumb`.
    static func colors(onStandardError: Bool) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        guard environment["NO_COLOR"].map(\.isEmpty) ?? true, environment["TERM"] != "dumb" else { return false }
        return isatty(onStandardError ? STDERR_FILENO : STDOUT_FILENO) == 1
    }
}
