import MonitorCore

/// An in-memory HTTP transport that answers an EONET source as a server holding one events document would:
/// the 13 categories and an extra `bench` category, whose events request is answered with the whole document
/// (so that each event keeps its own categories and counts once), every other category with no events.
struct DocumentTransport: HTTPTransport {
    /// The 13 categories of EONET v3.
    static let categories = [
        "drought", "dustHaze", "earthquakes", "floods", "landslides", "manmade", "seaLakeIce", "severeStorms", "snow",
        "tempExtremes", "volcanoes", "waterColor", "wildfires",
    ]
    /// The category whose request is answered with the document.
    static let documentCategory = "bench"

    /// The events document.
    let document: [UInt8]

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let headers: HTTPHeaders = ["Content-Type": "application/json"]
        if request.url.hasSuffix("/categories") {
            let entries = (Self.categories + [Self.documentCategory]).map { #"{"id":"\#($0)","title":"\#($0)"}"# }
            return HTTPResponse(
                status: 200, headers: headers,
                body: Array(
                    #"{"title":"EONET Event Categories","categories":[\#(entries.joined(separator: ","))]}"#.utf8))
        }
        if request.url.contains("category=\(Self.documentCategory)&") {
            return HTTPResponse(status: 200, headers: headers, body: document)
        }
        return HTTPResponse(status: 200, headers: headers, body: Array(#"{"title":"EONET Events","events":[]}"#.utf8))
    }
}
