internal import CLibYAML

/// Pulls events from a libyaml parser and converts each into a `ParseEvent`, freeing the libyaml event at once.
///
/// The parser itself is owned (initialized and deleted) by `YAMLParser.compose(utf8:)`.
struct EventReader {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private var source: SourceText

    init(parser: UnsafeMutablePointer<yaml_parser_t>, source: SourceText) {
        self.parser = parser
        self.source = source
    }

    /// The next event, or the parser's error.
    mutating func next() throws(YAMLError) -> ParseEvent {
        var event = yaml_event_t()
        defer { yaml_event_delete(&event) }
        guard yaml_parser_parse(parser, &event) == 1 else { throw parserError() }
        return convert(event)
    }

    private mutating func convert(_ event: yaml_event_t) -> ParseEvent {
        let start = event.start_mark
        let end = event.end_mark
        let startMark = Mark(line: Int(start.line) + 1, column: Int(start.column) + 1)
        switch event.type {
        case YAML_STREAM_START_EVENT:
            return ParseEvent(kind: .streamStart, mark: startMark)
        case YAML_DOCUMENT_START_EVENT:
            return ParseEvent(kind: .documentStart, mark: startMark)
        case YAML_DOCUMENT_END_EVENT:
            return ParseEvent(kind: .documentEnd, mark: startMark)
        case YAML_ALIAS_EVENT:
            return ParseEvent(kind: .alias(Self.string(event.data.alias.anchor) ?? ""), mark: startMark)
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            // The length, not the NUL terminator: a double-quoted "\0" puts a NUL inside the value.
            let value =
                data.value.map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: Int(data.length)), as: UTF8.self)
                }
                ?? ""
            let anchor = Self.string(data.anchor)
            let rawTag = Self.string(data.tag)
            var mark = startMark
            if anchor != nil || rawTag != nil {
                mark =
                    source.contentStart(
                        startOffset: source.byteOffset(ofCharacterIndex: Int(start.index)), line: Int(start.line),
                        column: Int(start.column), endOffset: source.byteOffset(ofCharacterIndex: Int(end.index))
                    ) ?? startMark
            }
            return ParseEvent(
                kind: .scalar(value, Self.style(data.style)), anchor: anchor, tag: Self.specificTag(rawTag), mark: mark)
        case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            let isMapping = event.type == YAML_MAPPING_START_EVENT
            let sequence = event.data.sequence_start
            let mapping = event.data.mapping_start
            let anchor = Self.string(isMapping ? mapping.anchor : sequence.anchor)
            let rawTag = Self.string(isMapping ? mapping.tag : sequence.tag)
            var mark = startMark
            if anchor != nil || rawTag != nil {
                // libyaml's end mark is just after a flow collection's `[` or `{`, and after the first `-` of a
                // sequence indented like its parent mapping's keys. A block mapping's start token, and an indented
                // block sequence's, is zero-width: at its first key or `-`.
                let flow =
                    isMapping ? mapping.style == YAML_FLOW_MAPPING_STYLE : sequence.style == YAML_FLOW_SEQUENCE_STYLE
                let zeroWidth =
                    !flow
                    && (isMapping
                        || source.byte(at: source.byteOffset(ofCharacterIndex: Int(end.index))) == UInt8(ascii: "-"))
                mark = Mark(line: Int(end.line) + 1, column: Int(end.column) + (zeroWidth ? 1 : 0))
            }
            return ParseEvent(
                kind: isMapping ? .mappingStart : .sequenceStart, anchor: anchor, tag: Self.specificTag(rawTag),
                mark: mark)
        case YAML_SEQUENCE_END_EVENT:
            return ParseEvent(kind: .sequenceEnd, mark: startMark)
        case YAML_MAPPING_END_EVENT:
            return ParseEvent(kind: .mappingEnd, mark: startMark)
        default:
            // YAML_STREAM_END_EVENT, and YAML_NO_EVENT which libyaml returns once the stream has ended.
            return ParseEvent(kind: .streamEnd, mark: startMark)
        }
    }

    /// The parser's error as a `YAMLError`: libyaml's problem, its context, and its position.
    private func parserError() -> YAMLError {
        let state = parser.pointee
        let problem = Self.string(state.problem) ?? "unknown error"
        switch state.error {
        case YAML_MEMORY_ERROR:
            return YAMLError(message: "out of memory", mark: Mark(line: 1, column: 1))
        case YAML_READER_ERROR:
            // Reader errors carry a byte offset and the offending value instead of a mark.
            var message = problem
            if state.problem_value >= 0 {
                message += ": #" + String(state.problem_value, radix: 16, uppercase: true)
            }
            return YAMLError(message: message, mark: source.mark(ofByteOffset: Int(state.problem_offset)))
        default:
            var message = problem
            if let context = Self.string(state.context) {
                message += context.hasPrefix("while ") ? " " + context : " while " + context
            }
            let mark = state.problem_mark
            return YAMLError(message: message, mark: Mark(line: Int(mark.line) + 1, column: Int(mark.column) + 1))
        }
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func string(_ pointer: UnsafeMutablePointer<UInt8>?) -> String? {
        pointer.map { String(cString: UnsafePointer($0)) }
    }

    /// nil for no tag and for the non-specific tag `!`.
    private static func specificTag(_ tag: String?) -> String? {
        tag == "!" ? nil : tag
    }

    private static func style(_ style: yaml_scalar_style_t) -> ScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: return .literal
        case YAML_FOLDED_SCALAR_STYLE: return .folded
        default: return .plain
        }
    }
}
