import Testing

@testable import LifelineBenchmarks

@Suite("The soak's seeded fault schedule")
struct SoakFaultScheduleTests {
    @Test("The same seed gives the same plan; another seed another")
    func seeded() {
        let plan = FaultSchedule.plan(seed: 42, sessions: 100, seconds: 20)
        #expect(plan == FaultSchedule.plan(seed: 42, sessions: 100, seconds: 20))
        #expect(plan != FaultSchedule.plan(seed: 43, sessions: 100, seconds: 20))
    }

    @Test("A plan holds every kind of fault, in order, within the run, with targets among the sessions")
    func shape() {
        let plan = FaultSchedule.plan(seed: 7, sessions: 100, seconds: 600)
        #expect(Set(plan.map(\.kind)) == Set(PlannedFault.Kind.allCases))
        #expect(plan.map(\.at) == plan.map(\.at).sorted())
        for fault in plan {
            #expect(fault.at + fault.duration <= .seconds(600))
            #expect(fault.sessions.allSatisfy { (0..<100).contains($0) })
        }
        // On average one fault every 0.4 s.
        #expect((1_200...1_800).contains(plan.count))
    }

    @Test("Windows of one kind never overlap, a device is never offline twice at once, outages stay short")
    func windows() {
        let plan = FaultSchedule.plan(seed: 11, sessions: 20, seconds: 600)
        for kind in [PlannedFault.Kind.silent, .ignorePings, .readyDelay, .sessionOutage, .hostile] {
            let windows = plan.filter { $0.kind == kind }
            for (earlier, later) in zip(windows, windows.dropFirst()) {
                #expect(earlier.at + earlier.duration <= later.at)
            }
        }
        var offlineUntil: [Int: Duration] = [:]
        for fault in plan where fault.kind == .offline {
            for session in fault.sessions {
                #expect(offlineUntil[session, default: .zero] <= fault.at)
                offlineUntil[session] = fault.at + fault.duration
            }
        }
        #expect(plan.filter { $0.kind == .sessionOutage }.allSatisfy { $0.duration <= FaultSchedule.longestOutage })
    }

    @Test(
        "Session-lookup outages are quiet long enough apart that no confirmation's three checks all meet one",
        arguments: [(11, 20), (20_261_123, 1_000)] as [(UInt64, Int)])
    func outagesApart(seed: UInt64, sessions: Int) {
        let outages = FaultSchedule.plan(seed: seed, sessions: sessions, seconds: 600).filter {
            $0.kind == .sessionOutage
        }
        #expect(outages.count > 10)
        for (earlier, later) in zip(outages, outages.dropFirst()) {
            #expect(earlier.at + earlier.duration + FaultSchedule.outageQuiet <= later.at)
        }
        // Longer than the longest wait between two checks, (2^2 − 1) × 0.5 s × 1.2, with room for a slow check.
        let longestSpacing = SoakTimings.sessionCheck.backoff.nominalDelay(failures: 2) * 1.2
        #expect(FaultSchedule.outageQuiet >= longestSpacing * 2)
    }

    @Test("Every garbage shape is text that is no event Lifeline knows")
    func garbage() {
        let shapes = (0..<FaultSchedule.garbageShapes).map(FaultSchedule.garbage)
        #expect(Set(shapes).count == FaultSchedule.garbageShapes)
        #expect(shapes.allSatisfy { !$0.isEmpty })
    }
}

extension SoakFaultScheduleTests {
    @Test("The soak that swift test runs (seed 20260518, 100 sessions, 20 s) meets the hostile server too")
    func hostileInTheTestSoak() {
        let hostile = FaultSchedule.plan(seed: 20_260_518, sessions: 100, seconds: 20).filter { $0.kind == .hostile }
        #expect(!hostile.isEmpty)
        #expect(hostile.allSatisfy { $0.duration > .zero })
    }
}

extension SoakFaultScheduleTests {
    @Test("The test soak's plan restarts gateway sessions, and only those, and lets events overtake each other")
    func gatewayFaultsInTheTestSoak() {
        let plan = FaultSchedule.plan(seed: 20_260_518, sessions: 100, seconds: 20)
        let restarts = plan.filter { $0.kind == .restartSession }
        #expect(!restarts.isEmpty)
        #expect(plan.contains { $0.kind == .reorder })
        for fault in restarts {
            #expect(!fault.sessions.isEmpty)
            #expect(fault.sessions.allSatisfy(SoakSession.isOnGateway))
            // Down for less than the soak's delivery allowance.
            #expect((100...1500).contains(fault.count))
        }
        // Without a session on the gateway there is nothing to restart.
        #expect(!FaultSchedule.plan(seed: 7, sessions: 5, seconds: 600).contains { $0.kind == .restartSession })
    }
}
