import MonitorCore
import Prometheus

/// The Prometheus registry of one run and the ``MonitorMetrics`` recording into it: the only place that knows
/// Prometheus.
struct MetricsExport: Sendable {
    /// The content type of the text exposition format 0.0.4.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Where the metrics are kept.
    let registry: PrometheusCollectorRegistry
    /// What the engine records into the registry.
    let metrics: MonitorMetrics

    /// An empty registry; poll durations go in ``MonitorMetrics/pollDurationBuckets``.
    init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[MonitorMetrics.Name.pollDuration] = MonitorMetrics.pollDurationBuckets
        metrics = MonitorMetrics(factory: factory)
    }

    /// Every metric in the text exposition format.
    func text() -> [UInt8] {
        registry.emitToBuffer()
    }
}
