/// What `GET {api}/events` answers: `{"title","description","link","events":[…]}`.
struct EONETEventList: Decodable, Sendable {
    /// The events, newest first by their first observation.
    var events: [EONETEvent]
}
