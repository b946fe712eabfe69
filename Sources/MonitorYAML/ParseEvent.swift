/// A libyaml event copied into Swift values, so nothing of libyaml outlives the call that produced it.
struct ParseEvent {
    /// The kind of event and its payload.
    enum Kind {
        case streamStart
        case streamEnd
        case documentStart
        case documentEnd
        case alias(String)
        case scalar(String, ScalarStyle)
        case sequenceStart
        case sequenceEnd
        case mappingStart
        case mappingEnd
    }

    var kind: Kind
    /// The anchor of a scalar or collection start.
    var anchor: String?
    /// The resolved tag, nil for none or the non-specific `!`.
    var tag: String?
    /// Where the node starts, following the rules documented on `Node.mark`.
    var mark: Mark
}
