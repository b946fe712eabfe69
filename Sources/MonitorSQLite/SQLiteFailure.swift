import Foundation
import GRDB
import MonitorCore

/// What a SQLite or file system error means for the state file at a path, said for people as a ``StateError``: no
/// SQL, no error domains.
enum SQLiteFailure {
    /// Runs `body`, turning a database error into a ``StateError`` about `path`.
    static func wrapping<Value>(_ path: String, _ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw stateError(error, path: path)
        }
    }

    /// Runs `body`, turning a database error into a ``StateError`` about `path`.
    static func wrapping<Value>(_ path: String, _ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw stateError(error, path: path)
        }
    }

    /// What a SQLite error means for the state file at `path`.
    static func stateError(_ error: DatabaseError, path: String) -> StateError {
        switch error.resultCode {
        case .SQLITE_READONLY: StateError("\(path) is read-only")
        case .SQLITE_FULL: StateError("the disk holding \(path) is full")
        case .SQLITE_BUSY, .SQLITE_LOCKED: StateError("\(path) is locked by another process for too long")
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: StateError("\(path) is damaged or is not a monitor state file")
        case .SQLITE_CANTOPEN:
            StateError("cannot open \(path) (check that its directory exists and may be written)")
        case .SQLITE_PERM, .SQLITE_AUTH: StateError("permission denied for \(path)")
        case .SQLITE_IOERR: StateError("input/output error on \(path)")
        // SQLite's own words, without the statement that met them.
        default: StateError("\(path): \(error.message ?? "database error \(error.resultCode.rawValue)")")
        }
    }

    // MARK: - The state directory

    /// The state directory `path` cannot be made or looked at: the system's reason for `code`.
    static func directory(_ path: String, _ code: Int32) -> StateError {
        StateError("cannot create the directory \(path): \(reason(code))")
    }

    /// `path`, named as the state directory, is a file of the kind `mode` says.
    static func notADirectory(_ path: String, _ mode: mode_t) -> StateError {
        let kind = mode & S_IFMT == S_IFREG ? "a file" : fileKind(mode)
        return StateError("\(path) is \(kind), not a directory (--state names the state directory)")
    }

    /// `path` cannot be looked at.
    static func unreadable(_ path: String, _ code: Int32) -> StateError {
        StateError("cannot read \(path): \(reason(code))")
    }

    /// `path` is not a regular file.
    static func notAFile(_ path: String) -> StateError {
        StateError("\(path) is not a file (a directory or a device where the state file should be)")
    }

    /// The database at `path` was written by an earlier version of `monitor` and cannot be brought up to date here.
    static func olderVersion(_ path: String) -> StateError {
        StateError(
            "\(path) was written by an earlier version of monitor and must be brought up to date by a command that may "
                + "write it (`monitor run --once`), but it cannot be written here")
    }

    private static func reason(_ code: Int32) -> String {
        switch code {
        case EACCES, EPERM: "permission denied"
        case ENOSPC: "the disk is full"
        case EROFS: "the file system is read-only"
        case ELOOP: "too many levels of symbolic links (a symbolic link loop?)"
        default: String(cString: strerror(code)).lowercasedFirst
        }
    }
}
