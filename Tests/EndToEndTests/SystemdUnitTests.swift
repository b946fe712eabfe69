import Foundation
import TestSupport
import Testing

/// The package's root, where `examples/` is.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Debian's `systemd` package has it.
private let systemdAnalyze = "/usr/bin/systemd-analyze"

/// Each example unit, the path of `monitor` its `ExecStart=` names, and whether it is a user unit.
private let units: [(name: String, binary: String, user: Bool)] = [
    ("monitor.service", "/usr/local/bin/monitor", false),
    ("monitor-user.service", "%h/.local/bin/monitor", true),
]

@Suite(
    "The example systemd units pass `systemd-analyze verify`",
    .enabled(if: FileManager.default.isExecutableFile(atPath: systemdAnalyze)), .timeLimit(.minutes(5)))
struct SystemdUnitTests {
    /// verify checks that `ExecStart=`'s program exists: a copy of the unit in a temporary directory names the built
    /// `monitor` instead of where the README installs it. A user unit is verified by a user manager, which needs a
    /// runtime directory. An unknown key or a bad value is only a warning: it must print nothing at all.
    @Test("systemd-analyze verify prints nothing and exits 0", arguments: units)
    func verify(name: String, binary: String, user: Bool) async throws {
        let unit = try String(
            contentsOf: packageRoot.appendingPathComponent("examples/systemd/\(name)"), encoding: .utf8)
        #expect(unit.contains("ExecStart=\(binary) run "))
        let directory = try TemporaryDirectory()
        let copy = try directory.write(
            name,
            unit.replacingOccurrences(of: "ExecStart=\(binary)", with: "ExecStart=\(MonitorProcess.executable.path)"))
        let runtime = directory.url.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false)
        let verify = try await ChildProcess.run(
            "/usr/bin/env",
            ["XDG_RUNTIME_DIR=\(runtime.path)", systemdAnalyze] + (user ? ["--user"] : []) + ["verify", copy.path])
        #expect(verify.status == 0)
        #expect(String(decoding: verify.errors, as: UTF8.self) == "")
        #expect(String(decoding: verify.output, as: UTF8.self) == "")
    }
}
