import Foundation
import Testing

@testable import LifelineBenchmarks

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The soak's count of sockets left in CLOSE-WAIT")
struct ProcessSocketsTests {
    @Test("a /proc/net/tcp table's CLOSE-WAIT lines (state 08) give their inodes; other states do not")
    func table() {
        let text = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0
               1: 0100007F:A1B2 0100007F:1F90 08 00000000:00000000 00:00000000 00000000  1000        0 222 1 0
               2: 0100007F:A1B3 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 333 1 0
            """
        #expect(ProcessSockets.closeWaitInodes(inTable: text) == ["222"])
    }

    #if os(Linux)
        @Test("a real socket whose peer closed and which this process keeps open is counted; closed, it is not")
        func realSocket() throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #expect(listener >= 0)
            defer { close(listener) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            try withUnsafeMutablePointer(to: &address) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    try #require(bind(listener, raw, length) == 0)
                    try #require(listen(listener, 1) == 0)
                    try #require(getsockname(listener, raw, &length) == 0)
                }
            }
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try withUnsafeMutablePointer(to: &address) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    try #require(connect(client, raw, length) == 0)
                }
            }
            let accepted = accept(listener, nil, nil)
            try #require(accepted >= 0)
            close(accepted)
            // The peer's FIN has arrived once a blocking read returns end of file: the socket is in CLOSE-WAIT.
            var byte: UInt8 = 0
            #expect(read(client, &byte, 1) == 0)
            var status = stat()
            try #require(fstat(client, &status) == 0)
            let inode = String(status.st_ino)
            #expect(try #require(ProcessSockets.closeWait()).contains(inode))
            close(client)
            #expect(try #require(ProcessSockets.closeWait()).contains(inode) == false)
        }
    #endif
}
