import ArgumentParser
import Foundation
import Logging
import MonitorCore
import ServiceLifecycle
import UnixSignals

extension MonitorCommand {
    /// `monitor run`: polls the feeds of the feeds file.
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Poll the feeds of the feeds file, continuously (full-screen on a terminal) or --once.",
            discussion: """
                Without --once, every feed is polled at its interval until SIGINT (Ctrl-C), SIGTERM, SIGQUIT, \
                SIGUSR1, SIGUSR2 or SIGALRM, which stop it gracefully (exit 0), ending the programs it runs. The \
                feeds file is watched: a valid change starts, stops or restarts the feeds concerned; an invalid one is \
                reported and the last valid feeds keep running. SIGHUP reloads the feeds file at once (the \
                full-screen view stops on it, its terminal gone). When NOTIFY_SOCKET is set (a systemd service), it \
                says READY=1 once every feed is scheduled, RELOADING=1 and READY=1 around a reload, STOPPING=1, and \
                WATCHDOG=1 while its scheduler answers when WATCHDOG_USEC is set.

                With --once, every feed is polled once, concurrently, and the command exits: 0 when every feed \
                succeeded, 1 when any failed or partly failed, 2 when the feeds file is invalid. Any of those signals \
                cancels the polls, ending the programs of exec feeds, and it exits 128 + the signal's number (130 for \
                SIGINT, 143 for SIGTERM).

                --format json prints one JSON object per poll, one per line, as each poll finishes (a stream, where \
                `events` and `status` print one array); text summaries of --once follow the feeds file's order.

                --metrics [HOST:]PORT serves Prometheus metrics at http://HOST:PORT/metrics while it runs. A bare \
                port or localhost listens on 127.0.0.1 only; to be reachable from other machines, name the address \
                (0.0.0.0:9464 or [::]:9464 for every interface). Port 0 picks a free port; the address is printed \
                on standard error. On the same address, /healthz answers 200 ok, or 503 naming each failing, \
                held-back or stale feed, and /readyz 200 once every feed is scheduled.

                Notifications (the `notify:` list) are written to the state with the poll they report and delivered \
                after it: `run` delivers what earlier runs left first, then retries failures with backoff; `run --once` \
                delivers what earlier runs left before its polls, attempts its own after them and prints each one \
                left undelivered on standard error (its exit code stays that of the feeds).

                When standard input and output are terminals, `run` is the full-screen browser (`monitor browse` \
                names the same command). Its keys:

                """ + BrowserScreen.keys.map { "  " + $0 }.joined(separator: "\n"),
            aliases: ["browse"]
        )

        @OptionGroup var options: ConfigOptions
        @OptionGroup var stateOptions: StateOptions

        @Flag(help: "Poll every feed once, print the summaries and exit.")
        var once = false

        @Option(help: "Output format: text or json.")
        var format: OutputFormat = .text

        @Flag(help: "Log every request to standard error.")
        var verbose = false

        @Option(
            help: ArgumentHelp(
                "Serve Prometheus metrics at /metrics on this address (a bare port: 127.0.0.1 only).",
                valueName: "[host:]port"),
            transform: MetricsAddress.parse)
        var metrics: MetricsAddress?

        func validate() throws {
            if once, metrics != nil {
                throw ValidationError("--metrics serves while monitor runs; it cannot be used with --once")
            }
        }

        func run() async throws {
            let (config, configText) = try options.loadWithText()
            let settings = config.settings
            // The HTTP client, the one of the run, is made and warmed up (see `prepare()`) while the state opens:
            // making it starts the event loops and its first use instantiates the runtime's types of the request path,
            // CPU work that would otherwise come between the state being ready and the first request.
            async let prepared: HTTPClientTransport = {
                let transport = HTTPClientTransport(timeout: settings.timeout, concurrency: settings.concurrency)
                await transport.prepare()
                return transport
            }()
            let store: any StateStoring
            do {
                store = try await stateOptions.open()
            } catch {
                try? await prepared.shutdown()
                throw error
            }
            let transport = await prepared
            let fullScreen = !once && format == .text && TerminalSession.isAvailable
            var logger = Logger(label: "monitor") { StreamLogHandler.standardError(label: $0) }
            // The full screen shows failures itself; log lines would scribble over it.
            logger.logLevel = verbose ? .debug : fullScreen ? .critical : .warning
            var serviceOptions = MonitorService.Options(configPath: options.path, store: store)
            serviceOptions.configText = configText
            serviceOptions.once = once
            serviceOptions.transport = transport
            serviceOptions.format = format
            serviceOptions.fullScreen = fullScreen
            serviceOptions.terminal = Console.colors(onStandardError: false)
            serviceOptions.width = Console.width()
            serviceOptions.logger = logger
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
            if let metrics {
                // Served first and stopped last, so that the metrics are scraped until the feeds stop.
                do {
                    services.append(.init(service: try await serveMetrics(on: metrics, into: &serviceOptions)))
                } catch {
                    try? await transport.shutdown()
                    throw error
                }
            }
            // Trapped before any poll starts: a signal then stops the polls instead of killing `monitor`, which would
            // leave the programs of exec feeds running.
            // SIGHUP reloads a `run` (`systemctl reload`) unless full-screen, where it means the terminal is gone.
            let hupReloads = !once && !fullScreen
            let signals = StopSignals.Watch(await StopSignals.trap(except: hupReloads ? [.sighup] : []))
            if hupReloads { serviceOptions.reloadSignals = await UnixSignalsSequence(trapping: .sighup) }
            if !once {
                // A once run tells systemd nothing: it is no service.
                serviceOptions.systemd = SystemdNotify(environment: ProcessInfo.processInfo.environment)
            }
            let service = MonitorService(config: config, options: serviceOptions)
            var groupLogger = logger
            groupLogger.logLevel = .warning
            // The service returns by itself when its polls are done (--once) or `q` quits the full screen: that ends
            // the group, not an error.
            services.append(.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup))
            services.append(.init(service: signals, successTerminationBehavior: .gracefullyShutdownGroup))
            try await ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: groupLogger))
                .run()
            guard once else { return }
            // The last commit is made: on disk now, without the checkpoint closing the state would cost.
            await store.finishWriting()
            if let signal = signals.signal {
                Console.error("monitor: \(signal) received: the polls were cancelled\n")
                throw ExitStatus.stopped(by: signal)
            }
            if service.failed { throw ExitStatus.failure }
        }

        /// Listens on `address` for the metrics `options` will record, and says where on standard error; when it
        /// cannot, says why and exits 1.
        private func serveMetrics(on address: MetricsAddress, into options: inout MonitorService.Options)
            async throws -> MetricsServer
        {
            let export = MetricsExport()
            let health = RunHealth()
            let server: MetricsServer
            do {
                server = try await MetricsServer.bind(
                    address, export: export, health: health, readiness: options.readiness)
            } catch {
                Console.error("monitor: error: \(error)\n")
                throw ExitStatus.failure
            }
            options.metrics = export.metrics
            options.health = health
            let reach = server.address.isLoopback ? "" : " (reachable from other machines)"
            Console.error("metrics on \(server.address.url)\(reach)\n")
            return server
        }
    }
}
