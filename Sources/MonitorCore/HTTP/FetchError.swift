import Foundation
import MonitorText

/// Why a request of a poll failed, in words for people.
package struct FetchError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    package enum Reason: Sendable, Hashable {
        /// The server answered with an error status; `message` is what it said, when short and readable.
        case status(Int, message: String?)
        /// The server's rate limit is exhausted, or it asked to wait longer than a few seconds.
        case rateLimited(until: Date, detail: String)
        /// No response: timeout, connection failure, oversize body.
        case transport(TransportError)
        /// The server answered 304 Not Modified to a request that sent no validator: nothing was fetched.
        case unrequestedNotModified
    }

    var url: String
    /// What went wrong.
    package var reason: Reason
    /// How many times the request was sent.
    var attempts: Int
    /// The time limit that applied, for the message of a timeout.
    var timeout: Duration

    /// Whether a retry later in the same poll could succeed.
    package var isTransient: Bool {
        switch reason {
        case .status(let code, _): code >= 500 || code == 429
        case .transport(.timeout), .transport(.connection): true
        default: false
        }
    }

    package var description: String {
        let tries = attempts > 1 ? " (after \(attempts) attempts)" : ""
        switch reason {
        case .status(let code, let message):
            let said = message.map { ": \($0)" } ?? ""
            let phrase = HTTPStatus.reason(code).isEmpty ? "" : " \(HTTPStatus.reason(code))"
            return "GET \(url): HTTP \(code)\(phrase)\(said)\(tries)"
        case .rateLimited(let until, let detail):
            return "GET \(url): \(detail); not polled again before \(UTCTime.full(until))"
        case .transport(.timeout):
            return "GET \(url): timed out after \(DurationFormat.string(timeout))\(tries)"
        case .transport(.connection(let detail)):
            return "GET \(url): \(detail)\(tries)"
        case .transport(.bodyTooLarge(let limit)):
            return "GET \(url): the response is larger than \(ByteSizeFormat.string(limit)) (settings.max_body)"
        case .transport(.invalid(let detail)):
            return "GET \(url): \(detail)"
        case .unrequestedNotModified:
            return "GET \(url): answered 304 Not Modified to a request without validators"
        }
    }
}

/// Reason phrases of the status codes a feed meets.
enum HTTPStatus {
    /// "Not Found" for 404; "" for a code without a phrase here.
    static func reason(_ code: Int) -> String {
        switch code {
        case 200: "OK"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
