import Foundation
import Logging
import MonitorConcurrency
import PostgresNIO
import TestSupport
import Testing

@testable import MonitorCore
@testable import MonitorPostgres

/// A real PostgreSQL server for the tests: Debian's `initdb` into a temporary directory, started with `pg_ctl start -w`
/// (which returns when the server accepts connections) on 127.0.0.1 and a free port, its socket in that directory.
///
/// One server serves the whole test process, each test in a database of its own (``makeDatabase()``). As root
/// (which `initdb` refuses to be), it runs as `nobody` through `setpriv`. A shell that started it waits on a pipe
/// from the test process: when the test process ends, however it ends, the pipe closes and the shell stops the
/// server and removes its directory.
package final class PostgresServer: Sendable {
    /// The user the tests log in as.
    package static let user = "monitor"
    /// Its password.
    package static let password = "monitor-test-secret"

    /// The port it listens on, on 127.0.0.1.
    package let port: Int
    /// Whether it offers TLS (with a self-signed certificate made at its start; `openssl` makes it).
    package let offersTLS: Bool
    /// The pipe whose end stops the server: held open for the life of the test process.
    private let lifeline: FileHandle
    /// The reading ends of the shell's output and errors, open for the life of the test process too, so that what
    /// it says while stopping the server never meets a closed pipe.
    private let outputs: [FileHandle]
    private let counter = Watched(0)

    /// The directory of Debian's PostgreSQL programs (`/usr/lib/postgresql/VERSION/bin`, the latest), nil when
    /// PostgreSQL is not installed.
    package static let binaries: URL? = {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return
            versions
            .compactMap { version in Int(version).map { ($0, root.appendingPathComponent("\(version)/bin")) } }
            .filter { FileManager.default.isExecutableFile(atPath: $0.1.appendingPathComponent("initdb").path) }
            .max { $0.0 < $1.0 }?.1
    }()

    /// Why the tests against PostgreSQL cannot run here, nil when they can.
    package static var unavailable: String? {
        if binaries == nil {
            return
                "skipped: PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; scripts/setup installs it)"
        }
        if getuid() == 0, !FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
            return "skipped: as root, running PostgreSQL needs /usr/bin/setpriv (util-linux)"
        }
        return nil
    }

    /// The server of this test process, started by the first caller.
    package static func shared() async throws -> PostgresServer {
        try await starting.value
    }

    /// The server of this test process for a test that needs it; without PostgreSQL, the test (case) is cancelled,
    /// shown as skipped, and says why on standard error.
    package static func forTest() async throws -> PostgresServer {
        if let reason = unavailable {
            FileHandle.standardError.write(Data("⚠️ \(reason)\n".utf8))
            try Test.cancel(Comment(rawValue: reason))
        }
        return try await shared()
    }

    private static let starting = Task { try await PostgresServer.start() }

    /// Starts a server, again on another port when something took the free port before PostgreSQL bound it (the
    /// port is free when chosen, not reserved), at most 5 times.
    private static func start() async throws -> PostgresServer {
        var attempt = 1
        while true {
            do {
                return try await PostgresServer()
            } catch let error as ServerError where attempt < 5 && error.description.contains("Address already in use") {
                attempt += 1
            }
        }
    }

    private init() async throws {
        guard let binaries = Self.binaries else { throw ServerError(description: Self.unavailable ?? "") }
        let asRoot = getuid() == 0
        // As root, in /tmp itself, whose sticky bit lets `nobody` remove the directory it owns when it is done.
        let parent = asRoot ? URL(fileURLWithPath: "/tmp") : FileManager.default.temporaryDirectory
        let directory = parent.appendingPathComponent("monitor-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let passwordFile = directory.appendingPathComponent("password")
        try Data((Self.password + "\n").utf8).write(to: passwordFile)
        if asRoot {
            for path in [directory.path, passwordFile.path] {
                guard chown(path, 65534, 65534) == 0 else {
                    throw ServerError(description: "cannot give \(path) to nobody: \(String(cString: strerror(errno)))")
                }
            }
        }
        port = try Self.freePort()
        let script = """
            set -e
            "$1/initdb" -D "$2/data" -U \(Self.user) --pwfile="$2/password" --auth-local=trust \
                --auth-host=scram-sha-256 -E UTF8 --locale=C >"$2/initdb.log" 2>&1 || { cat "$2/initdb.log" >&2; exit 1; }
            tls=
            if command -v openssl >/dev/null 2>&1 && openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
                -subj /CN=monitor-test -keyout "$2/server.key" -out "$2/server.crt" >/dev/null 2>&1; then
                chmod 600 "$2/server.key"
                tls="-c ssl=on -c ssl_cert_file=$2/server.crt -c ssl_key_file=$2/server.key"
            fi
            "$1/pg_ctl" -D "$2/data" -l "$2/server.log" -w -s \
                -o "-p $3 -k $2 -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off $tls" \
                start || { cat "$2/server.log" >&2; rm -rf "$2"; exit 1; }
            [ -n "$tls" ] && echo tls || echo plain
            echo ready
            set +e
            read line
            "$1/pg_ctl" -D "$2/data" -m fast -w -s stop
            rm -rf "$2"
            """
        let arguments = ["-c", script, "sh", binaries.path, directory.path, "\(port)"]
        let program = asRoot ? "/usr/bin/setpriv" : "/bin/sh"
        let programArguments =
            asRoot ? ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/bin/sh"] + arguments : arguments
        let input = try ChildProcess.pipe()
        let output = try ChildProcess.pipe()
        let outputHandle = FileHandle(fileDescriptor: output.read, closeOnDealloc: true)
        let errors = try ChildProcess.pipe()
        let errorsHandle = FileHandle(fileDescriptor: errors.read, closeOnDealloc: true)
        lifeline = FileHandle(fileDescriptor: input.write, closeOnDealloc: true)
        outputs = [outputHandle, errorsHandle]
        _ = try await ChildProcess.start(
            program, programArguments, in: URL(fileURLWithPath: "/"), input: input.read, output: output.write,
            error: errors.write)
        // `tls` or `plain` once `pg_ctl start -w` returned, then `ready`: the server accepts connections.
        let lines = await offThePool {
            var said = Data()
            while said.filter({ $0 == UInt8(ascii: "\n") }).count < 2 {
                let byte = outputHandle.readData(ofLength: 1)
                if byte.isEmpty { break }
                said.append(byte)
            }
            return String(decoding: said, as: UTF8.self)
        }
        offersTLS = lines == "tls\nready\n"
        guard offersTLS || lines == "plain\nready\n" else {
            let message = await offThePool {
                String(decoding: errorsHandle.readDataToEndOfFile(), as: UTF8.self)
            }
            throw ServerError(description: "PostgreSQL did not start: \(message)")
        }
    }

    /// A port on 127.0.0.1 that nothing listens on now.
    package static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ServerError(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw ServerError(description: "bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The URL of database `database` on this server, as `user` with `password`.
    package func url(database: String, user: String = PostgresServer.user, password: String? = PostgresServer.password)
        -> PostgresURL
    {
        PostgresURL(user: user, password: password, host: "127.0.0.1", port: port, database: database, tls: .disable)
    }

    /// `url` as text, with its password: what a user passes to `--state` (TLS as by default: preferred, which this
    /// server does not offer).
    package func text(of url: PostgresURL) -> String {
        let password = url.password.map {
            ":" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0)
        }
        return "postgres://\(url.user)\(password ?? "")@\(url.host):\(url.port)/\(url.database)"
    }

    /// A new, empty database, and its URL.
    package func makeDatabase() async throws -> PostgresURL {
        let name = "test_\(counter.update { $0 += 1; return $0 })_\(UUID().uuidString.prefix(8).lowercased())"
        try await execute("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Runs `sql` as the test user on the database `postgres`.
    package func execute(_ sql: String, database: String = "postgres") async throws {
        let configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: port, username: Self.user, password: Self.password, database: database,
            tls: .disable)
        let connection = try await PostgresConnection.connect(
            configuration: configuration, id: 0, logger: Logger(label: "test-postgres"))
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test-postgres"))
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// Runs `sql` on `database`, after the statements `setup` on the same connection, and returns the first column of
    /// each row, as text.
    package func strings(_ sql: String, database: String, setup: [String] = []) async throws -> [String] {
        let configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: port, username: Self.user, password: Self.password, database: database,
            tls: .disable)
        let logger = Logger(label: "test-postgres")
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        var values: [String] = []
        do {
            for statement in setup { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            for try await (value) in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
                .decode(String.self)
            {
                values.append(value)
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        return values
    }

    /// The server could not be started.
    package struct ServerError: Error, CustomStringConvertible {
        /// Why.
        package var description: String
    }
}
