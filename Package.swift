// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "monitor",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "monitor", targets: ["monitor"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.24.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    ],
    targets: [
        // MARK: - Sources

        /// The system libyaml, wrapped once by MonitorYAML.
        .systemLibrary(
            name: "CLibYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        /// A YAML node tree with line/column marks, parsed by libyaml.
        .target(name: "MonitorYAML", dependencies: ["CLibYAML"]),
        /// The process calls Swift cannot make (variadic `prctl`, spawn options it does not import), for the programs.
        .target(name: "CProcessControl"),
        /// The one JSON reader (bytes in, values out, with line and column in its errors) and the ordered JSON value
        /// the outputs write.
        .target(name: "MonitorJSON"),
        /// Text as people read it: made safe for a terminal and measured, redacted of secrets, times in UTC, durations
        /// and sizes as `feeds.yaml` writes them, the closest word to a misspelt one, a place in a file and the problem
        /// found there.
        .target(name: "MonitorText", dependencies: ["MonitorJSON"]),
        /// The concurrency kit: a semaphore, a wakeup, a deadline, bounded merges, the clock polls keep time by.
        .target(
            name: "MonitorConcurrency",
            dependencies: ["MonitorText", .product(name: "DequeModule", package: "swift-collections")]),
        /// A `feeds.yaml` value with its place, the options a source or notifier declares (their types and ranges) and
        /// those a feed was given, with `${VAR}` read from the environment.
        .target(name: "MonitorOptions", dependencies: ["MonitorText"]),
        /// An item and its group: what every source yields, every output writes and every rule reads.
        .target(name: "MonitorItems", dependencies: ["MonitorJSON", "MonitorText"]),
        /// The rules language (`where:`): a rule read and checked once, evaluated on anything that reads as an item.
        .target(name: "MonitorRules", dependencies: ["MonitorItems", "MonitorText", "MonitorJSON"]),
        /// Feed-source protocol, configuration model and validation, items, HTTP seam, the state's protocol.
        .target(
            name: "MonitorCore",
            dependencies: [
                "MonitorJSON", "MonitorText", "MonitorItems", "MonitorRules", "MonitorOptions", "MonitorConcurrency",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        /// The programs monitor runs (exec sources, command notifiers): their path, environment and input, their
        /// process groups, and the supervision that ends what they leave behind.
        .target(
            name: "MonitorPrograms",
            dependencies: [
                "MonitorConcurrency",
                "MonitorText", "MonitorCore", "CProcessControl",
                .product(name: "Subprocess", package: "swift-subprocess"),
            ]
        ),
        /// The state's logic over SQL, written once: the statements and what follows from their rows, in each
        /// database's dialect (SQLite and PostgreSQL run them).
        .target(name: "MonitorSQL", dependencies: ["MonitorItems", "MonitorCore"]),
        /// The SQLite settings Swift cannot reach (variadic C functions), for MonitorSQLite.
        .target(name: "CSQLiteOptions", linkerSettings: [.linkedLibrary("sqlite3")]),
        /// The state in a SQLite file, through GRDB (kept out of the core, so that the sources and their tests do not
        /// build it).
        .target(
            name: "MonitorSQLite",
            dependencies: [
                "MonitorItems",
                "MonitorCore", "MonitorSQL", "CSQLiteOptions", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        /// The state in PostgreSQL: the same store protocol as the SQLite state, through PostgresNIO.
        .target(
            name: "MonitorPostgres",
            dependencies: [
                "MonitorConcurrency",
                "MonitorItems",
                "MonitorText",
                "MonitorCore",
                "MonitorSQL",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        /// The registry of built-in sources, config loading, the commands, terminal rendering.
        .target(
            name: "MonitorApp",
            dependencies: [
                "MonitorOptions", "MonitorConcurrency",
                "MonitorItems",
                "MonitorRules", "MonitorText",
                "MonitorCore", "MonitorJSON",
                "MonitorPostgres",
                "MonitorSQLite",
                "MonitorYAML",
                "MonitorPrograms",
                "GitHubSource",
                "EONETSource",
                "ExecSource",
                "WebFeedSource",
                "JSONAPISource",
                "WebhookNotifier",
                "CommandNotifier",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            resources: [.embedInCode("Map/world-110m.outlines")]
        ),
        /// Linked on Linux without exporting its own symbols (the static Swift runtime asks for `-export-dynamic`,
        /// which put 50,000 names in the dynamic symbol table: 5 MB of file, and a walk of all of them by `dladdr` at
        /// every start).
        .executableTarget(
            name: "monitor",
            dependencies: ["MonitorApp"],
            linkerSettings: [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))]
        ),

        // MARK: - Tools (Tools/): the tests' wire, the offline demo's stand-in, the benchmarks; `monitor` links none of them

        /// A real HTTP/1.1 server on 127.0.0.1 answering from a handler: the wire for the tests and the stand-in; raw
        /// TCP clients for the tests that check bytes on the wire.
        .target(
            name: "LoopbackHTTP",
            dependencies: [
                "MonitorCore",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tools/LoopbackHTTP"
        ),
        /// What the stand-in, the bench and the tests share: the JSON the EONET API writes, a receiver that is down.
        .target(
            name: "Samples", dependencies: ["MonitorOptions", "MonitorConcurrency", "MonitorCore", "MonitorJSON"],
            path: "Tools/Samples"),
        /// A local stand-in for the GitHub and EONET APIs on 127.0.0.1, from generated data.
        .executableTarget(
            name: "monitor-standin",
            dependencies: [
                "MonitorText",
                "MonitorCore", "MonitorJSON",
                "LoopbackHTTP",
                "Samples",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/StandIn"
        ),
        /// Measures the EONET and GitHub sources' decoding of one events document.
        .executableTarget(
            name: "monitor-bench",
            dependencies: [
                "MonitorOptions", "MonitorConcurrency",
                "MonitorItems",
                "MonitorCore", "MonitorJSON",
                "MonitorPostgres",
                "MonitorSQLite",
                "EONETSource",
                "GitHubSource",
                "Samples",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/Bench"
        ),

        // MARK: - Feed sources (Plugins/ holds feed sources, not SwiftPM package plugins)

        .target(
            name: "GitHubSource",
            dependencies: [
                "MonitorOptions",
                "MonitorItems",
                "MonitorText", "MonitorCore", "MonitorJSON", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Plugins/GitHub"
        ),
        .target(
            name: "EONETSource",
            dependencies: ["MonitorOptions", "MonitorItems", "MonitorText", "MonitorCore", "MonitorJSON"],
            path: "Plugins/EONET"),
        /// `type: exec`: an external program speaking JSON lines, run as a process of its own group.
        .target(
            name: "ExecSource",
            dependencies: [
                "MonitorOptions",
                "MonitorItems",
                "MonitorText",
                "MonitorCore", "MonitorJSON", "MonitorPrograms",
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Plugins/Exec"
        ),

        /// `type: feed`: RSS, Atom and JSON Feed documents, XML read by Foundation's `XMLParser` (libxml2).
        .target(
            name: "WebFeedSource",
            dependencies: [
                "MonitorOptions", "MonitorItems", "MonitorText", "MonitorCore", "MonitorJSON",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Plugins/WebFeed"
        ),

        /// `type: json`: any JSON API, its items found by paths.
        .target(
            name: "JSONAPISource",
            dependencies: ["MonitorOptions", "MonitorItems", "MonitorText", "MonitorCore", "MonitorJSON"],
            path: "Plugins/JSONAPI"
        ),

        // MARK: - Notifiers (Plugins/ holds them too)

        /// `type: webhook`: an HTTP POST of each notification through the feeds' transport.
        .target(
            name: "WebhookNotifier",
            dependencies: [
                "MonitorOptions", "MonitorConcurrency",
                "MonitorItems",
                "MonitorText", "MonitorCore", "MonitorJSON", .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Plugins/Webhook"
        ),
        /// `type: command`: a program run per notification, in a process group of its own.
        .target(
            name: "CommandNotifier",
            dependencies: [
                "MonitorOptions",
                "MonitorText",
                "MonitorCore", "MonitorPrograms", .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Plugins/Command"
        ),

        // MARK: - Tests

        /// Fixtures, the stub transport, a state in memory, the manual clock and event waits: no NIO and no database,
        /// so a plugin's tests stay small.
        .target(
            name: "TestSupport",
            dependencies: [
                "MonitorOptions", "MonitorConcurrency",
                "MonitorItems",
                "MonitorText",
                "MonitorCore", "MonitorJSON", "Samples", .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Tests/TestSupport"
        ),
        /// A real PostgreSQL server for the tests (Debian's binaries, run as an unprivileged user in a temporary
        /// directory), a relay between a store and it that can go silent, and the state backends the state tests run
        /// against.
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                "MonitorConcurrency",
                "MonitorCore", "MonitorPostgres", "MonitorSQLite", "TestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/PostgresTestSupport"
        ),
        .testTarget(
            name: "MonitorPostgresTests",
            dependencies: [
                "MonitorOptions", "MonitorConcurrency",
                "MonitorItems",
                "MonitorPostgres", "MonitorCore", "MonitorApp", "TestSupport", "PostgresTestSupport", "LoopbackHTTP",
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "LoopbackHTTPTests",
            dependencies: [
                "MonitorConcurrency",
                "LoopbackHTTP",
                "MonitorCore",
                "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MonitorYAMLTests",
            dependencies: ["MonitorConcurrency", "MonitorYAML", "MonitorCore", "TestSupport"]),
        .testTarget(
            name: "MonitorCoreTests",
            dependencies: [
                "MonitorOptions", "MonitorConcurrency",
                "MonitorItems",
                "MonitorRules", "MonitorText",
                "MonitorCore", "MonitorJSON", "Samples", "TestSupport", "PostgresTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        /// The SQLite store's own parts (its file, its migrations, its batched writes), beside the state tests that
        /// run against both databases.
        .testTarget(
            name: "MonitorSQLiteTests",
            dependencies: [
                "MonitorItems",
                "MonitorSQLite", "MonitorCore", "TestSupport", "PostgresTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "MonitorAppTests",
            dependencies: [
                "MonitorRules",
                "MonitorOptions", "MonitorConcurrency",
                "MonitorItems",
                "MonitorText",
                "MonitorApp", "MonitorCore", "MonitorJSON", "MonitorSQLite", "Samples", "TestSupport", "LoopbackHTTP",
                "PostgresTestSupport", "GitHubSource", "WebFeedSource", "JSONAPISource", "EONETSource", "ExecSource",
                "WebhookNotifier", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "WebFeedSourceTests",
            dependencies: [
                "MonitorItems", "MonitorJSON", "MonitorOptions", "MonitorCore", "WebFeedSource", "JSONAPISource",
                "TestSupport",
            ]
        ),
        .testTarget(
            name: "GitHubSourceTests",
            dependencies: [
                "MonitorOptions",
                "MonitorItems",
                "MonitorText",
                "GitHubSource", "MonitorCore", "MonitorJSON", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "EONETSourceTests",
            dependencies: [
                "MonitorOptions",
                "MonitorItems",
                "MonitorRules",
                "EONETSource", "MonitorCore", "MonitorJSON", "Samples", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        /// Runs real processes (scripts written by the tests) through the exec source.
        .testTarget(
            name: "ExecSourceTests",
            dependencies: [
                "MonitorOptions",
                "MonitorItems",
                "ExecSource", "MonitorCore", "MonitorJSON", "TestSupport", "LoopbackHTTP",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        /// The command notifier against real scripts (the webhook's wire is tested through the app's transport, in
        /// MonitorAppTests).
        .testTarget(
            name: "NotifierTests",
            dependencies: ["MonitorItems", "CommandNotifier", "MonitorCore", "MonitorJSON", "TestSupport"]),
        /// Runs the built `monitor` executable as a user would.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "MonitorConcurrency",
                "MonitorItems",
                "MonitorText",
                "monitor", "TestSupport", "PostgresTestSupport", "LoopbackHTTP", "MonitorCore", "MonitorJSON",
                "MonitorPostgres",
                "MonitorSQLite", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
