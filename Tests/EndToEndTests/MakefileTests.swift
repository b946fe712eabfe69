import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The package's root, where the Makefile is.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// A directory of stand-in programs, each a shell script that appends its name and arguments to `calls` beside them
/// (then does what `body` says, else exits 0), and links to the real programs named in `real`.
private struct StubPrograms {
    let directory: TemporaryDirectory
    var path: String { directory.url.path }

    init(_ stubs: [String: String], real: [String] = []) throws {
        directory = try TemporaryDirectory()
        let log = directory.url.appendingPathComponent("calls").path
        for (name, body) in stubs {
            try directory.write(name, "#!/bin/sh\necho \"${0##*/} $*\" >> '\(log)'\n\(body)\n")
            chmod("\(path)/\(name)", 0o755)
        }
        for name in real {
            let found = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
                .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            try FileManager.default.createSymbolicLink(atPath: "\(path)/\(name)", withDestinationPath: found ?? name)
        }
    }

    /// The calls made so far, one line each.
    var calls: [String] {
        ((try? directory.read("calls")) ?? "").split(separator: "\n").map(String.init)
    }

    /// The calls that install something: `apt-get install`, `pip install`.
    var installs: [String] {
        calls.filter { $0.hasPrefix("apt-get install") || $0.hasPrefix("python3 -m pip install") }
    }
}

/// `make TARGET…` in the package's root with `environment` as its whole environment.
private func make(_ arguments: [String], environment: [String: String]) async throws -> (status: Int32, errors: String)
{
    let result = try await ChildProcess.run(
        "/usr/bin/env",
        ["-i"] + environment.map { "\($0)=\($1)" } + ["make", "-C", packageRoot, "--no-print-directory"] + arguments)
    return (result.status, String(decoding: result.errors, as: UTF8.self))
}

@Suite("The Makefile's setup and install targets, run by make", .timeLimit(.minutes(5)))
struct MakefileTests {
    /// As root on a Debian machine where nothing is installed: pkg-config finds no library, python has no
    /// prometheus_client, and tmux, systemd-analyze and Prometheus are not on the PATH (only the stubs and make are).
    private static func bareMachine() throws -> StubPrograms {
        let calls = ["apt-get", "tee", "chmod", "rm", "systemctl", "swift"]
        var stubs = Dictionary(uniqueKeysWithValues: calls.map { ($0, "") })
        stubs["pkg-config"] = "exit 1"
        stubs["id"] = "echo 0"
        stubs["uname"] = "echo Linux"
        stubs["python3"] = #"[ "$1" = -c ] && exit 1; exit 0"#
        return try StubPrograms(stubs, real: ["make", "bash"])
    }

    @Test("`make setup` (what `make run` runs first) installs only libyaml's and SQLite's headers (#34 item 5)")
    func setupForRunning() async throws {
        let machine = try Self.bareMachine()
        let made = try await make(["setup"], environment: ["PATH": machine.path])
        #expect(made.status == 0, "\(made.errors)")
        #expect(machine.installs == ["apt-get install -y -qq libyaml-dev libsqlite3-dev"])
        let makefile = try String(contentsOfFile: "\(packageRoot)/Makefile", encoding: .utf8)
        #expect(makefile.contains("\nrun: setup\n"))
        #expect(makefile.contains("\ntest: setup-tests\n"))
    }

    @Test("`make setup-tests` (what `make test` and CI run first) installs what the tests drive too (#34 item 5)")
    func setupForTests() async throws {
        let machine = try Self.bareMachine()
        let made = try await make(["setup-tests"], environment: ["PATH": machine.path])
        #expect(made.status == 0, "\(made.errors)")
        // This machine's PostgreSQL is found where Debian puts it, outside the PATH.
        let postgres = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.contains {
            FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb")
        }
        #expect(
            machine.installs == [
                "python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "
                    + "prometheus_client>=0.20,<1",
                "apt-get install -y -qq libyaml-dev libsqlite3-dev tmux "
                    + (postgres == true ? "systemd" : "postgresql systemd"),
                "apt-get install -y -qq --no-install-recommends prometheus",
            ])
        let ci = try String(contentsOfFile: "\(packageRoot)/.ci/run", encoding: .utf8)
        #expect(ci.contains("\nmake setup-tests\n"))
    }
}
