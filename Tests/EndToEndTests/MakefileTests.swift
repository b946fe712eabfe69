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

    @Test("`make setup` (what `make run` runs first) installs only the headers of libyaml, SQLite and libxml2 (#34)")
    func setupForRunning() async throws {
        let machine = try Self.bareMachine()
        let made = try await make(["setup"], environment: ["PATH": machine.path])
        #expect(made.status == 0, "\(made.errors)")
        #expect(machine.installs == ["apt-get install -y -qq libyaml-dev libsqlite3-dev libxml2-dev"])
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
                "apt-get install -y -qq libyaml-dev libsqlite3-dev libxml2-dev tmux "
                    + (postgres == true ? "systemd" : "postgresql systemd"),
                "apt-get install -y -qq --no-install-recommends prometheus",
            ])
        let ci = try String(contentsOfFile: "\(packageRoot)/.ci/run", encoding: .utf8)
        #expect(ci.contains("\nmake setup-tests\n"))
    }

    /// A release build takes long on a small machine: `swift` is a stub that says it built and shows the debug
    /// binaries the tests run as the release ones; the rest of the target — the real `install`, `strip`, the
    /// installed `monitor` writing its completions, `make uninstall` — runs for real.
    @Test("`make install` puts monitor-standin beside monitor; the offline demo runs on the copy (#34 item 6)")
    func installWithStandIn() async throws {
        let built = MonitorProcess.executable.deletingLastPathComponent().path
        let machine = try StubPrograms(
            ["swift": #"case "$*" in *--show-bin-path*) echo '\#(built)' ;; esac"#])
        let prefix = try TemporaryDirectory()
        let environment = [
            "PATH": "\(machine.path):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")",
            "HOME": prefix.url.path,
        ]
        let installed = try await make(["install", "PREFIX=\(prefix.url.path)", "DESTDIR="], environment: environment)
        #expect(installed.status == 0, "\(installed.errors)")
        let flags = "build -c release --static-swift-stdlib"
        #expect(
            machine.calls == [
                "swift \(flags) --product monitor", "swift \(flags) --product monitor-standin",
                "swift \(flags) --show-bin-path",
            ])
        let bin = prefix.url.appendingPathComponent("bin").path
        #expect(try FileManager.default.contentsOfDirectory(atPath: bin).sorted() == ["monitor", "monitor-standin"])

        // The demo: the installed stand-in, and the installed monitor polling it twice (the second time all 304s).
        let standIn = try await ListeningProcess(
            "\(bin)/monitor-standin", ["--port", "0", "--eonet-events", "20"])
        defer { standIn.stop() }
        let api = "http://127.0.0.1:\(standIn.port)"
        let demo = try prefix.write(
            "demo.yaml",
            """
            feeds:
              - {name: planet, type: eonet, api: "\(api)/api/v3"}
              - {name: rxswift, type: github, repo: ReactiveX/RxSwift, api: "\(api)"}
            """)
        let state = prefix.url.appendingPathComponent("demo-state").path
        for _ in 0..<2 {
            let run = try await ChildProcess.run(
                "\(bin)/monitor", ["run", "--once", "--format", "json", "--config", demo.path, "--state", state])
            #expect(run.status == 0, "\(String(decoding: run.errors, as: UTF8.self))")
            let feeds = String(decoding: run.output, as: UTF8.self).split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["feed"] as? String
            }
            #expect(feeds.sorted() == ["planet", "rxswift"])
        }

        let removed = try await make(["uninstall", "PREFIX=\(prefix.url.path)", "DESTDIR="], environment: environment)
        #expect(removed.status == 0, "\(removed.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: bin) == [])
    }
}
