import Dispatch
import Foundation
import Synchronization

/// The terminal while the full-screen view runs: raw mode (termios) and the alternate screen, both restored on
/// `restore()`, at exit, and on a crash (a fatal signal restores the terminal, then takes its default course).
/// Its lock guards the resize source (hence `@unchecked Sendable`). Delivers the keys read from standard input and the resizes (SIGWINCH) as one stream.
final class TerminalSession: @unchecked Sendable {
    /// Something that happened at the terminal.
    enum Input: Sendable, Equatable {
        /// A key.
        case key(Key)
        /// The window changed size.
        case resize
    }

    private let stopped = Atomic<Bool>(false)
    private let lock = NSLock()
    private var resizes: (any DispatchSourceSignal)?

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
        sessionActive.store(true, ordering: .sequentiallyConsistent)
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT] {
            Foundation.signal(signal, restoreAndReraise)
        }
        atexit { restoreTerminal() }
        Self.write(enterSequence)
    }

    /// The screen's size: columns and rows (100×30 when unknown).
    static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (100, 30)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// The keys and resizes, until `restore()`. Keys are read on a thread of their own, not on the cooperative pool.
    func inputs() -> AsyncStream<Input> {
        let (stream, continuation) = AsyncStream<Input>.makeStream()
        Foundation.signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler { continuation.yield(.resize) }
        source.resume()
        lock.withLock { resizes = source }
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 256)
            while !stopped.load(ordering: .sequentiallyConsistent) {
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                // Wake up now and then to see whether the session ended.
                guard poll(&descriptor, 1, 200) > 0 else { continue }
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count <= 0 { break }
                for key in Key.parse(Array(buffer[0..<count])) { continuation.yield(.key(key)) }
            }
            continuation.finish()
        }
        return stream
    }

    /// Writes `text` to the terminal.
    func write(_ text: String) {
        Self.write(text)
    }

    /// Leaves the alternate screen and restores the mode standard input had (once; later calls do nothing).
    func restore() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        lock.withLock {
            resizes?.cancel()
            resizes = nil
        }
        restoreTerminal()
    }

    private static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes {
                Foundation.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// Shows the cursor, clears and enters the alternate screen.
private let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"

/// The terminal mode before the session, restored by a signal handler: only async-signal-safe calls read it.
///
/// On the heap, all 60 bytes of a `termios`: Swift 6.3 gives a global `termios` initialized by `termios()` only 57
/// bytes of storage (its constant leaves out the 3 bytes of padding after `c_cc`), so that `tcgetattr` wrote its
/// last 3 bytes over `sessionActive`, the global after it (AddressSanitizer: global-buffer-overflow).
nonisolated(unsafe) private let savedMode: UnsafeMutablePointer<termios> = {
    let mode = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    mode.initialize(to: termios())
    return mode
}()
private let sessionActive = Atomic<Bool>(false)

/// Shows the cursor and leaves the alternate screen, then restores the saved mode; async-signal-safe.
private func restoreTerminal() {
    guard sessionActive.exchange(false, ordering: .sequentiallyConsistent) else { return }
    let leave: StaticString = "\u{1B}[?25h\u{1B}[?1049l"
    _ = write(STDOUT_FILENO, leave.utf8Start, leave.utf8CodeUnitCount)
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, savedMode)
}

/// A fatal signal: restore the terminal, then die of the signal as if nothing had caught it.
private func restoreAndReraise(_ signal: Int32) {
    restoreTerminal()
    Foundation.signal(signal, SIG_DFL)
    raise(signal)
}
