import AsyncHTTPClient
import Foundation
import MonitorConcurrency
import MonitorCore
import MonitorText
import NIOCore
import NIOHTTP1

/// The core's HTTP seam on AsyncHTTPClient.
///
/// A request's `timeout` bounds the whole exchange, from sending it to the last byte of the body: AsyncHTTPClient's
/// deadline covers the response head only, so the body is read under a timer of our own that cancels the request
/// (and closes its connection) when it fires. No error this transport throws is built from a request header's
/// value: a header that HTTP cannot carry is refused by name, and AsyncHTTPClient's errors become sentences.
package final class HTTPClientTransport: HTTPTransport {
    private let client: HTTPClient

    /// A transport with its own client; call `shutdown()` when done. Without `followRedirects` a redirect is
    /// answered as it comes (the notifiers': a webhook's URL and signature never go to another URL).
    package init(timeout: Duration, concurrency: Int = 8, followRedirects: Bool = true) {
        var configuration = HTTPClient.Configuration()
        // Our own retry logic decides about refused connections; AHC would otherwise retry them silently for
        // the whole connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, concurrency)
        let amount = TimeAmount.milliseconds(timeout.milliseconds)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: amount, read: amount)
        configuration.redirectConfiguration =
            followRedirects ? .follow(max: Self.maximumRedirects, allowCycles: false) : .disallow
        configuration.httpVersion = .automatic
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// How many redirects a request follows.
    static let maximumRedirects = 5

    /// Sends one request to a loopback port that refuses it (``RefusingPort``: nothing leaves the host), so that the
    /// runtime's one-time work on the client's request path is done while the state opens, not before the first
    /// poll's request. Its failure is expected and not reported. Never throws, returns within a second, and at once
    /// when the task is cancelled.
    package func prepare() async {
        guard let port = RefusingPort() else { return }
        defer { port.close() }
        let request = HTTPClientRequest(url: "http://127.0.0.1:\(port.number)/")
        _ = try? await client.execute(request, deadline: .now() + .seconds(1))
    }

    /// Closes the client's connections.
    package func shutdown() async throws {
        try await client.shutdown()
    }

    package func send(_ request: MonitorCore.HTTPRequest) async throws -> HTTPResponse {
        for field in request.headers {
            if let problem = Self.problem(name: field.name, value: field.value) {
                throw TransportError.invalid(problem)
            }
        }
        do {
            // Cancelling the exchange cancels its request and closes the connection; it is waited for.
            return try await withDeadline(
                request.timeout, orThrow: TransportError.timeout, sleep: { try await self.sleep(for: $0) }
            ) { try await self.exchange(request) }
        } catch let error as TransportError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError {
            if error == .cancelled, Task.isCancelled { throw CancellationError() }
            throw Self.translate(error)
        } catch {
            throw TransportError.connection(Self.describe(error, request: request))
        }
    }

    /// Returns after `duration`, or throws `CancellationError` as soon as the task is cancelled.
    private func sleep(for duration: Duration) async throws {
        try await Self.wait(for: client.eventLoopGroup.next().scheduleTask(in: .milliseconds(duration.milliseconds)) {})
    }

    /// Waits for `timer`, a task scheduled on an event loop; cancelled, throws `CancellationError` and
    /// cancels `timer`, which its event loop then drops at once. (`Task.sleep`, cancelled, returns at once too but
    /// keeps its task and timer until the deadline passes, swiftlang/swift#60441: as a request's timer it would hold
    /// memory for the whole `timeout` after each answer.)
    static func wait(for timer: Scheduled<Void>) async throws {
        do {
            try await withTaskCancellationHandler {
                try await timer.futureResult.get()
            } onCancel: {
                timer.cancel()
            }
        } catch {
            // Only a cancelled timer fails: the client's event loops are the process's own (`.singleton`), never shut down.
            throw CancellationError()
        }
    }

    /// Sends `outgoing` and reads its whole body.
    private func exchange(_ request: MonitorCore.HTTPRequest) async throws -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        if !request.body.isEmpty {
            outgoing.body = .bytes(ByteBuffer(bytes: request.body))
        }
        // AHC's own deadline only bounds the head, a little after our timer so that ours decides.
        let deadline = NIODeadline.now() + .milliseconds(request.timeout.milliseconds + 1000)
        let response = try await client.execute(outgoing, deadline: deadline)
        if request.truncatesBody {
            var body: [UInt8] = []
            for try await chunk in response.body {
                body += chunk.readableBytesView.prefix(request.maxBody - body.count)
                if body.count >= request.maxBody { break }
            }
            return HTTPResponse(
                status: Int(response.status.code),
                headers: MonitorCore.HTTPHeaders(response.headers.map { ($0.name, $0.value) }), body: body)
        }
        let length = response.headers.first(name: "Content-Length").flatMap(Int.init)
        if let length, length > request.maxBody {
            throw TransportError.bodyTooLarge(limit: request.maxBody)
        }
        // Each chunk is copied as it arrives into an array the size the server announced: once, and not into a
        // buffer that grows by copies and is copied again whole after the last byte (4 MB for EONET's wildfires).
        var body: [UInt8] = []
        body.reserveCapacity(max(0, length ?? 0))
        for try await chunk in response.body {
            guard chunk.readableBytes <= request.maxBody - body.count else {
                throw TransportError.bodyTooLarge(limit: request.maxBody)
            }
            body += chunk.readableBytesView
        }
        return HTTPResponse(
            status: Int(response.status.code),
            headers: MonitorCore.HTTPHeaders(response.headers.map { ($0.name, $0.value) }), body: body)
    }

    /// Why a header field cannot be sent, naming the field but never showing its value; nil when it can.
    static func problem(name: String, value: String) -> String? {
        let token = Set("!#$%&'*+-.^_`|~".unicodeScalars)
        let shownName = TerminalText.sanitized(String(name.prefix(60)))
        if name.isEmpty
            || !name.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic
                        || ("0"..."9").contains($0) || token.contains($0))
            })
        {
            return "the request header name '\(shownName)' is not a valid HTTP header name"
        }
        // RFC 9110: visible characters, spaces and tabs; no CR, LF, NUL or other control character.
        if value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) {
            return "the value of the request header '\(shownName)' contains a control character (not shown)"
        }
        return nil
    }

    /// A sentence for an AsyncHTTPClient error; never its description, which can carry header values.
    static func translate(_ error: HTTPClientError) -> TransportError {
        switch error {
        case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout,
            .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return .timeout
        case .remoteConnectionClosed:
            return .connection("the server closed the connection")
        case .invalidURL, .emptyHost, .emptyScheme:
            return .invalid("invalid URL")
        case .cancelled:
            return .connection("the request was cancelled")
        case .redirectCycleDetected:
            return .connection("the server's redirects lead in a circle")
        case .redirectLimitReached:
            return .connection("the server redirected more than \(maximumRedirects) times")
        case .proxyAuthenticationRequired:
            return .connection("the proxy asks for authentication")
        case .invalidProxyResponse:
            return .connection("the proxy's answer is not valid")
        case .bodyLengthMismatch, .contentLengthMissing, .chunkedSpecifiedMultipleTimes,
            .identityCodingIncorrectlyPresent, .incompatibleHeaders, .httpEndReceivedAfterHeadWith1xx:
            return .connection("the server's answer is not valid HTTP")
        case .uncleanShutdown:
            return .connection("the connection ended before the answer was complete")
        default:
            break
        }
        // The cases with a payload (header names and values, a scheme) are told apart by their code alone.
        let code = codeName(of: error)
        switch code {
        case "invalidHeaderFieldValues":
            return .invalid("a request header value contains a character HTTP does not allow (not shown)")
        case "invalidHeaderFieldNames":
            return .invalid("a request header name contains a character HTTP does not allow")
        case "unsupportedScheme":
            return .invalid("the URL's scheme is not http or https")
        case "serverOfferedUnsupportedApplicationProtocol":
            return .connection("the server offered a protocol other than HTTP/1.1 and HTTP/2")
        default:
            return .connection("the HTTP client failed (\(words(code)))")
        }
    }

    /// `redirectCycleDetected` of `HTTPClientError.redirectCycleDetected(…)`: the code, without any payload.
    static func codeName(of error: HTTPClientError) -> String {
        let text = String(describing: error)
        let name = text.hasPrefix("HTTPClientError.") ? text.dropFirst("HTTPClientError.".count) : Substring(text)
        return String(name.prefix { $0.isLetter || $0.isNumber })
    }

    /// `some code` of `someCode`.
    static func words(_ code: String) -> String {
        var text = ""
        for character in code {
            if character.isUppercase, !text.isEmpty { text.append(" ") }
            text.append(character.lowercased())
        }
        return text
    }

    /// A short, readable description of a connection failure, without any of the request's header values.
    static func describe(_ error: any Error, request: MonitorCore.HTTPRequest) -> String {
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("nodename nor servname") || text.contains("Name or service not known")
            || text.contains("unknown host")
        {
            return "unknown host"
        }
        if text.contains("Connection reset by peer") { return "the server reset the connection" }
        if text.contains("Broken pipe") { return "the server closed the connection" }
        if text.contains("Network is unreachable") || text.contains("No route to host") {
            return "the server cannot be reached"
        }
        if text.contains("certificate") || text.contains("Certificate") {
            return "the server's TLS certificate is not trusted"
        }
        if text.contains("NIOSSL") || text.contains("handshakeFailed") || text.contains("BoringSSL") {
            return "the TLS handshake failed"
        }
        // Never shown: the URL after the host (a webhook's is a secret, a feed's may carry a token) and header values.
        let redaction = Redaction(url: request.url, values: request.headers.map(\.value))
        return "connection failed (\(redaction.message(text, limit: 160)))"
    }
}
