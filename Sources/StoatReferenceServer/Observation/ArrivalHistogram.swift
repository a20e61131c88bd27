/// Socket arrivals (upgrades accepted) counted in fixed bins since a mark, for storm benchmarks.
///
/// Measured on the monotonic clock of the machine, not the server's clock, since it counts real arrivals.
public struct ArrivalHistogram: Sendable, Equatable {
    /// The width of a bin, in milliseconds (100).
    public var binMilliseconds: Int
    /// How long ago the mark was set, in milliseconds.
    public var millisecondsSinceMark: Int
    /// Arrivals per bin: `bins[i]` counts upgrades accepted from `i × binMilliseconds` to
    /// `(i + 1) × binMilliseconds` after the mark; trailing empty bins are left out.
    public var bins: [Int]
    /// Arrivals after the last bin the server keeps (``ObservationLimits/arrivalBins``, an hour by default).
    public var late = 0

    /// All arrivals since the mark.
    public var total: Int { bins.reduce(0, +) + late }
}
