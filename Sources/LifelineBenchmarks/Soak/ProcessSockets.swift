import Foundation

/// This process's TCP sockets, as Linux's `/proc` shows them.
enum ProcessSockets {
    /// The inodes of this process's TCP sockets in CLOSE-WAIT (the peer closed, this side has not): the sockets
    /// of `/proc/self/net/tcp` and `tcp6` in state `08` whose inode is one of `/proc/self/fd`'s. `nil` where
    /// `/proc` does not say (not Linux).
    static func closeWait() -> Set<String>? {
        guard let owned = ownedSocketInodes() else { return nil }
        var found = Set<String>()
        for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
            // Read to the end whatever its size: a /proc file states none.
            guard let file = FileHandle(forReadingAtPath: table) else { continue }
            let text = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
            try? file.close()
            found.formUnion(closeWaitInodes(inTable: text).intersection(owned))
        }
        return found
    }

    /// The inodes of the sockets in CLOSE-WAIT in one `/proc/net/tcp` table (a header line, then one line a
    /// socket: `sl local_address rem_address st … uid timeout inode …`).
    static func closeWaitInodes(inTable text: String) -> Set<String> {
        var inodes = Set<String>()
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, fields[3] == "08" else { continue }
            inodes.insert(String(fields[9]))
        }
        return inodes
    }

    /// The inodes of the sockets this process holds (`/proc/self/fd`'s links `socket:[INODE]`).
    private static func ownedSocketInodes() -> Set<String>? {
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
            return nil
        }
        var inodes = Set<String>()
        for descriptor in descriptors {
            guard
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
                target.hasPrefix("socket:[")
            else { continue }
            inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
        }
        return inodes
    }
}
