import Dispatch
import Foundation
import Synchronization

/// The terminal while the full-screen view runs: raw mode (termios) and the alternate screen, both restored on
/// `restore()`, at exit, and on a crash (a fatal signal restores the terminal, then takes its default course).
/// Ctrl-Z (a byte in raw mode) or a SIGTSTP gives the terminal back and stops the process as the shell expects; a
/// SIGCONT takes the terminal again and asks for the screen to be drawn whole.
/// Its lock guards the resize source (hence `@unchecked Sendable`). Delivers the keys read from standard input and the
/// redraws (SIGWINCH, SIGCONT) as one stream.
final class TerminalSession: @unchecked Sendable {
    /// Something that happened at the terminal.
    enum Input: Sendable, Equatable {
        case key(Key)
        /// The screen must be drawn whole: the window changed size, or the process came back from a stop.
        case redraw
    }

    private let stopped = Atomic<Bool>(false)
    private let lock = NSLock()
    private var resizes: (any DispatchSourceSignal)?
    /// The reading end of the pipe the signal handlers write to.
    private let wakeInput: Int32

    /// Whether standard input and output are both terminals that may be drawn on (`TERM` is not `dumb`).
    static var isAvailable: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// Enters raw mode and the alternate screen; returns nil when standard input's mode cannot be read.
    init?() {
        guard tcgetattr(STDIN_FILENO, savedMode) == 0 else { return nil }
        var raw = savedMode.pointee
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        raw.c_cflag |= tcflag_t(CS8)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { return nil }
        rawMode.pointee = raw
        // The signal handlers' way to the input thread: a byte asks for a redraw. Never closed, since a handler may
        // write to it at any time; one session per process.
        var wake: [Int32] = [-1, -1]
        if pipe(&wake) == 0 {
            for descriptor in wake {
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
                _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
            }
            wakeInput = wake[0]
            wakeDescriptor.store(wake[1], ordering: .sequentiallyConsistent)
        } else {
            wakeInput = -1
        }
        sessionActive.store(true, ordering: .sequentiallyConsistent)
        sessionOpen.store(true, ordering: .sequentiallyConsistent)
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT] {
            Foundation.signal(signal, restoreAndReraise)
        }
        Foundation.signal(SIGTSTP, suspendOnSignal)
        Foundation.signal(SIGCONT, resumeOnSignal)
        atexit {
            sessionOpen.store(false, ordering: .sequentiallyConsistent)
            restoreTerminal()
        }
        _ = Console.write("\(enterSequence)", to: STDOUT_FILENO)
    }

    /// The screen's size: columns and rows (100×30 when unknown).
    static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (100, 30)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// The keys and redraws, until `restore()`. Keys are read on a thread of their own, not on the cooperative pool;
    /// Ctrl-Z is not passed on: it stops the process (as SIGTSTP does).
    func inputs() -> AsyncStream<Input> {
        let (stream, continuation) = AsyncStream<Input>.makeStream()
        Foundation.signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler { continuation.yield(.redraw) }
        source.resume()
        lock.withLock { resizes = source }
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 256)
            while !stopped.load(ordering: .sequentiallyConsistent) {
                var descriptors = [
                    pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wakeInput, events: Int16(POLLIN), revents: 0),
                ]
                // Wake up now and then to see whether the session ended.
                guard poll(&descriptors, 2, 200) > 0 else { continue }
                if descriptors[1].revents != 0 {
                    while read(wakeInput, &buffer, buffer.count) > 0 {}
                    continuation.yield(.redraw)
                }
                guard descriptors[0].revents != 0 else { continue }
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                if count <= 0 { break }
                for key in Key.parse(Array(buffer[0..<count])) {
                    // Sent to the process group, as the terminal sends it when not in raw mode.
                    if key == .suspend { kill(0, SIGTSTP) } else { continuation.yield(.key(key)) }
                }
            }
            continuation.finish()
        }
        return stream
    }

    /// Writes `text` to the terminal, unless it was given back (the process is about to stop).
    func write(_ text: String) {
        guard sessionActive.load(ordering: .sequentiallyConsistent) else { return }
        _ = Console.write(text, to: STDOUT_FILENO)
    }

    /// Leaves the alternate screen and restores the mode standard input had (once; later calls do nothing).
    func restore() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        sessionOpen.store(false, ordering: .sequentiallyConsistent)
        Foundation.signal(SIGTSTP, SIG_DFL)
        Foundation.signal(SIGCONT, SIG_DFL)
        lock.withLock {
            resizes?.cancel()
            resizes = nil
        }
        restoreTerminal()
    }
}

/// Enters the alternate screen, hides the cursor and clears the screen.
private let enterSequence: StaticString = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"

/// The terminal mode before the session, restored by a signal handler: only async-signal-safe calls read it.
///
/// On the heap, all 60 bytes of a `termios`: Swift 6.3 gives a global `termios` initialized by `termios()` only 57
/// bytes of storage (its constant leaves out the 3 bytes of padding after `c_cc`), so that `tcgetattr` wrote its
/// last 3 bytes over `sessionActive`, the global after it (AddressSanitizer: global-buffer-overflow).
nonisolated(unsafe) private let savedMode = heapMode()
/// The raw mode of the session, taken again on SIGCONT (on the heap for the same reason).
nonisolated(unsafe) private let rawMode = heapMode()

/// A zeroed `termios` of its own on the heap, never freed.
private func heapMode() -> UnsafeMutablePointer<termios> {
    let mode = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    mode.initialize(to: termios())
    return mode
}

/// Whether the terminal is in the session's mode and screen now.
private let sessionActive = Atomic<Bool>(false)
/// Whether the session runs (it may have given the terminal back for a stop): from `init` to `restore()` or exit.
private let sessionOpen = Atomic<Bool>(false)
/// The writing end of the pipe that asks the input thread for a redraw (-1 before the session).
private let wakeDescriptor = Atomic<Int32>(-1)

/// Shows the cursor and leaves the alternate screen, then restores the saved mode; async-signal-safe.
private func restoreTerminal() {
    guard sessionActive.exchange(false, ordering: .sequentiallyConsistent) else { return }
    let leave: StaticString = "\u{1B}[?25h\u{1B}[?1049l"
    _ = write(STDOUT_FILENO, leave.utf8Start, leave.utf8CodeUnitCount)
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, savedMode)
}

/// SIGTSTP (Ctrl-Z, or sent by someone): give the terminal back, then stop the process group as the signal's default
/// action would; the SIGCONT that ends the stop takes the terminal again. Async-signal-safe. A session leader does
/// nothing: its process group is orphaned, and the kernel would discard the stop, leaving the terminal given back.
private func suspendOnSignal(_ signal: Int32) {
    let saved = errno
    defer { errno = saved }
    guard getsid(0) != getpid() else { return }
    restoreTerminal()
    // Stop by the default action, which the handler of SIGCONT replaces again (not here: the stop may come only
    // after this handler returned, when another thread takes the signal).
    Foundation.signal(SIGTSTP, SIG_DFL)
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    kill(0, SIGTSTP)
}

/// SIGCONT (the shell's `fg`, or sent by someone): while the session runs, take the terminal again (raw mode, the
/// alternate screen) and ask the input thread for a redraw. Async-signal-safe. Continued in the background (`bg`),
/// setting the mode stops the process again (SIGTTOU) until it is in the foreground.
private func resumeOnSignal(_ signal: Int32) {
    let saved = errno
    defer { errno = saved }
    guard sessionOpen.load(ordering: .sequentiallyConsistent) else { return }
    Foundation.signal(SIGTSTP, suspendOnSignal)
    guard tcsetattr(STDIN_FILENO, TCSAFLUSH, rawMode) == 0 else { return }
    _ = write(STDOUT_FILENO, enterSequence.utf8Start, enterSequence.utf8CodeUnitCount)
    sessionActive.store(true, ordering: .sequentiallyConsistent)
    var byte: UInt8 = 0
    _ = write(wakeDescriptor.load(ordering: .sequentiallyConsistent), &byte, 1)
}

/// A fatal signal: restore the terminal, then die of the signal as if nothing had caught it.
private func restoreAndReraise(_ signal: Int32) {
    restoreTerminal()
    Foundation.signal(signal, SIG_DFL)
    raise(signal)
}
