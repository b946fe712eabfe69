/// A mapping key compared by value only (not by mark, style, tag or anchor), for merge-key overrides.
struct KeyIdentity: Hashable {
    private indirect enum Shape: Hashable {
        case scalar(String)
        case sequence([Shape])
        case mapping([Shape])
    }

    private let shape: Shape

    init(_ node: Node) {
        shape = Self.shape(of: node)
    }

    private static func shape(of node: Node) -> Shape {
        switch node.content {
        case .scalar(let value, _):
            return .scalar(value)
        case .sequence(let items):
            return .sequence(items.map(shape(of:)))
        case .mapping(let pairs):
            return .mapping(pairs.flatMap { [shape(of: $0.key), shape(of: $0.value)] })
        }
    }
}
