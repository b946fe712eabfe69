import Foundation
import MonitorCore
import MonitorText
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// What a PostgreSQL or connection error means for the state at a URL, said for people as a ``StateError``: the
/// server's own message (which never holds the password) or the system's words for a failed connection, after the
/// URL without its password. A connection that cannot be made, ends, or gets no answer in time, and a server shutting
/// down or starting up, make the state unreachable (``StateError/isUnreachable``).
enum PostgresFailure {
    /// `error` about the database at `url`, as a ``StateError``; a ``StateError`` stays as it is.
    static func stateError(_ error: any Error, url: PostgresURL) -> StateError {
        if let error = error as? StateError { return error }
        if error is CancellationError { return StateError("\(url): cancelled") }
        if let error = error as? PostgresDeadline.Expired {
            switch error.stage {
            case .connecting:
                return .unreachable("cannot connect to \(url): the server did not answer within \(error.deadlineText)")
            case .answering:
                return .unreachable("\(url): the server did not answer within \(error.deadlineText)")
            }
        }
        guard let error = error as? PSQLError else {
            return StateError("\(url): \(TerminalText.sanitized(String(describing: type(of: error))))")
        }
        if let server = error.serverInfo {
            let message = TerminalText.sanitized(server[.message] ?? "error")
            switch server[.sqlState] {
            case "25006": return StateError("\(url) is read-only")
            case "28P01", "28000": return StateError("cannot log in to \(url): \(message)")
            case "3D000": return StateError("cannot open \(url): \(message)")
            case "53100": return StateError("the disk holding \(url) is full")
            // Shutting down, crashed, starting up; a connection exception.
            case "57P01", "57P02", "57P03": return .unreachable("\(url): \(message)")
            case let code? where code.hasPrefix("08"): return .unreachable("\(url): \(message)")
            default: return StateError("\(url): \(message)")
            }
        }
        if error.underlying is NIOSSLError || error.underlying is NIOSSLExtraError {
            return StateError(
                "cannot connect to \(url): the TLS handshake failed (with sslmode=verify-full, the server's certificate "
                    + "must be signed by a trusted authority and name the host)")
        }
        switch error.code {
        case .connectionError:
            return .unreachable("cannot connect to \(url): \(connectionReason(error.underlying))")
        case .serverClosedConnection, .uncleanShutdown:
            return .unreachable("\(url): the server closed the connection")
        case .sslUnsupported:
            return StateError("cannot connect to \(url): the server does not offer TLS (sslmode=require)")
        case .authMechanismRequiresPassword:
            return StateError("cannot log in to \(url): the server asks for a password and the URL has none")
        case .unsupportedAuthMechanism, .saslError:
            return StateError("cannot log in to \(url): the server's authentication method is not supported")
        case .queryCancelled:
            return StateError("\(url): cancelled")
        default:
            return StateError("\(url): \(error.code)")
        }
    }

    /// Whether `error` ended the connection it came on: the connection closed or broke, or the server ended it (an
    /// error of severity FATAL or PANIC). Nothing more can be sent on it.
    static func endsConnection(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        if let severity = error.serverInfo?[.severity] { return severity == "FATAL" || severity == "PANIC" }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown: return true
        default: return false
        }
    }

    /// Why a connection could not be made, in the system's words (`connection refused`).
    private static func connectionReason(_ error: (any Error)?) -> String {
        switch error {
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercasedFirst
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                return "cannot resolve the host name"
            }
            return connectionReason(error.connectionErrors.first?.error)
        case let error as ChannelError:
            if case .connectTimeout = error { return "the connection timed out" }
            return "\(error)"
        case let error?:
            return TerminalText.sanitized("\(error)")
        case nil:
            return "the connection failed"
        }
    }
}
