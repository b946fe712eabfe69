import Foundation
import MonitorCore
import MonitorText

/// Why an external program could not be started, from what is at its path: the system says "not found" alike for a
/// missing file, a directory, a file without execute permission and a script whose interpreter is missing.
package enum ProgramPath {
    /// The directories searched when the program's environment has no `PATH`.
    static let defaultSearchPath = "/usr/bin:/bin"

    /// Why `program` — a path when it holds a `/` (a relative one from `directory`), else a name looked up in the
    /// directories of `searchPath` (a `PATH` value) — cannot be started, shown after "cannot start 'PROGRAM': ", e.g.
    /// `no such file`, `/etc/monitor/notify.sh: no such file`, `not found in PATH`.
    package static func problem(_ program: String, searchPath: String?, directory: String?) -> String {
        switch lookUp(program, searchPath: searchPath, directory: directory) {
        case .problem(let problem): problem
        case .found where program.contains("/"): "the system could not run it"
        case .found(let path): "\(TerminalText.sanitized(path)): the system could not run it"
        }
    }

    /// Where `program` is, as ``problem(_:searchPath:directory:)`` looks it up, or what keeps it from being started.
    enum Lookup: Sendable, Hashable {
        /// The file that would be run, and nothing seen keeps it from running.
        case found(String)
        /// Why it cannot be started (`no such file`, `not found in PATH`…).
        case problem(String)
    }

    /// Looks `program` up the way it is run: a path when it holds a `/` (a relative one from `directory`), else a
    /// name in the directories of `searchPath` (a `PATH` value); the file found must be a regular, executable file
    /// with its interpreter.
    static func lookUp(_ program: String, searchPath: String?, directory: String?) -> Lookup {
        if program.contains("/") {
            let path = resolved(program, in: directory)
            guard let wrong = problem(at: path) else { return .found(path) }
            return .problem(path == program ? wrong : "\(TerminalText.sanitized(path)): \(wrong)")
        }
        let directories = (searchPath ?? defaultSearchPath).split(separator: ":").filter { $0.hasPrefix("/") }
        for directory in directories {
            let candidate = directory.hasSuffix("/") ? "\(directory)\(program)" : "\(directory)/\(program)"
            var status = stat()
            guard stat(candidate, &status) == 0 else { continue }
            let shown = TerminalText.sanitized(candidate)
            return problem(at: candidate).map { .problem("\(shown): \($0)") } ?? .found(candidate)
        }
        return .problem("not found in PATH")
    }

    /// `program` as it is started from `directory` (the feeds file's; nil: the current one): a relative path (one
    /// holding a `/`) joined to it, a name or an absolute path as it is.
    package static func resolved(_ program: String, in directory: String?) -> String {
        guard let directory, program.contains("/"), !program.hasPrefix("/") else { return program }
        var relative = Substring(program)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2).drop { $0 == "/" } }
        return directory.hasSuffix("/") ? "\(directory)\(relative)" : "\(directory)/\(relative)"
    }

    /// `validate --online`'s check of `program` (looked up as ``lookUp(_:searchPath:directory:)`` does): where it is,
    /// or why it cannot be started, with what `redaction` hides hidden (an `env` value echoed in a path).
    package static func check(_ program: String, searchPath: String?, directory: String?, redaction: Redaction)
        -> OnlineCheck
    {
        let shown = "'\(TerminalText.sanitized(program))'"
        switch lookUp(program, searchPath: searchPath, directory: directory) {
        case .found(let path) where path == program: return .ok("program \(shown) is executable")
        case .found(let path): return .ok("program \(shown) is \(redaction.message(path, limit: 300))")
        case .problem(let problem): return .wrong("cannot start \(shown): \(redaction.message(problem, limit: 300))")
        }
    }

    /// What is wrong with the file at `path`, or nil when nothing that can be seen is.
    private static func problem(at path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            switch errno {
            case ENOENT: return "no such file"
            case ENOTDIR: return "a part of its path is not a directory"
            default: return String(cString: strerror(errno)).lowercased()
            }
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return "it is a directory"
        case S_IFREG: break
        default: return "it is not a regular file"
        }
        guard access(path, X_OK) == 0 else { return "it is not executable (no execute permission)" }
        if let interpreter = interpreter(of: path), access(interpreter, X_OK) != 0 {
            if interpreter.hasSuffix("\r") { return "its #! line ends with a carriage return (Windows line endings)" }
            return "its interpreter '\(TerminalText.sanitized(interpreter))' was not found"
        }
        return nil
    }

    /// The interpreter a script names on its first line (`#!/usr/bin/python3 -u` names `/usr/bin/python3`).
    private static func interpreter(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 256)) ?? Data()
        guard head.starts(with: Array("#!".utf8)) else { return nil }
        let line = head.dropFirst(2).prefix { $0 != UInt8(ascii: "\n") }
        // Only spaces and tabs separate it from its argument: a carriage return (a file saved with CRLF) is part of it.
        let name = String(decoding: line, as: UTF8.self).drop { $0 == " " || $0 == "\t" }
            .prefix { $0 != " " && $0 != "\t" }
        return name.isEmpty ? nil : String(name)
    }
}
