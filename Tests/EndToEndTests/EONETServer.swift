import LoopbackHTTP
import TestSupport

/// EONET's API as a server on 127.0.0.1 answers it at `{server}/api/v3`: the fixtures' 13 events in their categories.
@Sendable func eonetAnswer(_ request: RecordedRequest) -> TestResponse {
    let origin = "http://\(request.header("Host") ?? "127.0.0.1")"
    let (status, body) = EONETFixtures.answer(origin + request.uri, api: origin + "/api/v3")
    return .json(body, status: status)
}
