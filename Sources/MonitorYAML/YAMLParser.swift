internal import CLibYAML

/// Parses YAML text into `Node` trees with libyaml.
///
/// Anchors and aliases are resolved, merge keys (`<<`) applied, duplicate keys kept. Nesting is limited to
/// 256 collections and a stream to 1,000,000 nodes counting every alias copy, so hostile input fails
/// with a `YAMLError` instead of exhausting the stack or memory.
package enum YAMLParser {
    /// Parses the first document of `text`; returns nil for an empty stream (empty file, only comments).
    ///
    /// The whole stream is still read, so an error anywhere in it is thrown; later documents are dropped.
    package static func parse(_ text: String) throws(YAMLError) -> Node? {
        try compose(utf8: Array(text.utf8)).first
    }

    /// Parses UTF-8 bytes, which unlike a `String` may be invalid UTF-8; a leading byte order mark is ignored.
    static func compose(utf8 input: [UInt8]) throws(YAMLError) -> [Node] {
        var bytes = input
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let count = bytes.count
        // libyaml wants a non-null pointer even for empty input; the extra byte is not part of the input.
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(YAMLError) -> [Node] in
            let text = UnsafeBufferPointer(rebasing: buffer[0..<count])
            let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
            defer { parser.deallocate() }
            guard yaml_parser_initialize(parser) == 1 else {
                throw YAMLError(message: "out of memory", mark: Mark(line: 1, column: 1))
            }
            defer { yaml_parser_delete(parser) }
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(parser, buffer.baseAddress, count)
            var composer = Composer(reader: EventReader(parser: parser, source: SourceText(bytes: text)))
            return try composer.documents()
        }
    }
}
