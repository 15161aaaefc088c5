import Foundation
import Logging
import Metrics
import Prometheus
import Synchronization

/// The process-wide metrics registry, exported at `/metrics`.
///
/// swift-metrics has one global backend per process, so it is bootstrapped once
/// whatever the number of applications (tests build many).
public enum Observability {
    private static let state = Mutex<PrometheusCollectorRegistry?>(nil)

    /// The registry, bootstrapping swift-metrics on first use.
    public static var registry: PrometheusCollectorRegistry {
        state.withLock { registry in
            if let registry { return registry }
            let created = PrometheusCollectorRegistry()
            var factory = PrometheusMetricsFactory(registry: created)
            factory.defaultDurationHistogramBuckets = [
                .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
            ]
            MetricsSystem.bootstrap(factory)
            registry = created
            return created
        }
    }

    /// The metrics in Prometheus text format.
    public static func render() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
