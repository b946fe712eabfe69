import AsyncHTTPClient
import Foundation
import MonitorCore
import NIOCore
import NIOHTTP1

/// The core's HTTP seam on AsyncHTTPClient.
public final class HTTPClientTransport: HTTPTransport {
    private let client: HTTPClient

    /// A transport with its own client; call `shutdown()` when done.
    public init(timeout: Duration, concurrency: Int = 8) {
        var configuration = HTTPClient.Configuration()
        // Our own retry logic decides about refused connections; AHC would otherwise retry them silently for
        // the whole connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, concurrency)
        let amount = TimeAmount.milliseconds(timeout.milliseconds)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: amount, read: amount)
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        configuration.httpVersion = .automatic
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes the client's connections.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    public func send(_ request: MonitorCore.HTTPRequest) async throws -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        let deadline = NIODeadline.now() + .milliseconds(request.timeout.milliseconds)
        do {
            let response = try await client.execute(outgoing, deadline: deadline)
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > request.maxBody {
                throw TransportError.bodyTooLarge(limit: request.maxBody)
            }
            let body = try await response.body.collect(upTo: request.maxBody)
            return HTTPResponse(
                status: Int(response.status.code),
                headers: MonitorCore.HTTPHeaders(response.headers.map { ($0.name, $0.value) }),
                body: Array(body.readableBytesView))
        } catch let error as TransportError {
            throw error
        } catch is NIOTooManyBytesError {
            throw TransportError.bodyTooLarge(limit: request.maxBody)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError {
            throw Self.translate(error)
        } catch {
            throw TransportError.connection(Self.describe(error))
        }
    }

    private static func translate(_ error: HTTPClientError) -> TransportError {
        switch error {
        case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout:
            return .timeout
        case .remoteConnectionClosed:
            return .connection("the server closed the connection")
        case .invalidURL, .emptyHost, .emptyScheme:
            return .invalid("invalid URL")
        case .cancelled:
            return .connection("cancelled")
        default:
            return .connection(describe(error))
        }
    }

    /// A short, readable description of a connection failure.
    private static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("nodename nor servname") || text.contains("Name or service not known")
            || text.contains("unknown host")
        {
            return "unknown host"
        }
        return "connection failed (\(TerminalText.sanitized(text).prefix(160)))"
    }
}
