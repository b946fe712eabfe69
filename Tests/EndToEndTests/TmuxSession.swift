import Foundation
import MonitorConcurrency
import Synchronization

@testable import MonitorCore

/// A real terminal for a test: a tmux server of its own (its socket in the test's directory) with one window of
/// a given size running `sh`. Keys go in with `send-keys`; the screen comes out with `capture-pane -p`.
///
/// Waiting is driven by the pane's output, not by time: tmux copies everything the pane prints into a FIFO
/// (`pipe-pane`), and `waitForScreen` captures the screen again each time more output has arrived. tmux parses
/// output into the screen before it passes it on, so the capture after a chunk shows that chunk.
///
/// Each tmux command is spawned and waited for on a thread of its own: on a busy machine one takes a while, and a
/// cooperative thread held meanwhile (two on CI) stalls every other test.
final class TmuxSession: Sendable {
    /// The tmux executable, when installed.
    static let executable: URL? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux", "/bin/tmux"]
        .map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// A failure of the session, with the last screen.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let socket: String
    private let changes = OutputSignal()
    private let serverID = Atomic<Int32>(0)

    /// Starts a server with one `width`×`height` window running `sh` in `directory`, and the pipe of its output.
    init(in directory: URL, width: Int, height: Int) async throws {
        socket = directory.appendingPathComponent("tmux.sock").path
        let fifo = directory.appendingPathComponent("pane.fifo").path
        guard mkfifo(fifo, 0o600) == 0 else { throw Failure(description: "mkfifo \(fifo) failed: errno \(errno)") }
        // The server forks from this client and keeps its descriptors: its output goes nowhere, not to a pipe that
        // would then never end.
        try await tmux(
            "new-session", "-d", "-s", "test", "-x", "\(width)", "-y", "\(height)", "-c", directory.path,
            "env PS1='$ ' TERM=xterm-256color sh", capture: false)
        let server = try await tmux("display-message", "-p", "#{pid}").trimmingCharacters(in: .whitespacesAndNewlines)
        serverID.store(Int32(server) ?? 0, ordering: .sequentiallyConsistent)
        try await tmux("pipe-pane", "-t", "test", "cat > '\(fifo)'")
        let changes = self.changes
        Thread.detachNewThread {
            let descriptor = open(fifo, O_RDONLY)
            guard descriptor >= 0 else { return changes.close() }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while read(descriptor, &buffer, buffer.count) > 0 { changes.signal() }
            close(descriptor)
            changes.close()
        }
    }

    /// The process id of its tmux server; nil when it is not known.
    var serverProcessID: Int32? {
        let id = serverID.load(ordering: .sequentiallyConsistent)
        return id > 0 ? id : nil
    }

    /// Types `keys` (tmux key names such as `Enter`, `Escape`, `Up`, or literal text with `literal`).
    func send(_ keys: String..., literal: Bool = false) async throws {
        try await tmux(["send-keys", "-t", "test"] + (literal ? ["-l"] : []) + keys)
    }

    /// The screen as text, one line per row, trailing spaces removed; with `escapes`, its colours and attributes as
    /// escape sequences.
    func screen(escapes: Bool = false) async throws -> String {
        try await tmux(["capture-pane", "-p", "-t", "test"] + (escapes ? ["-e"] : []))
    }

    /// The pane's title (what an OSC 0 or 2 printed in it sets).
    func paneTitle() async throws -> String {
        try await tmux("display-message", "-p", "-t", "test", "#{pane_title}")
    }

    /// Lets an OSC 52 printed in the pane set tmux's clipboard: it then makes a paste buffer.
    func allowClipboard() async throws {
        try await tmux("set-option", "-g", "set-clipboard", "on")
    }

    /// The names of tmux's paste buffers, one a line.
    func pasteBuffers() async throws -> String {
        try await tmux("list-buffers", "-F", "#{buffer_name}")
    }

    /// Waits until the screen satisfies `condition` and returns it; `what` names it for the failure.
    @discardableResult
    func waitForScreen(_ what: String, _ condition: (String) -> Bool) async throws -> String {
        print("terminal test: waiting for \(what)")
        var seen = changes.count
        while true {
            let screen = try await screen()
            if condition(screen) { return screen }
            guard let next = await changes.wait(after: seen) else {
                throw Failure(description: "the pane closed while waiting for \(what); the screen:\n\(screen)")
            }
            seen = next
        }
    }

    /// Stops the server (and whatever still runs in it). Called from a `defer`, it waits on the calling thread.
    func kill() {
        _ = try? Self.run(["kill-server"], socket: socket, capture: false)
        // kill-server was seen to leave the server running after the test: it is ours, so end it by its id too.
        let serverID = self.serverID.load(ordering: .sequentiallyConsistent)
        if serverID > 0 { Foundation.kill(serverID, SIGKILL) }
    }

    @discardableResult
    private func tmux(_ arguments: String..., capture: Bool = true) async throws -> String {
        try await tmux(arguments, capture: capture)
    }

    @discardableResult
    private func tmux(_ arguments: [String], capture: Bool = true) async throws -> String {
        let socket = self.socket
        return try await offThePool { try Self.run(arguments, socket: socket, capture: capture) }
    }

    #if os(Linux)
        /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which its Swift module does not show.
        private static let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
            unsafeBitCast(
                $0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }
    #endif

    /// Runs tmux with `arguments` on the server of `socket` and returns what it printed (`capture`); blocks its thread
    /// until tmux has exited.
    private static func run(_ arguments: [String], socket: String, capture: Bool) throws(Failure) -> String {
        guard let executable = Self.executable else { throw Failure(description: "tmux is not installed") }
        // Spawned and reaped here rather than with `Process`: the client of `new-session` forks the server and
        // `Process` was seen never to notice that client's exit.
        let output = socket + ".out"
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, capture ? output : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The tmux server outlives this call: it must not inherit the test process's sockets (NIO's are not
        // close-on-exec), or a listener a test closes would still take connections, reset when the server ends.
        #if os(Linux)
            guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else {
                throw Failure(description: "posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34 has it)")
            }
        #endif
        let argv = [executable.path, "-S", socket, "-f", "/dev/null"] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, &cArguments, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start tmux: error \(spawned)") }
        var status: Int32 = 0
        var waited: pid_t
        repeat { waited = waitpid(pid, &status, 0) } while waited == -1 && errno == EINTR
        let text = capture ? ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "") : ""
        // Exited normally with 0 (or reaped by someone else: ECHILD).
        let failed = waited == pid && !(status & 0x7F == 0 && (status >> 8) & 0xFF == 0)
        if failed { throw Failure(description: "tmux \(arguments.joined(separator: " ")) failed: \(text)") }
        return text
    }
}

/// Counts the chunks of output a pane printed and wakes whoever waits for the next one.
private final class OutputSignal: Sendable {
    private struct State {
        var count = 0
        var closed = false
        var waiters: [(after: Int, continuation: CheckedContinuation<Int?, Never>)] = []
    }

    private let state = Mutex(State())

    var count: Int { state.withLock { $0.count } }

    func signal() {
        let ready = state.withLock { state in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.after < count }.map { ($0.continuation, count) }
            state.waiters.removeAll { $0.after < count }
            return ready
        }
        for (continuation, count) in ready { continuation.resume(returning: count) }
    }

    func close() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for continuation in waiters { continuation.resume(returning: nil) }
    }

    /// The count once it exceeds `after`; nil when the output ended first.
    func wait(after: Int) async -> Int? {
        // A cancelled wait (the suite's time limit) ends as if the output had ended.
        await withTaskCancellationHandler {
            await waitForSignal(after: after)
        } onCancel: {
            close()
        }
    }

    private func waitForSignal(after: Int) async -> Int? {
        await withCheckedContinuation { continuation in
            let result: Int?? = state.withLock { state in
                if state.count > after { return .some(state.count) }
                if state.closed { return .some(nil) }
                state.waiters.append((after, continuation))
                return .none
            }
            if let result { continuation.resume(returning: result) }
        }
    }
}
