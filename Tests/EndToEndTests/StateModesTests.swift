import Foundation
import LoopbackHTTP
import MonitorSQLite
import TestSupport
import Testing

@testable import MonitorCore

/// The state is for its owner alone, whatever the umask: what it holds (every feed's items, each notifier's last
/// error) is private, and a state others could change could make `monitor` send what they wrote.
@Suite("The state directory's and files' modes", .timeLimit(.minutes(5)))
struct StateModesTests {
    /// Starts `monitor` under `umask 000`, the most permissive.
    static let permissiveUmask = ["/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\""]

    private static let feeds = "feeds:\n  - {name: planet, type: eonet, api: http://127.0.0.1:1/api/v3}\n"

    /// The permission bits of `path`.
    private static func mode(_ path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & 0o7777
    }

    @Test("under umask 000 the directory and its missing parent are 0700, state.sqlite, its -wal and -shm 0600")
    func createdPrivate() async throws {
        let directory = try TemporaryDirectory()
        try await withTestHTTPServer(eonetAnswer) { server in
            try directory.write(
                "feeds.yaml", "feeds:\n  - {name: planet, type: eonet, api: \(server.baseURL)/api/v3}\n")
            let result = try await MonitorProcess.run(
                ["run", "--once", "--state", "parent/state"], in: directory.url, launcher: Self.permissiveUmask)
            #expect(result.status == 0)
            #expect(result.stderr == "")
        }
        let parent = directory.url.appendingPathComponent("parent").path
        let state = parent + "/state"
        let database = state + "/" + SQLiteStateStore.fileName
        // run --once leaves its WAL (and the shared memory file) beside the database.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: state).sorted() == [
                "state.sqlite", "state.sqlite-shm", "state.sqlite-wal",
            ])
        #expect(Self.mode(parent) == 0o700)
        #expect(Self.mode(state) == 0o700)
        #expect(Self.mode(database) == 0o600)
        #expect(Self.mode(database + "-wal") == 0o600)
        #expect(Self.mode(database + "-shm") == 0o600)
    }

    @Test(
        "a state directory its group or others may write is refused, and nothing is created in it",
        arguments: [0o777, 0o770, 0o1777, 0o702] as [mode_t])
    func writableByOthers(mode: mode_t) async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", Self.feeds)
        let state = directory.url.appendingPathComponent("state").path
        #expect(mkdir(state, 0o700) == 0)
        #expect(chmod(state, mode) == 0)
        let result = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        let shown = String(format: "%04o", mode)
        #expect(
            result.stderr
                == "monitor: error: cannot open the state: \(state) may be written by other users (mode \(shown)), "
                + "who could change the state it holds: make it private with `chmod 700 \(state)`\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state) == [])
        #expect(Self.mode(state) == mode)
    }

    @Test(
        "a state directory that belongs to another user is refused",
        .enabled(if: getuid() == 0, "needs root, to give the directory to another user"))
    func ownedByAnother() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", Self.feeds)
        let state = directory.url.appendingPathComponent("state").path
        #expect(mkdir(state, 0o700) == 0)
        #expect(chown(state, 65534, 65534) == 0)
        let result = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "monitor: error: cannot open the state: \(state) belongs to another user (uid 65534), who could "
                + "change the state it holds: use a state directory of your own (--state)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state) == [])
    }

    @Test("a state that others may read, as earlier versions made it, is made private, with a warning once")
    func madePrivate() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.url.appendingPathComponent("state")
        let database = state.appendingPathComponent(SQLiteStateStore.fileName).path
        _ = try SQLiteStateStore(directory: state)
        #expect(chmod(state.path, 0o755) == 0)
        #expect(chmod(database, 0o644) == 0)
        try await withTestHTTPServer(eonetAnswer) { server in
            try directory.write(
                "feeds.yaml", "feeds:\n  - {name: planet, type: eonet, api: \(server.baseURL)/api/v3}\n")
            let result = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
            #expect(result.status == 0)
            #expect(
                result.stderr
                    == "monitor: warning: the state \(state.path) could be read by other users: made its directory 0700 "
                    + "and its files 0600\n")
            #expect(Self.mode(state.path) == 0o700)
            #expect(Self.mode(database) == 0o600)
            #expect(Self.mode(database + "-wal") == 0o600)
            #expect(Self.mode(database + "-shm") == 0o600)
            // Said once: the next run finds it private.
            let again = try await MonitorProcess.run(["run", "--once", "--state", "state"], in: directory.url)
            #expect(again.status == 0)
            #expect(again.stderr == "")
        }
    }

    @Test("a state directory that cannot be created says why: a parent that is a file")
    func parentIsAFile() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", Self.feeds)
        let file = try directory.write("file", "not a directory\n")
        let result = try await MonitorProcess.run(["run", "--once", "--state", "file/state"], in: directory.url)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "monitor: error: cannot open the state: cannot create the directory \(file.path)/state: not a directory\n"
        )
    }

    @Test(
        "a state directory that cannot be created says why: a parent that cannot be written",
        .enabled(
            if: MonitorProcess.canRunUnprivileged,
            "skipped: as root, needs /usr/bin/setpriv (util-linux) to drop the override of file modes"))
    func parentReadOnly() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("feeds.yaml", Self.feeds)
        let parent = directory.url.appendingPathComponent("parent").path
        #expect(mkdir(parent, 0o555) == 0)
        defer { chmod(parent, 0o755) }
        let result = try await MonitorProcess.runUnprivileged(
            ["run", "--once", "--state", "parent/state"], in: directory.url)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "monitor: error: cannot open the state: cannot create the directory \(parent)/state: permission denied\n"
        )
    }
}
