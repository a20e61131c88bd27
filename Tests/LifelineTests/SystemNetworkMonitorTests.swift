import Lifeline
import Testing

@Suite("The platform's network monitor, the default of Session and StoatClient")
struct SystemNetworkMonitorTests {
    #if os(Linux)
        @Test("on Linux the default is rtnetlink's monitor, whose first status is the interfaces' status now")
        func linuxDefault() async {
            let monitor = SystemNetworkMonitor.make()
            #expect(monitor is LinuxNetworkMonitor, "not a monitor that never goes offline")
            var statuses = monitor.statuses().makeAsyncIterator()
            #expect(await statuses.next() == LinuxNetworkMonitor.currentStatus)
        }
    #endif
}
