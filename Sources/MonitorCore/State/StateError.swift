import Foundation
import GRDB

/// Why the state could not be opened, read or written, said for people: no SQL, no error domains.
package struct StateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, naming the file.
    package var message: String
    /// Whether the state's database could not be reached or did not answer (no connection, a connection ended, no
    /// answer within the deadline): no fault of any feed, and over once the database answers again.
    package var isUnreachable: Bool

    /// An error saying `message`.
    package init(_ message: String) {
        self.message = message
        isUnreachable = false
    }

    /// The state's database could not be reached or did not answer: `message` says which and why.
    package static func unreachable(_ message: String) -> StateError {
        var error = StateError(message)
        error.isUnreachable = true
        return error
    }

    package var description: String { message }

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

    /// The database at `path` was written by another version of `monitor`.
    static func unknownVersion(_ path: String) -> StateError {
        StateError("\(path) was written by another version of monitor and cannot be read by this one")
    }

    /// The database at `path` was written by an earlier version of `monitor` and cannot be brought up to date here.
    static func olderVersion(_ path: String) -> StateError {
        StateError(
            "\(path) was written by an earlier version of monitor and must be brought up to date by a command that may "
                + "write it (`monitor run --once`), but it cannot be written here")
    }

    /// Runs `body`, turning a database error into a ``StateError`` about `path`.
    static func wrapping<Value>(_ path: String, _ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StateError(path: path, error)
        }
    }

    /// Runs `body`, turning a database error into a ``StateError`` about `path`.
    static func wrapping<Value>(_ path: String, _ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw StateError(path: path, error)
        }
    }

    /// What a SQLite error means for the state file at `path`.
    init(path: String, _ error: DatabaseError) {
        switch error.resultCode {
        case .SQLITE_READONLY:
            self.init("\(path) is read-only")
        case .SQLITE_FULL:
            self.init("the disk holding \(path) is full")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self.init("\(path) is locked by another process for too long")
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            self.init("\(path) is damaged or is not a monitor state file")
        case .SQLITE_CANTOPEN:
            self.init("cannot open \(path) (check that its directory exists and may be written)")
        case .SQLITE_PERM, .SQLITE_AUTH:
            self.init("permission denied for \(path)")
        case .SQLITE_IOERR:
            self.init("input/output error on \(path)")
        default:
            // SQLite's own words, without the statement that met them.
            self.init("\(path): \(error.message ?? "database error \(error.resultCode.rawValue)")")
        }
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
