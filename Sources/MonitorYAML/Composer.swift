/// Builds `Node` trees from the event stream: resolves aliases, applies merge keys, and enforces the limits.
///
/// Iterative, with an explicit stack of open collections, so deep input never deepens the call stack.
struct Composer {
    /// The deepest collection nesting accepted.
    static let maximumDepth = 256
    /// The most nodes a stream may materialize, counting every alias copy at its full size.
    static let maximumNodes = 1_000_000

    private var reader: EventReader
    private var anchors: [String: Anchored] = [:]
    private var nodeCount = 0
    private var resolvedAliases = false

    init(reader: EventReader) {
        self.reader = reader
    }

    /// An anchored node with what an alias to it costs.
    private struct Anchored {
        var node: Node
        /// Nodes in it, alias copies included.
        var size: Int
        /// Collection levels in it (0 for a scalar).
        var height: Int
    }

    /// A finished node on its way into its parent.
    private struct Finished {
        var node: Node
        var height: Int
        /// Where it appears: the alias for an alias copy, else the node's mark.
        var site: Mark
        /// For a sequence that is a merge value: where each item appears.
        var itemSites: [Mark] = []
    }

    /// A collection whose end event has not arrived yet.
    private struct OpenCollection {
        var isMapping: Bool
        var mark: Mark
        var tag: String?
        var anchor: String?
        var countBefore: Int
        var height = 1
        var items: [Node] = []
        /// Set when this sequence is the value of a merge key, so bad items can be reported where they appear.
        var recordsSites = false
        var itemSites: [Mark] = []
        var pairs: [PendingPair] = []
        var pendingKey: Node?
    }

    private struct PendingPair {
        var pair: Node.Pair
        var valueSite: Mark
        var valueItemSites: [Mark]
    }

    /// Reads the whole stream into root nodes, one per document.
    mutating func documents() throws(YAMLError) -> [Node] {
        var roots: [Node] = []
        while true {
            let event = try reader.next()
            switch event.kind {
            case .streamStart:
                continue
            case .streamEnd:
                return roots
            case .documentStart:
                anchors.removeAll()
                let root = try composeNode(startingWith: try reader.next())
                let end = try reader.next()
                guard case .documentEnd = end.kind else { throw Self.unexpected(end) }
                roots.append(root)
            default:
                throw Self.unexpected(event)
            }
        }
    }

    private mutating func composeNode(startingWith first: ParseEvent) throws(YAMLError) -> Node {
        var open: [OpenCollection] = []
        var event = first
        while true {
            let finished: Finished
            switch event.kind {
            case .scalar(let value, let style):
                let node = Node(content: .scalar(value, style), mark: event.mark, tag: event.tag, anchor: event.anchor)
                try count(1, at: node.mark)
                if let anchor = event.anchor { anchors[anchor] = Anchored(node: node, size: 1, height: 0) }
                finished = Finished(node: node, height: 0, site: node.mark)
            case .alias(let name):
                guard let target = anchors[name] else {
                    throw YAMLError(message: "unknown alias '\(name)'", mark: event.mark)
                }
                if open.count + target.height > Self.maximumDepth {
                    throw YAMLError(message: "nesting deeper than \(Self.maximumDepth) levels", mark: event.mark)
                }
                resolvedAliases = true
                try count(target.size, at: event.mark)
                finished = Finished(node: target.node, height: target.height, site: event.mark)
            case .sequenceStart, .mappingStart:
                if open.count >= Self.maximumDepth {
                    throw YAMLError(message: "nesting deeper than \(Self.maximumDepth) levels", mark: event.mark)
                }
                let isMapping = if case .mappingStart = event.kind { true } else { false }
                var collection = OpenCollection(
                    isMapping: isMapping, mark: event.mark, tag: event.tag, anchor: event.anchor, countBefore: nodeCount
                )
                if !isMapping, let parent = open.last, parent.isMapping, let key = parent.pendingKey {
                    collection.recordsSites = Self.isMergeKey(key)
                }
                try count(1, at: event.mark)
                open.append(collection)
                event = try reader.next()
                continue
            case .sequenceEnd, .mappingEnd:
                guard let collection = open.popLast() else { throw Self.unexpected(event) }
                let content: Node.Content =
                    collection.isMapping
                    ? .mapping(try Self.applyingMerges(collection.pairs)) : .sequence(collection.items)
                let node = Node(content: content, mark: collection.mark, tag: collection.tag, anchor: collection.anchor)
                if let anchor = collection.anchor {
                    anchors[anchor] = Anchored(
                        node: node, size: nodeCount - collection.countBefore, height: collection.height)
                }
                finished = Finished(
                    node: node, height: collection.height, site: node.mark, itemSites: collection.itemSites)
            default:
                throw Self.unexpected(event)
            }
            guard !open.isEmpty else { return finished.node }
            Self.add(finished, to: &open[open.count - 1])
            event = try reader.next()
        }
    }

    private static func add(_ finished: Finished, to collection: inout OpenCollection) {
        collection.height = max(collection.height, finished.height + 1)
        if !collection.isMapping {
            collection.items.append(finished.node)
            if collection.recordsSites { collection.itemSites.append(finished.site) }
        } else if let key = collection.pendingKey {
            collection.pairs.append(
                PendingPair(
                    pair: Node.Pair(key: key, value: finished.node), valueSite: finished.site,
                    valueItemSites: finished.itemSites))
            collection.pendingKey = nil
        } else {
            collection.pendingKey = finished.node
        }
    }

    private mutating func count(_ nodes: Int, at mark: Mark) throws(YAMLError) {
        nodeCount += nodes
        guard nodeCount > Self.maximumNodes else { return }
        let message =
            resolvedAliases
            ? "document expands to more than \(Self.maximumNodes) nodes (alias expansion)"
            : "document has more than \(Self.maximumNodes) nodes"
        throw YAMLError(message: message, mark: mark)
    }

    /// Whether `key` is the merge key: a plain `<<` without a tag other than `!!merge`.
    private static func isMergeKey(_ key: Node) -> Bool {
        guard case .scalar("<<", .plain) = key.content else { return false }
        return key.tag == nil || key.tag == "tag:yaml.org,2002:merge"
    }

    /// The pairs with every `<<` pair replaced by the pairs it merges in.
    ///
    /// Explicit keys win over merged ones, and among merged pairs the first one for a key wins (so earlier
    /// mappings of a `<<` sequence win over later ones); merged pairs take the place of their `<<` key.
    private static func applyingMerges(_ pending: [PendingPair]) throws(YAMLError) -> [Node.Pair] {
        guard pending.contains(where: { isMergeKey($0.pair.key) }) else { return pending.map(\.pair) }
        var seen = Set(pending.lazy.filter { !isMergeKey($0.pair.key) }.map { KeyIdentity($0.pair.key) })
        var pairs: [Node.Pair] = []
        for entry in pending {
            guard isMergeKey(entry.pair.key) else {
                pairs.append(entry.pair)
                continue
            }
            for source in try mergeSources(of: entry) {
                for pair in source where seen.insert(KeyIdentity(pair.key)).inserted {
                    pairs.append(pair)
                }
            }
        }
        return pairs
    }

    /// The mappings a `<<` value stands for, or an error at the value (or item) that is not a mapping.
    private static func mergeSources(of entry: PendingPair) throws(YAMLError) -> [[Node.Pair]] {
        let message = "the value of the merge key '<<' must be a mapping or a sequence of mappings"
        switch entry.pair.value.content {
        case .mapping(let pairs):
            return [pairs]
        case .sequence(let items):
            var sources: [[Node.Pair]] = []
            for (offset, item) in items.enumerated() {
                guard let pairs = item.mapping else {
                    let site = offset < entry.valueItemSites.count ? entry.valueItemSites[offset] : item.mark
                    throw YAMLError(message: message, mark: site)
                }
                sources.append(pairs)
            }
            return sources
        case .scalar:
            throw YAMLError(message: message, mark: entry.valueSite)
        }
    }

    private static func unexpected(_ event: ParseEvent) -> YAMLError {
        YAMLError(message: "unexpected parser event \(event.kind)", mark: event.mark)
    }
}
