import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program that cannot start, made in a directory of its own, and what `monitor` says of it after
/// "cannot start 'PROGRAM': ": the cases the exec source and the command notifier both tell apart.
package struct UnstartableProgram: Sendable {
    /// Each case by name, for `@Test(arguments:)`.
    package static let cases = [
        "missing file", "directory", "not executable", "missing interpreter", "interpreter line ending in CR",
        "not in PATH", "not executable in PATH",
    ]

    /// The directory holding it.
    package let directory: TemporaryDirectory
    /// The program, as the command's first word.
    package let program: String
    /// The `PATH` to run it with, when it is looked up there.
    package let searchPath: String?
    /// What is said after "cannot start 'PROGRAM': ".
    package let problem: String

    /// Makes the program of case `name` (one of ``cases``).
    package init(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let dir = directory.url.path
        let executable = { (file: String, text: String) throws in
            try directory.write(file, text)
            chmod("\(dir)/\(file)", 0o755)
        }
        self.directory = directory
        var searchPath: String?
        switch name {
        case "missing file":
            (program, problem) = ("\(dir)/no-such-file", "no such file")
        case "directory":
            try FileManager.default.createDirectory(atPath: "\(dir)/bin", withIntermediateDirectories: false)
            (program, problem) = ("\(dir)/bin", "it is a directory")
        case "not executable":
            try directory.write("plain.sh", "#!/bin/sh\necho hi\n")
            (program, problem) = ("\(dir)/plain.sh", "it is not executable (no execute permission)")
        case "missing interpreter":
            try executable("old.py", "#!/usr/bin/no-such-python -u\nprint('hi')\n")
            (program, problem) = ("\(dir)/old.py", "its interpreter '/usr/bin/no-such-python' was not found")
        case "interpreter line ending in CR":
            try executable("dos.sh", "#!/bin/sh\r\necho hi\r\n")
            (program, problem) = ("\(dir)/dos.sh", "its #! line ends with a carriage return (Windows line endings)")
        case "not in PATH":
            searchPath = dir
            (program, problem) = ("no-such-program-here", "not found in PATH")
        case "not executable in PATH":
            try directory.write("tool", "#!/bin/sh\necho hi\n")
            searchPath = dir
            (program, problem) = ("tool", "\(dir)/tool: it is not executable (no execute permission)")
        default:
            fatalError("no case '\(name)'")
        }
        self.searchPath = searchPath
    }

    /// The whole message: "cannot start 'PROGRAM': PROBLEM".
    package var message: String { "cannot start '\(program)': \(problem)" }
}
