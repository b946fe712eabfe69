import CoreMetrics
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
        metrics = MonitorMetrics(factory: HelpedFactory(plain: PrometheusMetricsFactory(registry: registry)))
    }

    /// Every metric in the text exposition format.
    func text() -> [UInt8] {
        registry.emitToBuffer()
    }
}

/// swift-prometheus's factory, with the `# HELP` text of ``MonitorMetrics/help`` on every metric (its own factory
/// gives none, which `promtool check metrics` reports).
private struct HelpedFactory: MetricsFactory {
    /// The factory over the registry: it forgets what is destroyed.
    let plain: PrometheusMetricsFactory

    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: MonitorMetrics.help[label] ?? "")
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        plain.registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        plain.registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return plain.registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        return plain.registry.makeValueHistogram(
            descriptor: descriptor(label), labels: dimensions, buckets: plain.defaultValueHistogramBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        plain.registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let buckets =
            label == MonitorMetrics.Name.pollDuration
            ? MonitorMetrics.pollDurationBuckets : plain.defaultDurationHistogramBuckets
        return plain.registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions, buckets: buckets)
    }

    func destroyCounter(_ handler: any CounterHandler) { plain.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        plain.destroyFloatingPointCounter(handler)
    }
    func destroyRecorder(_ handler: any RecorderHandler) { plain.destroyRecorder(handler) }
    func destroyMeter(_ handler: any MeterHandler) { plain.destroyMeter(handler) }
    func destroyTimer(_ handler: any TimerHandler) { plain.destroyTimer(handler) }
}
