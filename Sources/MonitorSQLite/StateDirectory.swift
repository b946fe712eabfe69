import Foundation
import MonitorCore

/// The state directory kept private: what it holds (every feed's items, each notifier's last error) is for its owner
/// alone, and a state that someone else could change could make `monitor` send what they wrote.
///
/// A directory created here is 0700 (its missing parents too, as the XDG base directory specification asks) and a
/// database file 0600, whatever the umask; SQLite gives its `-wal`, `-shm` and `-journal` files the mode of the
/// database file. An existing directory that another user owns, or that its group or others may write, is refused:
/// what it holds may have been changed already, which no change of mode undoes.
enum StateDirectory {
    /// The bits of a mode that give anything to the group or to others.
    static let shared: mode_t = 0o077

    /// Creates `path` 0700 with its missing parents, or checks an existing one.
    static func prepare(_ path: String) throws {
        var status = stat()
        if stat(path, &status) != 0 {
            let code = errno
            guard code == ENOENT else { throw SQLiteFailure.directory(path, code) }
            if try create(path) { return }
            // Made meanwhile by another process: checked as any existing one.
            guard stat(path, &status) == 0 else { throw SQLiteFailure.directory(path, errno) }
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw SQLiteFailure.notADirectory(path, status.st_mode) }
        if status.st_uid != geteuid() && status.st_uid != 0 {
            throw StateError(
                "\(path) belongs to another user (uid \(status.st_uid)), who could change the state it holds: "
                    + "use a state directory of your own (--state)")
        }
        if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            let mode = String(format: "%04o", status.st_mode & 0o7777)
            throw StateError(
                "\(path) may be written by other users (mode \(mode)), who could change the state it holds: "
                    + "make it private with `chmod 700 \(path)`")
        }
    }

    /// Creates the database file `path` 0600 when it does not exist yet, so that SQLite neither creates it with the
    /// umask's mode nor gives that mode to its other files; returns whether it was created. An existing one must be
    /// a regular file.
    static func createDatabase(_ path: String) throws -> Bool {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            var status = stat()
            if errno == EEXIST, stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
                throw SQLiteFailure.notAFile(path)
            }
            // Left to SQLite, which says why, when it cannot be made here.
            return false
        }
        defer { close(descriptor) }
        // The umask may have taken bits away from 0600.
        _ = fchmod(descriptor, 0o600)
        return true
    }

    /// Takes away from the directory and the database's files what they give the group and others (a state written
    /// by an earlier version, or under a permissive umask); returns whether anything changed.
    static func makePrivate(_ directory: String, database: String) -> Bool {
        var changed = false
        for (path, kind) in [(directory, S_IFDIR)] + ["", "-wal", "-shm", "-journal"].map({ (database + $0, S_IFREG) })
        {
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == kind, status.st_uid == geteuid(),
                status.st_mode & shared != 0
            else { continue }
            if chmod(path, status.st_mode & 0o700) == 0 { changed = true }
        }
        return changed
    }

    /// `mkdir -p`, every directory it makes 0700 whatever the umask; false when `path` was there already.
    private static func create(_ path: String) throws -> Bool {
        if mkdir(path, 0o700) != 0 {
            let code = errno
            switch code {
            case EEXIST:
                return false
            case ENOENT:
                let parent = (path as NSString).deletingLastPathComponent
                guard !parent.isEmpty, parent != path else { throw SQLiteFailure.directory(path, code) }
                _ = try create(parent)
                guard mkdir(path, 0o700) == 0 else {
                    if errno == EEXIST { return false }
                    throw SQLiteFailure.directory(path, errno)
                }
            default:
                throw SQLiteFailure.directory(path, code)
            }
        }
        _ = chmod(path, 0o700)
        return true
    }
}
